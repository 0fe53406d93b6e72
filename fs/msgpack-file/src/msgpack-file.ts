import fs from 'node:fs'
import { crc32 } from 'node:zlib'

import { MSGPACK_FILE_MAGIC } from '@lode/core.constants'
import { LodeError, fileSystemError, hasErrno, isLodeError } from '@lode/core.error'
import { writeFileAtomic, writeFileAtomicSync } from '@lode/fs.write-file-atomic'
import { Packr, RESERVE_START_SPACE } from 'msgpackr'

// Frame: 4-byte magic, uint32 payload length, uint32 CRC-32 of the payload, payload.
// The length catches truncation and the CRC catches corruption, so a damaged file is never
// decoded into a plausible but wrong value (MessagePack alone can't tell).
const MAGIC = Buffer.from(MSGPACK_FILE_MAGIC, 'latin1')
const HEADER_SIZE = MAGIC.length + 8

const packr = new Packr({ useRecords: true, moreTypes: true })
// Parts encoded on their own carry no shared record definitions: plain maps.
const partPackr = new Packr({ useRecords: false, moreTypes: true })

export interface ReadMsgpackFileOptions<T> {
  /** Checks the decoded value's shape; a value that fails is reported as corrupted. */
  validate?: (value: unknown) => value is T
}

/**
 * Reads a file written by `writeMsgpackFile`, with its modification time (from the same
 * descriptor). Returns `undefined` when the file does not exist (or cannot, a parent being a file).
 * Throws `ERR_LODE_MSGPACK_FILE_TRUNCATED` or `ERR_LODE_MSGPACK_FILE_CORRUPTED` (naming the file)
 * when it exists but is damaged. Blocking, on purpose: its files are read many in a row (a
 * resolution's cached packuments), and a blocking read costs four system calls where a
 * promise-based one costs a thread-pool round trip for each (551 cached packuments: 35 ms, not 105).
 */
export function readMsgpackFileSync<T> (file: string, opts: ReadMsgpackFileOptions<T> = {}): { value: T, mtimeMs: number } | undefined {
  let fd: number
  try {
    // Non-blocking: a FIFO put in the file's place is not waited on (it is refused below).
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  } catch (err) {
    // ENOTDIR: a parent is a file, so this file cannot exist either.
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return undefined
    throw fileSystemError(err, file) ?? err
  }
  let data: Buffer
  let mtimeMs: number
  try {
    const stat = fs.fstatSync(fd)
    // A directory fails the read below (EISDIR), as with any reader; a pipe or device is no file lode wrote.
    if (!stat.isFile() && !stat.isDirectory()) throw corrupted(file, 'it is not a regular file')
    mtimeMs = stat.mtimeMs
    data = Buffer.allocUnsafe(stat.size)
    let filled = 0
    while (filled < data.length) {
      const read = fs.readSync(fd, data, filled, data.length - filled, filled)
      if (read === 0) break
      filled += read
    }
    data = data.subarray(0, filled)
  } catch (err) {
    throw isLodeError(err) ? err : fileSystemError(err, file) ?? err
  } finally {
    fs.closeSync(fd)
  }
  return { value: decodeMsgpackFile(file, data, opts), mtimeMs }
}

/** Decodes the bytes of a framed MessagePack file; `file` is used in error messages. */
export function decodeMsgpackFile<T> (file: string, data: Buffer, opts: ReadMsgpackFileOptions<T> = {}): T {
  if (data.length < HEADER_SIZE) {
    const seen = Math.min(data.length, MAGIC.length)
    if (MAGIC.subarray(0, seen).equals(data.subarray(0, seen))) throw truncated(file, HEADER_SIZE, data.length)
    throw corrupted(file, 'it does not start with a lode MessagePack header')
  }
  if (!data.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw corrupted(file, 'it does not start with a lode MessagePack header')
  }
  const length = data.readUInt32LE(MAGIC.length)
  const expectedCrc = data.readUInt32LE(MAGIC.length + 4)
  const payload = data.subarray(HEADER_SIZE)
  if (payload.length < length) throw truncated(file, HEADER_SIZE + length, data.length)
  if (payload.length > length) throw corrupted(file, `it has ${payload.length - length} bytes past its end`)
  if (crc32(payload) !== expectedCrc) throw corrupted(file, 'its checksum does not match its content')
  let value: unknown
  try {
    value = packr.unpack(payload)
  } catch (err) {
    throw corrupted(file, `its content is not valid MessagePack (${(err as Error).message})`)
  }
  if (opts.validate !== undefined && !opts.validate(value)) {
    throw corrupted(file, 'its content does not have the expected shape')
  }
  return value as T
}

