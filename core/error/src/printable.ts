// What a terminal acts on instead of showing: C0 and C1 controls (ESC starts a cursor move, a line
// erase or an OSC 52 clipboard write; CR returns over what was written; 0x9B is a one-byte CSI),
// DEL, the bidirectional overrides and isolates that reorder the text after them (U+202E), and
// Unicode's line and paragraph separators. A tab is shown as a tab.
// eslint-disable-next-line no-control-regex -- control characters are what these find
const ONE_LINE = /[\0-\x08\n\x0b-\x1f\x7f-\x9f\u2028\u2029\p{Bidi_Control}]/gu
// The same, the newline (LF) aside.
// eslint-disable-next-line no-control-regex -- as above
const LINES = /[\0-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\p{Bidi_Control}]/gu

/**
 * `text` safe to write to a terminal or a log: each character a terminal would act on rather than
 * show, written as JSON writes it (`\u001b`, `\r`, `\u202e`), so the text reads as it was sent
 * and JSON stays JSON. Every other character (letters of any script, emoji) is kept. A newline
 * is escaped too unless `newlines` allows lines (then `\n` is kept; a carriage return never is,
 * `\r\n` shows as `\r` and a newline): a one-line field (a version, a range, a name) cannot start a
 * line of its own that looks like lode's.
 */
export function printable (text: string, opts: { newlines?: boolean } = {}): string {
  // The common case, nothing to escape, is one scan and no copy.
  return opts.newlines === true
    ? text.replace(LINES, escape)
    : text.replace(ONE_LINE, escape)
}

const SHORT: Readonly<Record<string, string>> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r' }

function escape (char: string): string {
  return SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
}
