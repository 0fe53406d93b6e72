import { constants } from 'node:buffer'

import { LodeError } from '@lode/core.error'

/**
 * Text put together piece by piece, as long as one string can be: a tree printed whole grows with
 * the square of its depth (each line indented by its level), and a chain is as deep as a registry
 * makes it. Past the limit, `ERR_LODE_OUTPUT_TOO_LARGE` naming what was printed.
 */
export interface OutputText {
  push: (piece: string) => void
  text: () => string
}

export function outputText (what: string, limit = constants.MAX_STRING_LENGTH): OutputText {
  const pieces: string[] = []
  let length = 0
  return {
    push: (piece) => {
      length += piece.length
      if (length > limit) {
        throw new LodeError('OUTPUT_TOO_LARGE', `${what} is longer than lode can print (${limit} characters, the longest string Node.js holds): the dependency tree is too deep to print whole.`, {
          hint: 'Print fewer levels (--depth), or a line per package or path (--parseable).',
        })
      }
      pieces.push(piece)
    },
    text: () => pieces.join(''),
  }
}

/**
 * `JSON.stringify(value, null, 2)` of plain data (objects, arrays, strings, numbers, booleans,
 * null; undefined properties left out, undefined items `null`), on an explicit stack: V8's own
 * stops between 4,000 and 5,000 levels of nesting.
 */
export function stringifyJson (value: unknown, what: string, limit?: number): string {
  const out = outputText(what, limit)
  type Task = string | { value: unknown, indent: string }
  const pending: Task[] = [{ value, indent: '' }]
  for (let task = pending.pop(); task !== undefined; task = pending.pop()) {
    if (typeof task === 'string') {
      out.push(task)
      continue
    }
    const { value, indent } = task
    if (value === null || typeof value !== 'object') {
      out.push(JSON.stringify(value) ?? 'null')
      continue
    }
    const inner = `${indent}  `
    const tasks: Task[] = []
    if (Array.isArray(value)) {
      if (value.length === 0) {
        out.push('[]')
        continue
      }
      tasks.push('[\n')
      value.forEach((item: unknown, index) => { tasks.push(inner, { value: item, indent: inner }, index < value.length - 1 ? ',\n' : '\n') })
      tasks.push(`${indent}]`)
    } else {
      const entries = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== 'function' && typeof item !== 'symbol')
      if (entries.length === 0) {
        out.push('{}')
        continue
      }
      tasks.push('{\n')
      entries.forEach(([key, item], index) => { tasks.push(`${inner}${JSON.stringify(key)}: `, { value: item, indent: inner }, index < entries.length - 1 ? ',\n' : '\n') })
      tasks.push(`${indent}}`)
    }
    for (let i = tasks.length - 1; i >= 0; i--) pending.push(tasks[i]!)
  }
  return out.text()
}