/**
 * One part of a file's value, encoded on its own (no frame), to be decoded later and only if
 * needed (`decodeMsgpackPart`); the frame's checksum covers it once it is in a file. The result
 * is overwritten by the next call: copy it to keep it.
 */
export function encodeMsgpackPart (value: unknown): Uint8Array {
  return partPackr.pack(value)
}

/** Decodes a part written by `encodeMsgpackPart`; throws `ERR_LODE_MSGPACK_FILE_CORRUPTED`, naming `file`, if it cannot. */
export function decodeMsgpackPart (file: string, data: Uint8Array): unknown {
  try {
    return partPackr.unpack(data)
  } catch (err) {
    throw corrupted(file, `a part of it is not valid MessagePack (${(err as Error).message})`)
  }
}

/** Encodes a value in lode's framed MessagePack format. */
export function encodeMsgpackFile (value: unknown): Buffer {
  const frame = framed(value, undefined)
  const copy = Buffer.from(frame)
  releaseLargeBuffer(frame)
  return copy
}

// A frame past this size is not left in the packer's buffer, which it would keep for its next value.
const KEPT_BUFFER_SIZE = 16 * 1024 * 1024

/**
 * The frame of `value`, in the packer's own buffer (overwritten by its next value): packed behind
 * room left for the header, not copied after one. `sizeHint`, about the frame's size: a buffer of
 * that size from the start, where the packer would grow one (each time a copy: its old and new
 * buffers at once, over twice the frame for a large one).
 */
function framed (value: unknown, sizeHint: number | undefined): Buffer {
  if (sizeHint !== undefined && sizeHint > KEPT_BUFFER_SIZE) packr.useBuffer(Buffer.allocUnsafeSlow(sizeHint + HEADER_SIZE + 4096))
  const frame = packr.pack(value, RESERVE_START_SPACE | HEADER_SIZE)
  const payload = frame.subarray(HEADER_SIZE)
  MAGIC.copy(frame, 0)
  frame.writeUInt32LE(payload.length, MAGIC.length)
  frame.writeUInt32LE(crc32(payload), MAGIC.length + 4)
  return frame
}

function releaseLargeBuffer (frame: Buffer): void {
  if (frame.buffer.byteLength > KEPT_BUFFER_SIZE) packr.useBuffer(Buffer.allocUnsafeSlow(8192))
}

/**
 * Writes `value` atomically: to a temp file beside `file`, then renamed over it, so a reader
 * sees the old file or the new one, never a part. Creates the parent directory if needed.
 * No fsync: after a power loss a torn file fails its checksum and reads as corrupted.
 */
export async function writeMsgpackFile (file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, encodeMsgpackFile(value))
}

/**
 * `writeMsgpackFile`, blocking: for a thread whose task is to write the file. Written from the
 * packer's buffer, with no copy; `sizeHint` (about the encoded size) for a large value.
 */
export function writeMsgpackFileSync (file: string, value: unknown, opts: { sizeHint?: number } = {}): void {
  const frame = framed(value, opts.sizeHint)
  try {
    writeFileAtomicSync(file, frame)
  } finally {
    releaseLargeBuffer(frame)
  }
}

function truncated (file: string, expected: number, actual: number): LodeError {
  return new LodeError('MSGPACK_FILE_TRUNCATED',
    `${file} is truncated: it has ${actual} bytes where ${expected} were written.`,
    { hint: 'It is a cache file; delete it and run the command again.' })
}

function corrupted (file: string, why: string): LodeError {
  return new LodeError('MSGPACK_FILE_CORRUPTED', `${file} is corrupted: ${why}.`,
    { hint: 'It is a cache file; delete it and run the command again.' })
}
