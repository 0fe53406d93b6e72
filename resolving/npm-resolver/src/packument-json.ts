import { VERSION_FIELDS } from './packument.js'
import type { PackumentDocument } from './packument.js'

// A packument read from its UTF-8 bytes without making it one string and one object graph: for a
// document of a few hundred MB (thousands of versions, each with its readme) those were 3 to 5
// times its size (a string of two bytes a character as soon as one readme has an em dash, then
// every string again as objects). The bytes are checked against JSON's grammar, exactly as
// JSON.parse would take them; then each version is parsed on its own from its slice, a large one
// only for the members trimPackument reads. Every token this reads starts and ends at an ASCII
// byte, which no UTF-8 sequence contains, so a slice decodes as the whole would.

const TAB = 0x09
const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20
const QUOTE = 0x22
const PLUS = 0x2b
const COMMA = 0x2c
const MINUS = 0x2d
const DOT = 0x2e
const SLASH = 0x2f
const ZERO = 0x30
const NINE = 0x39
const COLON = 0x3a
const UPPER_E = 0x45
const LBRACKET = 0x5b
const BACKSLASH = 0x5c
const RBRACKET = 0x5d
const LOWER_E = 0x65
const LBRACE = 0x7b
const RBRACE = 0x7d

/**
 * The members of a packument's document that trimPackument reads, from its bytes: `undefined` when
 * the document is JSON but not an object with a `versions` object. Throws a SyntaxError where
 * JSON.parse would (its position is a byte offset), from here or, for a small version's document,
 * when `versions` reaches it. `versions` parses each version when it is reached: `bytes` must stay
 * as they are until it is done.
 */
export function readPackumentDocument (bytes: Buffer): PackumentDocument | undefined {
  let i = skipWs(bytes, 0)
  if (bytes[i] !== LBRACE) {
    expectEnd(bytes, skipValue(bytes, i))
    return undefined
  }
  // The last of each member wins, as with JSON.parse.
  let versions: VersionSlices | undefined
  let versionsStart = 0
  let distTags: Slice | undefined
  let modified: Slice | undefined
  let time: Slice | undefined
  i = skipWs(bytes, i + 1)
  if (bytes[i] === RBRACE) {
    i++
  } else {
    for (;;) {
      const keyStart = i
      i = skipString(bytes, i)
      const key = keyOf(bytes, keyStart, i)
      i = skipColon(bytes, i)
      const start = i
      if (key === 'versions') {
        // The versions this one replaces are never parsed: what of them is unchecked is checked now.
        if (versions !== undefined) checkDeferred(bytes, versions)
        versions = bytes[i] === LBRACE ? versionSlices(bytes, i) : undefined
        versionsStart = i
        i = versions?.end ?? skipValue(bytes, i)
      } else {
        i = skipValue(bytes, i)
        if (key === 'dist-tags') distTags = { start, end: i }
        else if (key === 'modified') modified = { start, end: i }
        else if (key === 'time') time = { start, end: i }
      }
      i = skipWs(bytes, i)
      if (bytes[i] === RBRACE) { i++; break }
      if (bytes[i] !== COMMA) throw unexpected(bytes, i)
      i = skipWs(bytes, i + 1)
    }
  }
  expectEnd(bytes, i)
  if (versions === undefined) return undefined
  return {
    'dist-tags': distTags === undefined ? undefined : stringsOf(bytes, distTags),
    modified: modified === undefined || bytes[modified.start] !== QUOTE ? undefined : stringAt(bytes, modified.start, modified.end),
    time: time === undefined ? undefined : stringsOf(bytes, time),
    versions: versionsOf(bytes, versions),
    versionsSize: { bytes: versions.end - versionsStart, members: versions.members },
  }
}

interface Slice { start: number, end: number }

/** The versions object's keys in the order JSON.parse would give them, each with where its (last) value starts. */
interface VersionSlices {
  keys: string[]
  starts: number[]
  ends: number[]
  end: number
  /** Members in the document, a repeated key each time. */
  members: number
}

