export { decodeMsgpackFile, decodeMsgpackPart, encodeMsgpackFile, encodeMsgpackPart, readMsgpackFile, writeMsgpackFile, writeMsgpackFileSync } from './msgpack-file.js'
export type { ReadMsgpackFileOptions } from './msgpack-file.js'
