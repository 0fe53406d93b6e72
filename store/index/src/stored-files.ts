import { isAscii } from 'node:buffer'

import { packFiles } from '@lode/store.cafs/file-list'

import { decodeRow, identityOf } from './row.js'

/**
 * What installing a package from the store needs of its row: its files (as `packFiles` packs them),
 * whether it builds, and the name and version its bundled manifest gives (when it gives them as
 * strings), to check that the row is the package the install asked for (`isOtherPackage`).
 */
export interface StoredFiles {
  files: string
  requiresBuild: boolean
  name?: string
  version?: string
}

/**
 * A row's files and `requiresBuild`, read from its bytes without decoding the rest: what an install
 * from a warm store needs of each of its packages. Decoding whole rows cost the main thread of such an
 * install 30-50 ms for 1,300 packages (msgpackr compiles a reader for each record shape of each
 * row, and every file became a Map entry and an object, only to be packed into one string).
 *
 * It walks the MessagePack pnpm writes (records: msgpackr's `useRecords`) and copies each file's
 * path, digest and mode straight into the packed string's bytes. Anything else it meets (another
 * extension, a two-byte record id, a field of another type) sends the row to `decodeRow`, which
 * reads every row msgpackr can.
 */
export function readStoredFiles (data: Uint8Array): StoredFiles {
  const buffer = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const read = new RowReader(buffer).storedFiles()
  if (read !== undefined) return read
  const row = decodeRow(data)
  return { files: packFiles(row.files), requiresBuild: row.requiresBuild === true, ...identityOf(row.manifest) }
}

/** Thrown inside the walk for what it does not read itself (made once); `readStoredFiles` decodes such a row in full. */
const UNREAD = new Error('a row left to msgpackr')

// The packed string's bytes, reused from row to row; grown when a row needs more.
let out = Buffer.allocUnsafeSlow(64 * 1024)
let outAt = 0

class RowReader {
  private at = 0
  // msgpackr's records: up to 64 shapes per message, each a list of keys, referred to as 0x40 + id.
  private readonly records: Array<string[] | undefined> = []

  constructor (private readonly data: Buffer) {}

  storedFiles (): StoredFiles | undefined {
    try {
      const keys = this.recordKeys(this.data[this.at++]!)
      let requiresBuild = false
      let files: string | undefined
      const identity: { name?: string, version?: string } = {}
      for (const key of keys) {
        if (key === 'requiresBuild') {
          requiresBuild = this.readOptionalBoolean()
        } else if (key === 'manifest') {
          this.readIdentity(identity)
        } else if (key === 'files') {
          files = this.readFiles()
          // The fields after `files` (sideEffects) say nothing of the others (pnpm writes them first).
          const filesAt = keys.indexOf('files')
          if (keys.indexOf('requiresBuild') < filesAt && keys.indexOf('manifest') < filesAt) break
        } else {
          this.skip()
        }
      }
      return files === undefined ? undefined : { files, requiresBuild, ...identity }
    } catch (err) {
      if (err === UNREAD || err instanceof RangeError) return undefined
      throw err
    }
  }

  /** The keys of the record that starts with `token` (a definition or a reference); the record's values follow. */
  private recordKeys (token: number): string[] {
    if (token >= 0x40 && token < 0x80) {
      const keys = this.records[token & 0x3f]
      if (keys === undefined) throw UNREAD
      return keys
    }
    // A definition: fixext1 of type 'r' whose byte is the id, then the array of keys.
    if (token !== 0xd4 || this.data[this.at] !== 0x72) throw UNREAD
    const id = this.data[this.at + 1]! & 0x3f
    this.at += 2
    const count = this.arrayLength(this.data[this.at++]!)
    const keys: string[] = []
    for (let i = 0; i < count; i++) keys.push(this.readString())
    this.records[id] = keys
    return keys
  }

  /** The bundled manifest's `name` and `version` (those that are strings) into `identity`; the rest skipped. */
  private readIdentity (identity: { name?: string, version?: string }): void {
    const token = this.data[this.at]!
    if (token === 0xc0) { // nil
      this.at++
      return
    }
    if (token === 0xd4 && this.data[this.at + 1] === 0 && this.data[this.at + 2] === 0) { // undefined
      this.at += 3
      return
    }
    this.at++
    for (const key of this.recordKeys(token)) {
      if ((key === 'name' || key === 'version') && this.isString(this.data[this.at]!)) identity[key] = this.readString()
      else this.skip()
    }
  }

  private isString (token: number): boolean {
    return (token >= 0xa0 && token < 0xc0) || token === 0xd9 || token === 0xda || token === 0xdb
  }

  /** The files map, packed as `packFiles` packs it, from its bytes. */
  private readFiles (): string {
    const count = this.mapLength(this.data[this.at++]!)
    outAt = 0
    for (let i = 0; i < count; i++) {
      if (i > 0) put(0)
      this.copyString()
      put(0)
      const keys = this.recordKeys(this.data[this.at++]!)
      let hasDigest = false
      let mode = -1
      for (const key of keys) {
        if (key === 'digest') {
          hasDigest = true
          this.copyString()
        } else if (key === 'mode') {
          mode = this.readInteger()
        } else {
          this.skip()
        }
      }
      if (!hasDigest || mode < 0) throw UNREAD
      // The digest was put in its place; the mode goes after it.
      put(0)
      putDecimal(mode)
    }
    // Paths are mostly ASCII, which makes a one-byte string for the cost of a copy.
    return out.toString(isAscii(out.subarray(0, outAt)) ? 'latin1' : 'utf8', 0, outAt)
  }

