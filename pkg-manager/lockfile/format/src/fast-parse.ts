/**
 * A parser for the YAML that pnpm (and lode) write as `pnpm-lock.yaml`: block maps indented by two
 * spaces, sequences of scalars (`- item`), plain and quoted scalars, and one-line flow maps
 * and sequences
 * (`{integrity: sha512-…}`, `[x64]`). It is about ten times faster than a general YAML parser on a
 * lockfile of 1,300 packages (the lockfile is read on every install that is not a no-op), and
 * returns `undefined` for anything outside that subset (comments, block sequences, multi-line
 * scalars, anchors, maps inside sequences, several documents, duplicate keys…), which the caller
 * then reads with the general parser. For text inside the subset the result equals the general
 * parser's (YAML 1.2 core schema).
 */
export function fastParseLockfile (text: string): Record<string, unknown> | undefined {
  try {
    // A byte order mark starts the text for YAML readers, as for editors that write one.
    return parseBlock(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch (err) {
    if (err === OUTSIDE) return undefined
    throw err
  }
}

/** Thrown (and caught above) when the text leaves the subset. */
const OUTSIDE = Symbol('outside the lockfile subset')

function outside (): never {
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  throw OUTSIDE
}

interface Frame {
  indent: number
  map: Record<string, unknown>
  /** Set for a block sequence (pnpm writes `transitivePeerDependencies` so): its `- item` lines. */
  list?: unknown[]
}

// Left to the general parser: a tab (indentation or separation in YAML, never in pnpm's files), a
// CR that is not part of a CRLF (a line break to YAML), and a byte order mark after the start.
const OUTSIDE_CHARACTERS = /[\t\uFEFF]|\r(?!\n)/
// Characters that start something other than a plain key or scalar on a line (or are reserved).
const LINE_INDICATORS = '#%?&*!|>@`,[]{}:'
// The YAML limit on an implicit key (`key: value`): the `:` at most 1024 characters after its start.
const MAX_IMPLICIT_KEY = 1024
// Deeper nesting goes to the general parser, whose caller refuses it: flow collections nest by
// recursion here, and what reads the result recurses too.
const MAX_DEPTH = 64

/** Removes YAML's white space (spaces only: tabs are outside the subset) at both ends. */
function trimSpaces (text: string): string {
  let start = 0
  let end = text.length
  while (text.charCodeAt(start) === 32) start++
  while (end > start && text.charCodeAt(end - 1) === 32) end--
  return start === 0 && end === text.length ? text : text.slice(start, end)
}

function parseBlock (text: string): Record<string, unknown> {
  if (OUTSIDE_CHARACTERS.test(text)) outside()
  const root: Record<string, unknown> = {}
  const stack: Frame[] = [{ indent: -1, map: root }]
  // The key whose value is a nested block, while its first line has not been seen.
  let pending: { map: Record<string, unknown>, key: string, indent: number } | undefined
  let start = 0
  while (start < text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end)
    start = end + 1
    let indent = 0
    while (line.charCodeAt(indent) === 32) indent++
    if (indent === line.length) {
      // A line of spaces only: the yaml library counts a run of them into the next key's length
      // (and refuses the key past 1024 characters). pnpm writes none.
      if (indent > 0) outside()
      continue
    }
    const first = line[indent]!
    const item = first === '-' && line[indent + 1] === ' '
    if (LINE_INDICATORS.includes(first) || (first === '-' && !item)) outside()
    if (pending !== undefined) {
      if (indent > pending.indent) {
        if (item) {
          const list: unknown[] = []
          setKey(pending.map, pending.key, list)
          if (stack.length > MAX_DEPTH) outside()
          stack.push({ indent, map: pending.map, list })
        } else {
          const map: Record<string, unknown> = {}
          setKey(pending.map, pending.key, map)
          if (stack.length > MAX_DEPTH) outside()
          stack.push({ indent, map })
        }
      } else {
        setKey(pending.map, pending.key, null)
      }
      pending = undefined
    }
    while (stack.length > 1 && indent < stack.at(-1)!.indent) stack.pop()
    const frame = stack.at(-1)!
    if (stack.length === 1 ? indent !== 0 : indent !== frame.indent) outside()
    if (frame.list !== undefined) {
      // Only scalar items: `- a: b` (a map in the sequence) is left to the general parser.
      if (!item) outside()
      frame.list.push(parseValue(trimSpaces(line.slice(indent + 2))))
      continue
    }
    if (item) outside()
    const { key, rest } = splitKey(line, indent)
    if (rest === '') {
      pending = { map: frame.map, key, indent }
    } else {
      setKey(frame.map, key, parseValue(rest))
    }
  }
  if (pending !== undefined) setKey(pending.map, pending.key, null)
  return root
}

function setKey (map: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__' || Object.hasOwn(map, key)) outside()
  map[key] = value
}

/** `key: value` or `key:`; the key plain or single-quoted. */
function splitKey (line: string, indent: number): { key: string, rest: string } {
  if (line[indent] === "'" || line[indent] === '"') {
    const { value, next } = line[indent] === "'" ? singleQuoted(line, indent) : doubleQuoted(line, indent)
    if (line[next] !== ':' || next - indent >= MAX_IMPLICIT_KEY) outside()
    if (next + 1 === line.length) return { key: value, rest: '' }
    if (line[next + 1] !== ' ') outside()
    return { key: value, rest: trimSpaces(line.slice(next + 2)) }
  }
  let colon = line.indexOf(': ', indent)
  let rest: string
  if (colon === -1) {
    if (!line.endsWith(':')) outside()
    colon = line.length - 1
    rest = ''
  } else {
    rest = trimSpaces(line.slice(colon + 2))
  }
  const key = line.slice(indent, colon)
  if (key.endsWith(' ') || key.includes(' #') || colon - indent >= MAX_IMPLICIT_KEY) outside()
  return { key: plainScalar(key, true) as string, rest }
}

/** A single-quoted scalar starting at `from`: its value and the index after the closing quote. */
function singleQuoted (text: string, from: number): { value: string, next: number } {
  let value = ''
  let i = from + 1
  for (;;) {
    const close = text.indexOf("'", i)
    if (close === -1) outside()
    value += text.slice(i, close)
    if (text[close + 1] === "'") {
      value += "'"
      i = close + 2
    } else {
      return { value, next: close + 1 }
    }
  }
}

const ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
}
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 }