/** A version document up to this size is parsed whole; a larger one (a readme in it) member by member. */
const WHOLE_VERSION_SIZE = 64 * 1024

/**
 * The versions object at `i`, checked whole. Its keys are ordered as JSON.parse's object would
 * have them (integer-like keys first, a repeated key where it first came, with its last value):
 * an object of the key's index, so that V8 orders them as it orders the parsed document.
 */
function versionSlices (bytes: Buffer, i: number): VersionSlices {
  const order: Record<string, number> = {}
  const starts: number[] = []
  const ends: number[] = []
  i = skipWs(bytes, i + 1)
  if (bytes[i] === RBRACE) return { keys: [], starts, ends, end: i + 1, members: 0 }
  for (;;) {
    const keyStart = i
    i = skipString(bytes, i)
    const key = keyOf(bytes, keyStart, i)
    i = skipColon(bytes, i)
    // A value a later one of the same key replaces is never parsed: checked now if it was not.
    const replaced = Object.hasOwn(order, key) ? order[key]! : undefined
    if (replaced !== undefined && isDeferred(bytes, starts[replaced]!, ends[replaced]!)) skipValue(bytes, starts[replaced]!)
    // Defined, not assigned: `__proto__` is a key like any other, as JSON.parse makes it.
    Object.defineProperty(order, key, { value: starts.length, enumerable: true, writable: true, configurable: true })
    starts.push(i)
    // A small version's document is checked by the JSON.parse that reads it (`isDeferred`); any other value here.
    const end = bytes[i] === LBRACE ? valueEnd(bytes, i) : skipValue(bytes, i)
    if (!isDeferred(bytes, i, end)) skipValue(bytes, i)
    i = end
    ends.push(i)
    i = skipWs(bytes, i)
    if (bytes[i] === RBRACE) break
    if (bytes[i] !== COMMA) throw unexpected(bytes, i)
    i = skipWs(bytes, i + 1)
  }
  const keys = Object.keys(order)
  const last = keys.map((key) => order[key]!)
  return { keys, starts: last.map((n) => starts[n]!), ends: last.map((n) => ends[n]!), end: i + 1, members: starts.length }
}

/** A version's document parsed whole by versionsOf, whose JSON.parse checks it: left unchecked until then. */
function isDeferred (bytes: Buffer, start: number, end: number): boolean {
  return bytes[start] === LBRACE && end - start <= WHOLE_VERSION_SIZE
}

function checkDeferred (bytes: Buffer, slices: VersionSlices): void {
  slices.starts.forEach((start, n) => { if (isDeferred(bytes, start, slices.ends[n]!)) skipValue(bytes, start) })
}

/**
 * Each version's document, parsed as it is reached: whole when small, else only the members
 * trimPackument reads (a value that is not an object as `undefined`).
 */
function * versionsOf (bytes: Buffer, slices: VersionSlices): Generator<readonly [string, unknown]> {
  for (let n = 0; n < slices.keys.length; n++) {
    const start = slices.starts[n]!
    const end = slices.ends[n]!
    if (bytes[start] !== LBRACE) {
      yield [slices.keys[n]!, undefined]
      continue
    }
    // One JSON.parse is quicker than one a member (an install-v1 version is mostly kept).
    if (isDeferred(bytes, start, end)) {
      yield [slices.keys[n]!, JSON.parse(bytes.toString('utf8', start, end))]
      continue
    }
    const version: Record<string, unknown> = {}
    for (const member of membersOf(bytes, start)) {
      if (VERSION_FIELDS.has(member.key)) version[member.key] = JSON.parse(bytes.toString('utf8', member.start, member.end))
    }
    yield [slices.keys[n]!, version]
  }
}

/**
 * A record as JSON.parse would give it, with any value that is not a string as `null` (never
 * parsed): trimPackument keeps only the strings of `dist-tags` and `time`. Not an object: `null`.
 */
