/**
 * A YAML writer that gives the same bytes as pnpm's lockfile writer (js-yaml 4 with `lineWidth: -1`,
 * `noCompatMode`, `noRefs`, blank lines between the entries of the root, `importers`, `packages`
 * and `snapshots`). Written here rather than borrowed because the lockfile must match pnpm's byte
 * for byte, and general YAML libraries quote and wrap differently.
 *
 * Flow style is chosen by key name, as pnpm does: maps and lists under `engines`, `cpu`, `os`,
 * `libc`, and `resolution` maps (except `variations`/`binary` ones), at any depth.
 */

type Value = string | number | boolean | null | undefined | Value[] | { [key: string]: Value }

const FLOW_KEYS = new Set(['engines', 'cpu', 'os', 'libc'])
const BLANK_LINE_KEYS = new Set(['packages', 'importers', 'snapshots'])

export function emitYaml (root: Record<string, unknown>): string {
  return writeBlockMap(root as Record<string, Value>, 0, true, true) + '\n'
}

function isFlowKey (key: string, value: Value): boolean {
  if (FLOW_KEYS.has(key)) return true
  if (key !== 'resolution' || typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return value['type'] !== 'variations' && value['type'] !== 'binary'
}

function writeBlockMap (map: Record<string, Value>, level: number, blankLines: boolean, isRoot: boolean): string {
  let out = ''
  const indent = '  '.repeat(level)
  for (const [key, value] of Object.entries(map)) {
    if (value === undefined) continue
    // Entries are separated by a newline; in a blank-line map each entry also gets an empty line
    // before it, except the root's first.
    if (out !== '') out += '\n'
    if (blankLines && !(isRoot && out === '')) out += '\n'
    const keyText = scalar(key, false, true)
    const explicit = keyText.length > 1024
    out += indent + (explicit ? `? ${keyText}\n${indent}:` : `${keyText}:`)
    out += writeValueAfterKey(key, value, level)
  }
  return out
}

function writeValueAfterKey (key: string, value: Value, level: number): string {
  if (value === null || typeof value !== 'object') {
    const text = scalar(value, false, false)
    return text.startsWith('|') ? ` ${literalBlock(value as string, level + 1)}` : ` ${text}`
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return ' []'
    if (isFlowKey(key, value)) return ` ${writeFlow(value)}`
    return '\n' + value.map((item) => `${'  '.repeat(level + 1)}- ${writeSequenceItem(item, level + 1)}`).join('\n')
  }
  if (Object.values(value).every((v) => v === undefined)) return ' {}'
  if (isFlowKey(key, value)) return ` ${writeFlow(value)}`
  return '\n' + writeBlockMap(value, level + 1, BLANK_LINE_KEYS.has(key), false)
}

function writeSequenceItem (item: Value, level: number): string {
  if (item === null || typeof item !== 'object') {
    const text = scalar(item, false, false)
    return text.startsWith('|') ? literalBlock(item as string, level + 1) : text
  }
  if (Array.isArray(item)) return item.length === 0 ? '[]' : writeFlow(item)
  if (Object.values(item).every((v) => v === undefined)) return '{}'
  // A map inside a block list starts on the dash's line.
  return writeBlockMap(item, level + 1, false, false).trimStart()
}

function writeFlow (value: Value): string {
  if (value === null || typeof value !== 'object') return scalar(value, true, false)
  if (Array.isArray(value)) return `[${value.map((item) => writeFlow(item)).join(', ')}]`
  const entries = Object.entries(value).filter(([, v]) => v !== undefined)
  return `{${entries.map(([k, v]) => {
    const keyText = scalar(k, true, true)
    // As js-yaml: a key longer than YAML allows an implicit key to be is made explicit.
    return `${keyText.length > 1024 ? '? ' : ''}${keyText}: ${writeFlow(v)}`
  }).join(', ')}}`
}

// js-yaml's default schema: what a plain scalar would be read back as, if not a string.
const AMBIGUOUS = [
  /^(?:~|null|Null|NULL)$/,
  /^(?:true|True|TRUE|false|False|FALSE)$/,
  /^[-+]?(?:0b[0-1_]+|0x[0-9a-fA-F_]+|0o[0-7_]+|[0-9][0-9_]*)$/,
  /^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
  /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$/,
  /^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?$/,
  /^<<$/,
  // Not a number to js-yaml (so pnpm writes it plain), but a float to YAML 1.2's core schema, with
  // which lode reads: quoted, so that it reads back as the string it is.
  /^[-+]\.[0-9]+(?:[eE][-+]?[0-9]+)?$/,
]

function isPrintable (c: number): boolean {
  return (c >= 0x20 && c <= 0x7e) ||
    (c >= 0xa1 && c <= 0xd7ff && c !== 0x2028 && c !== 0x2029) ||
    (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff) ||
    (c >= 0x10000 && c <= 0x10ffff)
}

const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x09
const UNSAFE_FIRST = new Set([...'-?:,[]{}#&*!|=>\'"%@`'].map((ch) => ch.charCodeAt(0)))
const FLOW_INDICATORS = new Set([...',[]{}'].map((ch) => ch.charCodeAt(0)))
const COLON = 0x3a
const SHARP = 0x23

/** The scalar as js-yaml writes it: plain when it reads back as the same string, else quoted. */
function scalar (value: Value, inFlow: boolean, isKey: boolean): string {
  if (value === null) return 'null'
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'number') return numberText(value)
  const text = value as string
  if (text === '') return "''"
  let plain = true
  let lineBreak = false
  let printable = true
  let prev = -1
  const codePoints = [...text].map((ch) => ch.codePointAt(0)!)
  for (let i = 0; i < codePoints.length; i++) {
    const c = codePoints[i]!
    if (c === 0x0a) { lineBreak = true; plain = false; prev = c; continue }
    if (!isPrintable(c)) { printable = false; break }
    if (i === 0) {
      if (c === 0xfeff || isWhitespace(c) || UNSAFE_FIRST.has(c)) plain = false
    } else if (!plainSafe(c, prev, inFlow)) {
      plain = false
    }
    prev = c
  }
  const last = codePoints[codePoints.length - 1]!
  if (isWhitespace(last) || last === COLON) plain = false
  // A literal block keeping its trailing empty lines (`|+`) would take the blank line pnpm puts
  // between entries as one more, and the yaml library reads a line of spaces only at its end (or in
  // one of spaces only) as empty: such text is double-quoted.
  const keepsEmptyLines = text.endsWith('\n\n') || text === '\n'
  if (!printable || (lineBreak && (inFlow || isKey || keepsEmptyLines || /(?:^|\n) +(?:\n|$)/.test(text)))) return doubleQuoted(text)
  if (lineBreak) return '|'
  if (plain && !AMBIGUOUS.some((re) => re.test(text))) return text
  return `'${text.replaceAll("'", "''")}'`
}