/** A double-quoted scalar starting at `from` (YAML's escapes; js-yaml writes `\_` for a no-break space). */
function doubleQuoted (text: string, from: number): { value: string, next: number } {
  let value = ''
  let i = from + 1
  for (;;) {
    const c = text[i]
    if (c === undefined) outside()
    if (c === '"') return { value, next: i + 1 }
    if (c !== '\\') {
      value += c
      i++
      continue
    }
    const e = text[i + 1]!
    const digits = HEX_DIGITS[e]
    if (digits !== undefined) {
      const hex = text.slice(i + 2, i + 2 + digits)
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) outside()
      const codePoint = parseInt(hex, 16)
      // `\UFFFFFFFF` is no character (String.fromCodePoint throws a RangeError): YAML refuses it.
      if (codePoint > 0x10ffff) outside()
      value += String.fromCodePoint(codePoint)
      i += 2 + digits
    } else {
      const escaped = ESCAPES[e]
      if (escaped === undefined) outside()
      value += escaped
      i += 2
    }
  }
}

function parseValue (rest: string): unknown {
  const first = rest[0]
  if (first === "'" || first === '"') {
    const { value, next } = first === "'" ? singleQuoted(rest, 0) : doubleQuoted(rest, 0)
    if (next !== rest.length) outside()
    return value
  }
  if (first === '{' || first === '[') {
    const { value, next } = flow(rest, 0, 0)
    if (next !== rest.length) outside()
    return value
  }
  if ('|>&*!%@`?:,]}#'.includes(first!) || (first === '-' && (rest.length === 1 || rest[1] === ' '))) outside()
  // `a: b: c` and `a: b:` are maps inside a map's value to YAML, which it refuses on one line.
  if (rest.includes(' #') || rest.includes(': ') || rest.endsWith(':')) outside()
  return plainScalar(rest, false)
}