  private readOptionalBoolean (): boolean {
    const token = this.data[this.at++]!
    if (token === 0xc3) return true
    if (token === 0xc2 || token === 0xc0) return false
    if (token === 0xd4 && this.data[this.at] === 0 && this.data[this.at + 1] === 0) { // undefined
      this.at += 2
      return false
    }
    throw UNREAD
  }

  private readInteger (): number {
    const data = this.data
    const token = data[this.at++]!
    if (token < 0x40) return token
    let value: number
    switch (token) {
      case 0xcc: value = data[this.at]!; this.at += 1; break
      case 0xcd: value = data.readUInt16BE(this.at); this.at += 2; break
      case 0xce: value = data.readUInt32BE(this.at); this.at += 4; break
      default: throw UNREAD
    }
    return value
  }

  /** The length and start of the string at the cursor, the cursor moved past it. */
  private stringAt (): number {
    const data = this.data
    const token = data[this.at++]!
    let length: number
    if (token >= 0xa0 && token < 0xc0) length = token & 0x1f
    else if (token === 0xd9) length = data[this.at++]!
    else if (token === 0xda) length = this.readLength(2)
    else if (token === 0xdb) length = this.readLength(4)
    else throw UNREAD
    if (this.at + length > data.length) throw new RangeError('string past the end of the row')
    this.at += length
    return length
  }

  private readString (): string {
    const length = this.stringAt()
    return this.data.toString('utf8', this.at - length, this.at)
  }

  private copyString (): void {
    const length = this.stringAt()
    const start = this.at - length
    if (outAt + length + 16 > out.length) grow(length)
    outAt += this.data.copy(out, outAt, start, this.at)
  }

  private arrayLength (token: number): number {
    if (token >= 0x90 && token < 0xa0) return token & 0x0f
    if (token === 0xdc) return this.readLength(2)
    if (token === 0xdd) return this.readLength(4)
    throw UNREAD
  }

  private mapLength (token: number): number {
    if (token >= 0x80 && token < 0x90) return token & 0x0f
    if (token === 0xde) return this.readLength(2)
    if (token === 0xdf) return this.readLength(4)
    throw UNREAD
  }

  private readLength (bytes: 2 | 4): number {
    const length = bytes === 2 ? this.data.readUInt16BE(this.at) : this.data.readUInt32BE(this.at)
    this.at += bytes
    return length
  }

  /** Moves past one value (records defined on the way are remembered). */
  private skip (): void {
    const data = this.data
    const token = data[this.at]!
    if (token < 0x40 || token >= 0xe0) { this.at++; return }
    if (token < 0x80) { this.at++; this.skipRecordValues(this.recordKeys(token)); return }
    if (token < 0x90) { this.at++; for (let n = (token & 0x0f) * 2; n > 0; n--) this.skip(); return }
    if (token < 0xa0) { this.at++; for (let n = token & 0x0f; n > 0; n--) this.skip(); return }
    if (token < 0xc0) { this.stringAt(); return }
    this.at++
    switch (token) {
      case 0xc0: case 0xc2: case 0xc3: return
      case 0xc4: this.at += 1 + data[this.at]!; return
      case 0xc5: this.at += 2 + data.readUInt16BE(this.at); return
      case 0xc6: this.at += 4 + data.readUInt32BE(this.at); return
      case 0xca: this.at += 4; return
      case 0xcb: this.at += 8; return
      case 0xcc: case 0xd0: this.at += 1; return
      case 0xcd: case 0xd1: this.at += 2; return
      case 0xce: case 0xd2: this.at += 4; return
      case 0xcf: case 0xd3: this.at += 8; return
      case 0xd9: case 0xda: case 0xdb: this.at--; this.stringAt(); return
      case 0xdc: case 0xdd: for (let n = this.arrayLength(token); n > 0; n--) this.skip(); return
      case 0xde: case 0xdf: for (let n = this.mapLength(token) * 2; n > 0; n--) this.skip(); return
      case 0xd4:
        if (data[this.at] === 0x72) { this.at--; this.skipRecordValues(this.recordKeys(data[this.at++]!)); return }
        // msgpackr's undefined; any other extension may read on past its bytes.
        if (data[this.at] === 0 && data[this.at + 1] === 0) { this.at += 2; return }
        throw UNREAD
      default: throw UNREAD
    }
  }

  private skipRecordValues (keys: string[]): void {
    for (let n = keys.length; n > 0; n--) this.skip()
  }
}

function put (byte: number): void {
  if (outAt + 16 > out.length) grow(16)
  out[outAt++] = byte
}

function putDecimal (value: number): void {
  const digits = String(value)
  for (let i = 0; i < digits.length; i++) put(digits.charCodeAt(i))
}

function grow (needed: number): void {
  const bigger = Buffer.allocUnsafeSlow(Math.max(out.length * 2, outAt + needed + 1024))
  out.copy(bigger, 0, 0, outAt)
  out = bigger
}
