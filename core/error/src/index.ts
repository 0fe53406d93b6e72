export { printable } from './printable.js'
export { fileSystemError, fromLodeErrorData, hasErrno, isLodeError, LodeError, toLodeErrorData } from './lode-error.js'
export type { LodeErrorData } from './lode-error.js'
