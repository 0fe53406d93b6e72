import assert from 'node:assert/strict'
import { test } from 'node:test'

import { printable } from '@lode/core.error'

// Every character printable must escape: C0 but tab, DEL, C1, the separators, the bidi controls.
const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, i) => i).filter((code) => code !== 0x09),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x2028, 0x2029, 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
].map((code) => String.fromCharCode(code))

/** Whether `text` holds a character a terminal acts on (newlines allowed or not). */
function hasControl (text: string, newlines: boolean): boolean {
  return [...text].some((char) => CONTROLS.includes(char) && !(newlines && char === '\n'))
}

test('printable: ESC, OSC 52, CR, BEL, C1 and U+202E are written as JSON escapes a terminal shows', () => {
  assert.equal(printable('1.0.0\x1b]52;c;cHduZWQ=\x07'), '1.0.0\\u001b]52;c;cHduZWQ=\\u0007')
  assert.equal(printable('a\x1b[2K\rb'), 'a\\u001b[2K\\rb')
  assert.equal(printable('x\x9b31my'), 'x\\u009b31my')
  assert.equal(printable('gpj.\u202eexe'), 'gpj.\\u202eexe')
  assert.equal(printable('\0\b\f\x7f'), '\\u0000\\b\\f\\u007f')
  for (const char of CONTROLS) assert.ok(!hasControl(printable(`a${char}b`), false), JSON.stringify(char))
  for (const char of CONTROLS) assert.ok(!hasControl(printable(`a${char}b`, { newlines: true }), true), JSON.stringify(char))
})

test('printable: ordinary unicode and tabs are kept; newlines only where lines are allowed', () => {
  const text = 'café ✕ 日本語 👩‍👩‍👧 —\tend'
  assert.equal(printable(text), text)
  assert.equal(printable('one\ntwo'), 'one\\ntwo')
  assert.equal(printable('one\ntwo', { newlines: true }), 'one\ntwo')
  // A carriage return returns over the line: escaped either way, before a newline too.
  assert.equal(printable('shown\rhidden\r\n', { newlines: true }), 'shown\\rhidden\\r\n')
  assert.equal(printable('end\r', { newlines: true }), 'end\\r')
})

test('printable: JSON stays JSON, with the same values', () => {
  const value = { message: 'a\x9b\u202e\\\u2028z', n: 1 }
  const json = printable(JSON.stringify(value), { newlines: true })
  assert.ok(!hasControl(json, false), json)
  assert.deepEqual(JSON.parse(json), value)
})
