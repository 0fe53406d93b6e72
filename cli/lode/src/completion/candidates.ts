import type { OptionSpecs } from '../args.js'
import type { CommandSpec } from '../commands/types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

// What `lode completion-server` offers for a command line cut at the cursor: commands, a command's
// options, the values an option lists, script names for run, dependency names for remove and
// update, and the workspace's project names after --filter.

export interface Candidate {
  name: string
  description?: string | undefined
}

export interface CompletionContext {
  commands: readonly CommandSpec[]
  /** The options every command takes a value for (`--filter`, `-C`): their value is not the command. */
  valueOptions: ReadonlySet<string>
  cwd: string
  /** The names of the workspace's projects (read only when --filter asks for them). */
  projectNames: () => Promise<string[]>
}

const SCRIPT_COMMANDS = new Set(['run', 'run-script'])
const DEPENDENCY_COMMANDS = new Set(['remove', 'rm', 'uninstall', 'un', 'uni', 'update', 'up', 'upgrade', 'why', 'outdated'])
const GLOBAL_OPTIONS: readonly Candidate[] = [
  { name: '--help', description: 'Print the help' },
  { name: '--version', description: 'Print lode\'s version' },
  { name: '--filter', description: 'Select the workspace\'s projects' },
  { name: '--recursive', description: 'Every project of the workspace' },
  { name: '--workspace-root', description: 'The workspace\'s root project' },
  { name: '--dir', description: 'Run as if in this directory' },
]

/** The candidates for the last word of `line` (everything typed before the cursor), those it begins. */
export async function completionCandidates (line: string, ctx: CompletionContext): Promise<Candidate[]> {
  const words = splitWords(line)
  const partial = words.pop() ?? ''
  // Past `--`, every word is the script's or the command's.
  if (words.includes('--')) return []
  const typed = words.slice(1)
  const command = commandOf(typed, ctx)
  const previous = typed.at(-1)
  const spec = command === undefined ? undefined : ctx.commands.find((candidate) => candidate.names.includes(command))
  const options = spec?.options ?? {}
  const filterValue = /^(--filter=|-F=)(.*)$/s.exec(partial)
  if (filterValue !== null) return startingWith((await ctx.projectNames()).map((name) => ({ name: `${filterValue[1]!}${name}` })), partial)
  if (previous === '--filter' || previous === '-F') return startingWith((await ctx.projectNames()).map((name) => ({ name })), partial)
  if (previous !== undefined && takesValue(previous, options, ctx)) return startingWith(listedValues(previous, options), partial)
  if (partial.startsWith('-')) return startingWith(spec === undefined ? [...GLOBAL_OPTIONS] : optionCandidates(options), partial)
  if (command === undefined) return startingWith(commandCandidates(ctx.commands), partial)
  // A script's name (`lode build`) or a binary's: their arguments are theirs.
  if (spec === undefined) return []
  return startingWith(positionalCandidates(spec, ctx), partial)
}

/** The command's name: the first word that is neither an option nor an option's value (`pm` passed over). */
function commandOf (words: readonly string[], ctx: CompletionContext): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    if (word.startsWith('-')) {
      if (ctx.valueOptions.has(word)) i++
      continue
    }
    if (word === 'pm') continue
    return word
  }
  return undefined
}

function takesValue (word: string, options: OptionSpecs, ctx: CompletionContext): boolean {
  if (!word.startsWith('-') || word.includes('=')) return false
  const option = optionNamed(word, options)
  return option === undefined ? ctx.valueOptions.has(word) : option.type === 'string' && option.optionalValues === undefined
}

/** The values an option's argument lists (`<public|restricted>`); none for a free one. */
function listedValues (word: string, options: OptionSpecs): Candidate[] {
  const arg = optionNamed(word, options)?.arg
  const listed = arg === undefined ? undefined : /^<([^<>|]+(?:\|[^<>|]+)+)>$/.exec(arg)
  return listed === null || listed === undefined ? [] : listed[1]!.split('|').map((name) => ({ name }))
}

function optionNamed (word: string, options: OptionSpecs): OptionSpecs[string] | undefined {
  if (word.startsWith('--')) return Object.hasOwn(options, word.slice(2)) ? options[word.slice(2)] : undefined
  return Object.values(options).find((option) => option.short !== undefined && `-${option.short}` === word)
}

function optionCandidates (options: OptionSpecs): Candidate[] {
  return Object.entries(options)
    .filter(([, option]) => option.hidden !== true)
    .map(([name, option]) => ({ name: `--${name}`, description: option.help }))
}

function commandCandidates (commands: readonly CommandSpec[]): Candidate[] {
  return commands.flatMap((spec) => spec.names.map((name) => ({ name, description: spec.summary })))
}

function positionalCandidates (spec: CommandSpec, ctx: CompletionContext): Candidate[] {
  const name = spec.names[0]!
  if (SCRIPT_COMMANDS.has(name)) return Object.entries(manifestField(ctx.cwd, 'scripts')).map(([script, text]) => ({ name: script, description: typeof text === 'string' ? text : undefined }))
  if (DEPENDENCY_COMMANDS.has(name)) {
    const names = ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((field) => Object.keys(manifestField(ctx.cwd, field)))
    return [...new Set(names)].map((dependency) => ({ name: dependency }))
  }
  if (name === 'help') return commandCandidates(ctx.commands)
  if (name === 'completion') return ['bash', 'fish', 'pwsh', 'zsh'].map((shell) => ({ name: shell }))
  return []
}

/** A field of the nearest package.json (an object), `{}` when there is none or it is no object. */
function manifestField (cwd: string, field: string): Record<string, unknown> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json')
    if (fs.existsSync(file)) {
      try {
        const value = (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>)[field]
        return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}
      } catch {
        return {}
      }
    }
    if (path.dirname(dir) === dir) return {}
  }
}

function startingWith (candidates: readonly Candidate[], partial: string): Candidate[] {
  return candidates.filter((candidate) => candidate.name.startsWith(partial))
}

/**
 * The words of a shell command line as the shell would pass them, quotes taken off (a backslash
 * escapes the next character); a line ending in a space ends with an empty word, the one being typed.
 */
export function splitWords (line: string): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote: string | undefined
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (quote !== undefined) {
      if (char === quote) quote = undefined
      else if (char === '\\' && quote === '"' && i + 1 < line.length) word += line[++i]!
      else word += char
    } else if (char === '\'' || char === '"') {
      quote = char
      inWord = true
    } else if (char === '\\' && i + 1 < line.length) {
      word += line[++i]!
      inWord = true
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += char
      inWord = true
    }
  }
  words.push(inWord ? word : '')
  return words
}
