export { decodeMsgpackFile, decodeMsgpackPart, encodeMsgpackFile, encodeMsgpackPart, readMsgpackFileSync, writeMsgpackFile, writeMsgpackFileSync } from './msgpack-file.js'
export type { ReadMsgpackFileOptions } from './msgpack-file.js'