function stringsOf (bytes: Buffer, slice: Slice): Record<string, string | null> | null {
  if (bytes[slice.start] !== LBRACE) return null
  const record: Record<string, string | null> = {}
  for (const member of membersOf(bytes, slice.start)) {
    const value = bytes[member.start] === QUOTE ? stringAt(bytes, member.start, member.end) : null
    Object.defineProperty(record, member.key, { value, enumerable: true, writable: true, configurable: true })
  }
  return record
}

interface Member { key: string, start: number, end: number }

/** The members of the object at `i`, already checked: found again without looking inside strings. */
function * membersOf (bytes: Buffer, i: number): Generator<Member> {
  i = skipWs(bytes, i + 1)
  if (bytes[i] === RBRACE) return
  for (;;) {
    const keyEnd = stringEnd(bytes, i)
    const key = keyOf(bytes, i, keyEnd)
    const start = skipWs(bytes, skipWs(bytes, keyEnd) + 1)
    const end = valueEnd(bytes, start)
    yield { key, start, end }
    i = skipWs(bytes, end)
    if (bytes[i] === RBRACE) return
    i = skipWs(bytes, i + 1)
  }
}

/** A key (or any string token, `start` at its opening quote): decoded as JSON.parse would. */
function keyOf (bytes: Buffer, start: number, end: number): string {
  return stringAt(bytes, start, end)
}

function stringAt (bytes: Buffer, start: number, end: number): string {
  for (let i = start + 1; i < end - 1; i++) {
    if (bytes[i] === BACKSLASH) return JSON.parse(bytes.toString('utf8', start, end)) as string
  }
  return bytes.toString('utf8', start + 1, end - 1)
}

function skipWs (bytes: Buffer, i: number): number {
  for (;;) {
    const c = bytes[i]
    if (c !== SPACE && c !== LF && c !== CR && c !== TAB) return i
    i++
  }
}

function skipColon (bytes: Buffer, i: number): number {
  i = skipWs(bytes, i)
  if (bytes[i] !== COLON) throw unexpected(bytes, i)
  return skipWs(bytes, i + 1)
}

function expectEnd (bytes: Buffer, i: number): void {
  i = skipWs(bytes, i)
  if (i !== bytes.length) throw unexpected(bytes, i)
}

const IN_OBJECT = 1
const IN_ARRAY = 2

/**
 * Checks the JSON value at `i` as JSON.parse would and returns where it ends. Iterative: a deeply
 * nested document (which JSON.parse takes) does not overflow the stack.
 */
function skipValue (bytes: Buffer, i: number): number {
  const open: number[] = []
  for (;;) {
    // A value.
    const c = bytes[i]
    if (c === LBRACE) {
      i = skipWs(bytes, i + 1)
      if (bytes[i] === RBRACE) {
        i++
      } else {
        open.push(IN_OBJECT)
        i = skipColon(bytes, skipString(bytes, i))
        continue
      }
    } else if (c === LBRACKET) {
      i = skipWs(bytes, i + 1)
      if (bytes[i] === RBRACKET) {
        i++
      } else {
        open.push(IN_ARRAY)
        continue
      }
    } else if (c === QUOTE) {
      i = skipString(bytes, i)
    } else {
      i = skipScalar(bytes, i)
    }
    // What follows it: the next member or element, or the end of its containers.
    for (;;) {
      if (open.length === 0) return i
      i = skipWs(bytes, i)
      const next = bytes[i]
      const inside = open[open.length - 1]
      if (next === COMMA) {
        i = skipWs(bytes, i + 1)
        if (inside === IN_OBJECT) i = skipColon(bytes, skipString(bytes, i))
        break
      }
      if (next !== (inside === IN_OBJECT ? RBRACE : RBRACKET)) throw unexpected(bytes, i)
      open.pop()
      i++
    }
  }
}