function plainSafe (c: number, prev: number, inFlow: boolean): boolean {
  const nsOrSpace = isPrintable(c) && c !== 0xfeff && c !== 0x0a && c !== 0x0d
  const nsChar = nsOrSpace && !isWhitespace(c)
  const prevNs = prev !== -1 && isPrintable(prev) && !isWhitespace(prev) && prev !== 0x0a
  return ((inFlow ? nsOrSpace && !FLOW_INDICATORS.has(c) : nsOrSpace) && c !== SHARP && !(prev === COLON && !nsChar)) ||
    (prevNs && c === SHARP) ||
    (prev === COLON && nsChar)
}

/** A number as js-yaml writes it: `.nan`, `.inf`, `-0.0`, and `5.e-100` where JavaScript writes `5e-100`. */
function numberText (value: number): string {
  if (Number.isNaN(value)) return '.nan'
  if (value === Infinity) return '.inf'
  if (value === -Infinity) return '-.inf'
  if (Object.is(value, -0)) return '-0.0'
  const text = String(value)
  return /^[-+]?[0-9]+e/.test(text) && !Number.isInteger(value) ? text.replace('e', '.e') : text
}

/** js-yaml's literal block scalar, indented for content at `level`. */
function literalBlock (text: string, level: number): string {
  const indent = '  '.repeat(level)
  // The content's indentation is stated when its first line (after empty ones) starts with a space.
  const indicator = /^\n* /.test(text) ? String(2) : ''
  const chomp = text.endsWith('\n') ? (text.endsWith('\n\n') || text === '\n' ? '+' : '') : '-'
  const body = (chomp === '+' ? text.slice(0, -1) : chomp === '' ? text.slice(0, -1) : text)
    .split('\n').map((line) => line === '' ? '' : indent + line).join('\n')
  return `|${indicator}${chomp}\n${body}`
}

const ESCAPES: Record<number, string> = {
  0x00: '\\0', 0x07: '\\a', 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0b: '\\v', 0x0c: '\\f', 0x0d: '\\r',
  0x1b: '\\e', 0x22: '\\"', 0x5c: '\\\\', 0x85: '\\N', 0xa0: '\\_', 0x2028: '\\L', 0x2029: '\\P',
}

function doubleQuoted (text: string): string {
  let out = ''
  for (const ch of text) {
    const c = ch.codePointAt(0)!
    const escape = ESCAPES[c]
    if (escape !== undefined) out += escape
    else if (isPrintable(c)) out += ch
    else if (c <= 0xff) out += `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`
    else if (c <= 0xffff) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`
    else out += `\\U${c.toString(16).toUpperCase().padStart(8, '0')}`
  }
  return `"${out}"`
}