const DECIMAL = /^[-+]?[0-9]+$/
const INT = /^0o[0-7]+$|^0x[0-9a-fA-F]+$/
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/

/** A plain scalar as the core schema reads it: booleans, null and decimal integers (`peersSuffixMaxLength: 100`) resolved; other numbers are left to the general parser. */
function plainScalar (text: string, isKey: boolean): unknown {
  if (DECIMAL.test(text)) return isKey ? outside() : Number(text)
  if (text === '' || INT.test(text) || FLOAT.test(text)) outside()
  if (/^(?:null|Null|NULL|~)$/.test(text)) return isKey ? outside() : null
  if (/^(?:true|True|TRUE)$/.test(text)) return isKey ? outside() : true
  if (/^(?:false|False|FALSE)$/.test(text)) return isKey ? outside() : false
  return text
}

/** Whether a plain scalar may start so in a flow collection: not with an indicator (`- a`, `? a`, `*a`, `>`…). */
function plainStart (raw: string): boolean {
  return raw !== '' && !'-?:,[]{}#&*!|>\'"%@`'.includes(raw[0]!)
}

/** A one-line flow map or sequence starting at `from` (its items plain or quoted, maps nestable), `depth` inside others. */
function flow (text: string, from: number, depth: number): { value: unknown, next: number } {
  if (depth > MAX_DEPTH) outside()
  const isMap = text[from] === '{'
  const close = isMap ? '}' : ']'
  const map: Record<string, unknown> = {}
  const list: unknown[] = []
  let i = from + 1
  const skipSpaces = (): void => { while (text[i] === ' ') i++ }
  skipSpaces()
  if (text[i] === close) return { value: isMap ? map : list, next: i + 1 }
  for (;;) {
    skipSpaces()
    let key: string | undefined
    if (isMap) {
      const keyStart = i
      if (text[i] === "'" || text[i] === '"') {
        const quoted = text[i] === "'" ? singleQuoted(text, i) : doubleQuoted(text, i)
        key = quoted.value
        i = quoted.next
        if (text[i] !== ':') outside()
      } else {
        const colon = text.indexOf(': ', i)
        if (colon === -1) outside()
        const raw = trimSpaces(text.slice(i, colon))
        if (/[,{}[\]:#]/.test(raw) || !plainStart(raw)) outside()
        key = plainScalar(raw, true) as string
        i = colon
      }
      if (i - keyStart >= MAX_IMPLICIT_KEY) outside()
      i++
      skipSpaces()
    }
    let item: unknown
    if (text[i] === "'" || text[i] === '"') {
      const quoted = text[i] === "'" ? singleQuoted(text, i) : doubleQuoted(text, i)
      item = quoted.value
      i = quoted.next
    } else if (text[i] === '{' || text[i] === '[') {
      const nested = flow(text, i, depth + 1)
      item = nested.value
      i = nested.next
    } else {
      let j = i
      while (j < text.length && text[j] !== ',' && text[j] !== close) {
        if (text[j] === '{' || text[j] === '[' || text[j] === ']' || text[j] === '}' || text[j] === '"' || text[j] === '#') outside()
        j++
      }
      const raw = trimSpaces(text.slice(i, j))
      if (raw.includes(': ') || raw.endsWith(':') || !plainStart(raw)) outside()
      item = plainScalar(raw, false)
      i = j
    }
    if (isMap) setKey(map, key!, item)
    else list.push(item)
    skipSpaces()
    if (text[i] === ',') {
      i++
      continue
    }
    if (text[i] === close) return { value: isMap ? map : list, next: i + 1 }
    outside()
  }
}
