// A tar reader over an archive held whole in memory: the store threads inflate almost every
// tarball in one go, and walking its 512-byte headers in place spares them tar-stream's stream per
// entry, its buffer list and the promises of its async iteration (a sixth of a thread's time,
// with the garbage they leave). It reads what tar-stream reads, and fails where tar-stream fails:
// ustar and GNU headers, pax records (`path`, `size`; a global header's apply to the entries that
// have their own, as there), GNU long names, base-256 sizes; zero blocks are skipped; a bad
// checksum, an unknown format or data cut short is an error. One difference: the data of a
// directory entry (real archives have none) is skipped, where tar-stream would read it as headers.

/** One entry of the archive, given as soon as its header is read (its size can be refused before its data is looked at). */
export interface TarEntry {
  name: string
  mode: number
  /** tar-stream's names: `file`, `directory`, `symlink`, … (undefined for a type it does not know). */
  type: string | undefined
  size: number
  /** The offset of the entry's header in the archive. */
  offset: number
  /** Its data: a view of the archive's (no copy). Throws when the archive ends before it does. */
  content: () => Buffer
}

const BLOCK = 512
/** What tar-stream accepts for a pax or GNU long-name header's data. */
const MAX_HEADER_SIZE = 4 * 1024 * 1024

const TYPES: Readonly<Record<number, string>> = {
  0: 'file', 1: 'link', 2: 'symlink', 3: 'character-device', 4: 'block-device', 5: 'directory', 6: 'fifo', 7: 'contiguous-file',
  72: 'pax-header', 55: 'pax-global-header', 27: 'gnu-long-link-path', 28: 'gnu-long-path', 30: 'gnu-long-path',
}

/** The entries of `archive`, in order. Throws an `Error` (its message as tar-stream words it) for a broken archive. */
export function * readTar (archive: Buffer): Generator<TarEntry> {
  let offset = 0
  let pax: Record<string, string> | undefined
  let paxGlobal: Record<string, string> | undefined
  let longPath: string | undefined
  while (offset < archive.length) {
    if (archive.length - offset < BLOCK) throw unexpectedEnd()
    const headerAt = offset
    const header = archive.subarray(offset, offset + BLOCK)
    offset += BLOCK
    const sum = checksum(header)
    // A zero block (the end-of-archive marker among them).
    if (sum === 8 * 32) continue
    if (sum !== decodeOctal(header, 148, 8)) throw new Error('Invalid tar header. Maybe the tar is corrupted or it needs to be gunzipped?')
    let name = decodeString(header, 0, 100)
    if (isUstar(header)) {
      if (header[345] !== 0) name = `${decodeString(header, 345, 155)}/${name}`
    } else if (!isGnu(header)) {
      throw new Error('Invalid tar header: unknown format.')
    }
    const typeflag = header[156] === 0 ? 0 : header[156]! - 48
    let size = decodeOctal(header, 124, 12)
    const type = TYPES[typeflag]
    if (type === 'pax-header' || type === 'pax-global-header' || type === 'gnu-long-path' || type === 'gnu-long-link-path') {
      if (!(size >= 0)) throw new Error('Invalid header')
      if (size > MAX_HEADER_SIZE) throw new Error('Header exceeds max size')
      const data = entryData(archive, offset, size)
      offset += padded(size)
      if (type === 'pax-header') pax = { ...paxGlobal, ...decodePax(data) }
      else if (type === 'pax-global-header') paxGlobal = decodePax(data)
      else if (type === 'gnu-long-path') longPath = decodeString(data, 0, data.length)
      continue
    }
    if (longPath !== undefined) {
      name = longPath
      longPath = undefined
    }
    if (pax !== undefined) {
      if (pax['path'] !== undefined && pax['path'] !== '') name = pax['path']
      if (pax['size'] !== undefined && pax['size'] !== '') size = Number.parseInt(pax['size'], 10)
      pax = undefined
    }
    if (!(size >= 0)) throw new Error('Invalid header')
    // A file named with a trailing slash (old tars' directories) stays a file, as tar-stream gives
    // it (it decides the type before it looks at the slash): what lode stored before stays so.
    const dataAt = offset
    const content = (): Buffer => entryData(archive, dataAt, size)
    yield { name, mode: decodeOctal(header, 100, 8), type: TYPES[typeflag], size, offset: headerAt, content }
    if (dataAt + padded(size) > archive.length) throw unexpectedEnd()
    offset = dataAt + padded(size)
  }
}

/** `size` bytes of data at `offset`, with their padding to the next block there too. */
function entryData (archive: Buffer, offset: number, size: number): Buffer {
  if (offset + padded(size) > archive.length) throw unexpectedEnd()
  return archive.subarray(offset, offset + size)
}

function padded (size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK
}

function unexpectedEnd (): Error {
  return new Error('Unexpected end of data')
}

function checksum (header: Buffer): number {
  let sum = 8 * 32
  for (let i = 0; i < 148; i++) sum += header[i]!
  for (let i = 156; i < BLOCK; i++) sum += header[i]!
  return sum
}

// "ustar\0", or GNU's "ustar " with version " \0".
function isUstar (header: Buffer): boolean {
  return startsUstar(header) && header[262] === 0
}

function isGnu (header: Buffer): boolean {
  return startsUstar(header) && header[262] === 0x20 && header[263] === 0x20 && header[264] === 0
}

function startsUstar (header: Buffer): boolean {
  return header[257] === 0x75 && header[258] === 0x73 && header[259] === 0x74 && header[260] === 0x61 && header[261] === 0x72
}

/** A NUL-terminated UTF-8 field. */
function decodeString (data: Buffer, start: number, length: number): string {
  let end = start
  const limit = start + length
  while (end < limit && data[end] !== 0) end++
  return data.toString('utf8', start, end)
}

/** An octal field (spaces and NULs around it allowed), or a base-256 one (first byte 0x80 or 0xff). */
function decodeOctal (data: Buffer, start: number, length: number): number {
  const field = data.subarray(start, start + length)
  if ((field[0]! & 0x80) !== 0) return decodeBase256(field)
  let at = 0
  while (at < field.length && field[at] === 0x20) at++
  let end = field.indexOf(0x20, at)
  if (end === -1) end = field.length
  while (at < end && field[at] === 0) at++
  if (at === end) return 0
  return Number.parseInt(field.toString('latin1', at, end), 8)
}

function decodeBase256 (field: Buffer): number {
  const positive = field[0] === 0x80
  if (!positive && field[0] !== 0xff) return Number.NaN
  let sum = 0
  for (let i = 1; i < field.length; i++) sum = sum * 256 + (positive ? field[i]! : 0xff - field[i]!)
  return positive ? sum : -sum
}

/** pax records: `<length> <key>=<value>\n`, as tar-stream reads them (it stops at the first it cannot). */
function decodePax (data: Buffer): Record<string, string> {
  const records: Record<string, string> = {}
  let rest = data
  while (rest.length > 0) {
    let space = 0
    while (space < rest.length && rest[space] !== 0x20) space++
    const length = Number.parseInt(rest.toString('utf8', 0, space), 10)
    if (!length) return records
    const record = rest.toString('utf8', space + 1, length - 1)
    const equals = record.indexOf('=')
    if (equals === -1) return records
    records[record.slice(0, equals)] = record.slice(equals + 1)
    rest = rest.subarray(length)
  }
  return records
}
