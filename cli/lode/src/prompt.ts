// The terminal prompts lode asks (approve-builds, patch): a checkbox list, a choice and a yes/no question,
// drawn as pnpm's prompts draw them (❯ for the cursor, ● and ○ for the boxes). Only on a
// terminal: the caller checks `isTTY` first. Ctrl-C cancels (the answer is undefined). Choices
// are package names and versions: drawn printable, the redrawing sequences as they are.

import { printable } from '@lode/core.error'

import { rawOutput } from './terminal.js'

const readline = process.getBuiltinModule('node:readline')

/** A terminal's input: a readable stream that can be put in raw mode. */
export interface PromptInput extends NodeJS.ReadableStream {
  isTTY?: boolean
  setRawMode?: (mode: boolean) => unknown
}

interface Key { name?: string, ctrl?: boolean, sequence?: string }

/** Listens for keypresses until `onKey` returns a value (or undefined on Ctrl-C); the input is left as it was. */
async function readKeys<T> (
  input: PromptInput,
  onKey: (text: string | undefined, key: Key) => { done: T } | undefined
): Promise<T | undefined> {
  readline.emitKeypressEvents(input)
  input.setRawMode?.(true)
  input.resume()
  return await new Promise((resolve) => {
    const finish = (value: T | undefined): void => {
      input.removeListener('keypress', listener)
      input.setRawMode?.(false)
      input.pause()
      resolve(value)
    }
    const listener = (text: string | undefined, key: Key | undefined): void => {
      const pressed: Key = key ?? {}
      if (pressed.ctrl === true && pressed.name === 'c') {
        finish(undefined)
        return
      }
      const outcome = onKey(text, pressed)
      if (outcome !== undefined) finish(outcome.done)
    }
    input.on('keypress', listener)
  })
}

/**
 * A list to check: up/down (or k/j) move, space checks, `a` checks all (or none when all are),
 * `i` inverts, enter answers the checked ones (in the list's order).
 */
export async function checkbox (
  opts: { message: string, choices: readonly string[], input: PromptInput, output: NodeJS.WritableStream }
): Promise<string[] | undefined> {
  const { choices } = opts
  const output = rawOutput(opts.output)
  const message = printable(opts.message, { newlines: true })
  const checked = new Set<number>()
  let cursor = 0
  let drawn = 0
  const draw = (): void => {
    const lines = [
      `? ${message}`,
      ...choices.map((choice, i) => `${i === cursor ? '❯' : ' '}${checked.has(i) ? '●' : '○'} ${printable(choice)}`),
    ]
    // Back to the first line of the last drawing, cleared to the end.
    if (drawn > 0) output.write(`\x1b[${drawn}A\r\x1b[J`)
    output.write(`${lines.join('\n')}\n`)
    drawn = lines.length
  }
  draw()
  const answer = await readKeys<string[]>(opts.input, (text, key) => {
    if (key.name === 'return' || key.name === 'enter') return { done: choices.filter((_, i) => checked.has(i)) }
    if (key.name === 'up' || text === 'k') cursor = (cursor + choices.length - 1) % choices.length
    else if (key.name === 'down' || text === 'j') cursor = (cursor + 1) % choices.length
    else if (key.name === 'space' || text === ' ') {
      if (checked.has(cursor)) checked.delete(cursor)
      else checked.add(cursor)
    } else if (text === 'a') {
      const all = checked.size === choices.length
      checked.clear()
      if (!all) choices.forEach((_, i) => checked.add(i))
    } else if (text === 'i') {
      choices.forEach((_, i) => { if (checked.has(i)) checked.delete(i); else checked.add(i) })
    } else return undefined
    draw()
    return undefined
  })
  output.write(`\x1b[${drawn}A\r\x1b[J? ${message} ${printable(answer?.join(', ') ?? '')}\n`)
  return answer
}

/** One of a list: up/down (or k/j) move, enter answers the highlighted choice's value. */
export async function select (
  opts: { message: string, choices: ReadonlyArray<string | SelectChoice>, input: PromptInput, output: NodeJS.WritableStream }
): Promise<string | undefined> {
  const choices = opts.choices.map((choice): SelectChoice => typeof choice === 'string' ? { name: choice, value: choice } : choice)
  const output = rawOutput(opts.output)
  const message = printable(opts.message, { newlines: true })
  let cursor = 0
  let drawn = 0
  const draw = (): void => {
    const lines = [`? ${message}`, ...choices.map((choice, i) => `${i === cursor ? '❯' : ' '} ${printable(choice.name)}`)]
    // The highlighted choice's description below the list, as inquirer shows it.
    const description = choices[cursor]!.description
    if (description !== undefined) lines.push(printable(description))
    if (drawn > 0) output.write(`\x1b[${drawn}A\r\x1b[J`)
    output.write(`${lines.join('\n')}\n`)
    drawn = lines.length
  }
  draw()
  const answer = await readKeys<SelectChoice>(opts.input, (text, key) => {
    if (key.name === 'return' || key.name === 'enter') return { done: choices[cursor]! }
    if (key.name === 'up' || text === 'k') cursor = (cursor + choices.length - 1) % choices.length
    else if (key.name === 'down' || text === 'j') cursor = (cursor + 1) % choices.length
    else return undefined
    draw()
    return undefined
  })
  output.write(`\x1b[${drawn}A\r\x1b[J? ${message} ${printable(answer?.name ?? '')}\n`)
  return answer?.value
}

/** A choice shown by its name, answered by its value (with a line about it while it is highlighted). */
export interface SelectChoice {
  name: string
  value: string
  description?: string | undefined
}

/** A yes/no question: `y` or `n`, or enter for the default. */
export async function confirm (
  opts: { message: string, default: boolean, input: PromptInput, output: NodeJS.WritableStream }
): Promise<boolean | undefined> {
  opts.output.write(`? ${printable(opts.message, { newlines: true })} ${opts.default ? '(Y/n)' : '(y/N)'} `)
  const answer = await readKeys<boolean>(opts.input, (text, key) => {
    if (text === 'y' || text === 'Y') return { done: true }
    if (text === 'n' || text === 'N') return { done: false }
    if (key.name === 'return' || key.name === 'enter') return { done: opts.default }
    return undefined
  })
  opts.output.write(`${answer === undefined ? '' : answer ? 'yes' : 'no'}\n`)
  return answer
}

/**
 * A line of text: typed characters, backspace, enter answers it. With `mask` (a password) nothing
 * typed is drawn, as pnpm's prompt draws none of it.
 */
export async function input (
  opts: { message: string, mask?: boolean, input: PromptInput, output: NodeJS.WritableStream }
): Promise<string | undefined> {
  const output = rawOutput(opts.output)
  const message = printable(opts.message, { newlines: true })
  let value = ''
  const shown = (): string => opts.mask === true ? '' : printable(value)
  output.write(`? ${message} `)
  const answer = await readKeys<string>(opts.input, (text, key) => {
    if (key.name === 'return' || key.name === 'enter') return { done: value }
    if (key.name === 'backspace') {
      if (value === '') return undefined
      value = [...value].slice(0, -1).join('')
    } else if (text !== undefined && key.ctrl !== true && [...text].every((char) => char >= ' ' && char !== '\x7f')) {
      value += text
    } else return undefined
    output.write(`\r\x1b[K? ${message} ${shown()}`)
    return undefined
  })
  output.write(`\r\x1b[K? ${message} ${answer === undefined ? '' : shown()}\n`)
  return answer
}