/** Checks the string at `i` (no raw control character, only JSON's escapes) and returns where it ends. */
function skipString (bytes: Buffer, i: number): number {
  if (bytes[i] !== QUOTE) throw unexpected(bytes, i)
  i++
  for (;;) {
    const c = bytes[i]
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) {
      const escaped = bytes[i + 1]
      if (escaped === 0x75) { // u
        for (let k = i + 2; k < i + 6; k++) if (!isHex(bytes[k])) throw unexpected(bytes, k)
        i += 6
      } else if (escaped === QUOTE || escaped === BACKSLASH || escaped === SLASH || escaped === 0x62 || escaped === 0x66 ||
        escaped === 0x6e || escaped === 0x72 || escaped === 0x74) { // b f n r t
        i += 2
      } else {
        throw unexpected(bytes, i + 1)
      }
    } else if (c === undefined || c < SPACE) {
      throw unexpected(bytes, i)
    } else {
      i++
    }
  }
}

function isHex (c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))
}

/** Checks a number, `true`, `false` or `null` at `i` and returns where it ends. */
function skipScalar (bytes: Buffer, i: number): number {
  for (const literal of LITERALS) {
    if (bytes[i] === literal[0]) {
      for (let k = 1; k < literal.length; k++) if (bytes[i + k] !== literal[k]) throw unexpected(bytes, i + k)
      return i + literal.length
    }
  }
  if (bytes[i] === MINUS) i++
  if (bytes[i] === ZERO) {
    i++
  } else {
    if (!isDigit(bytes[i])) throw unexpected(bytes, i)
    while (isDigit(bytes[i])) i++
  }
  if (bytes[i] === DOT) {
    i++
    if (!isDigit(bytes[i])) throw unexpected(bytes, i)
    while (isDigit(bytes[i])) i++
  }
  if (bytes[i] === LOWER_E || bytes[i] === UPPER_E) {
    i++
    if (bytes[i] === PLUS || bytes[i] === MINUS) i++
    if (!isDigit(bytes[i])) throw unexpected(bytes, i)
    while (isDigit(bytes[i])) i++
  }
  return i
}

const LITERALS = ['true', 'false', 'null'].map((word) => [...Buffer.from(word)])

function isDigit (c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE
}

/** Where the string at `i` ends: its closing quote is the first one after an even run of backslashes. */
function stringEnd (bytes: Buffer, i: number): number {
  let quote = i
  for (;;) {
    quote = bytes.indexOf(QUOTE, quote + 1)
    if (quote === -1) throw unexpected(bytes, bytes.length)
    let backslashes = 0
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote + 1
  }
}

/**
 * Where the value at `i` ends, found by its brackets and its strings' quotes alone: the value is
 * not checked (a value that is not JSON may end elsewhere than JSON.parse would say), only that it
 * ends before the document does.
 */
function valueEnd (bytes: Buffer, i: number): number {
  const first = bytes[i]
  if (first === QUOTE) return stringEnd(bytes, i)
  if (first !== LBRACE && first !== LBRACKET) return skipScalar(bytes, i)
  let depth = 0
  for (;;) {
    const c = bytes[i]
    if (c === undefined) throw unexpected(bytes, i)
    if (c === QUOTE) {
      i = stringEnd(bytes, i)
      continue
    }
    if (c === LBRACE || c === LBRACKET) {
      depth++
    } else if ((c === RBRACE || c === RBRACKET) && --depth === 0) {
      return i + 1
    }
    i++
  }
}

function unexpected (bytes: Buffer, i: number): SyntaxError {
  const c = bytes[i]
  if (c === undefined) return new SyntaxError(`Unexpected end of the JSON document at byte ${i}`)
  const what = c >= SPACE && c < 0x7f ? `"${String.fromCharCode(c)}"` : `byte 0x${c.toString(16).padStart(2, '0')}`
  return new SyntaxError(`Unexpected ${what} at byte ${i} of the JSON document`)
}
