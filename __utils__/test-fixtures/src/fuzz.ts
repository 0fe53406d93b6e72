// A small seeded fuzzer for node:test (`@lode/__utils__.test-fixtures/fuzz`), shared by every
// package with fuzz tests. A target is a module exporting `generate` and `check` functions;
// `fuzz()` runs it in a worker thread, so an input that hangs the code (an infinite loop, regex
// backtracking) is stopped by a watchdog and reported instead of hanging the test run.
//
// LODE_FUZZ_ITERATIONS and LODE_FUZZ_SEED override the iteration count and the seed; iteration `i`
// of a seed is always the same input, and a failure prints the seed, the iteration and the input.
// LODE_FUZZ_KEEP_GOING=1 runs every iteration and reports each kind of failure once, with a count.

import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { inspect } from 'node:util'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

export interface Random {
  /** In [0, 1). */
  next: () => number
  /** An integer in [0, n). */
  int: (n: number) => number
  pick: <T>(items: readonly T[]) => T
  chance: (p: number) => boolean
}

/** mulberry32: small, fast and good enough to pick mutations. */
export function createRandom (seed: number): Random {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number): number => Math.floor(next() * n)
  return { next, int, pick: (items) => items[int(items.length)]!, chance: (p) => next() < p }
}

export interface MutateOptions {
  /** Tokens of the format (`: `, `- `, `{`, `"`, `=`…) that mutations insert. */
  tokens: readonly string[]
  /** Other valid files, spliced in. */
  corpus: readonly string[]
  /** A line that sets `key` (`key: 1`, `"key": 1,`, `key=1`). */
  keyLine: (key: string) => string
  /** Openers of nested structures (`[`, `{a: `), repeated to nest deeply; each with its closer. */
  nesting: ReadonlyArray<readonly [string, string]>
}

// Characters that break parsers: BOM, line ends, tab, NUL, non-ASCII, a lone surrogate, escapes.
const SPECIAL = ['\uFEFF', '\r\n', '\r', '\n', '\t', '\0', '\u0085', '\u2028', '\u00a0', 'é', '😀', '\ud800', '\\', '"', "'", ' ', '#', ':']
// Keys that mean something to JavaScript objects.
const OBJECT_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']

type Mutation = (random: Random, text: string, opts: MutateOptions) => string

const at = (random: Random, text: string): number => random.int(text.length + 1)
const insert = (text: string, index: number, piece: string): string => text.slice(0, index) + piece + text.slice(index)
const onLines = (text: string, change: (lines: string[]) => void): string => {
  const lines = text.split('\n')
  change(lines)
  return lines.join('\n')
}

const MUTATIONS: Mutation[] = [
  // A character replaced by a special one, a token's first character or any code unit.
  (random, text, opts) => {
    const i = random.int(text.length)
    const c = random.pick([random.pick(SPECIAL), random.pick(opts.tokens)[0] ?? '', String.fromCharCode(random.int(random.chance(0.8) ? 128 : 65536))])
    return text.slice(0, i) + c + text.slice(i + 1)
  },
  (random, text, opts) => insert(text, at(random, text), random.pick(random.chance(0.5) ? SPECIAL : opts.tokens)),
  (random, text) => onLines(text, (lines) => { lines.splice(random.int(lines.length), 1) }),
  (random, text) => onLines(text, (lines) => { lines.splice(random.int(lines.length + 1), 0, random.pick(lines)) }),
  (random, text) => onLines(text, (lines) => {
    const i = random.int(lines.length)
    const j = random.int(lines.length)
    ;[lines[i], lines[j]] = [lines[j]!, lines[i]!]
  }),
  // Indentation: a space more or fewer, a tab, or none.
  (random, text) => onLines(text, (lines) => {
    const i = random.int(lines.length)
    const line = lines[i]!
    lines[i] = random.pick([` ${line}`, line.replace(/^ /, ''), `\t${line}`, line.replace(/^ +/, ''), line.replace(/^( *)/, '$1$1')])
  }),
  // Quotes: single for double, double for single, or none.
  (random, text) => onLines(text, (lines) => {
    const i = random.int(lines.length)
    const line = lines[i]!
    lines[i] = random.pick([line.replaceAll("'", '"'), line.replaceAll('"', "'"), line.replaceAll(/['"]/g, ''), line.replace(/: (.*)$/, ": '$1'"), line.replace(/: (.*)$/, ': "$1"')])
  }),
  // A value replaced by a token (a quoted escape, an indicator, a number).
  (random, text, opts) => onLines(text, (lines) => {
    const i = random.int(lines.length)
    lines[i] = lines[i]!.replace(/: .*$/, `: ${random.pick(opts.tokens)}`)
  }),
  (random, text) => random.pick([text.replaceAll('\n', '\r\n'), `\uFEFF${text}`, text.replaceAll('  ', '\t'), text.replaceAll('\n', '\r')]),
  (random, text) => text.slice(0, random.int(text.length + 1)),
  (random, text) => {
    const i = random.int(text.length)
    return text.slice(0, i) + text.slice(i + 1 + random.int(100))
  },
  // A short piece repeated thousands of times: super-linear code shows up as a timeout.
  (random, text) => {
    const i = random.int(text.length)
    const piece = text.slice(i, i + 1 + random.int(16)) || 'a'
    return insert(text, i, piece.repeat(1 + random.int(Math.floor(20_000 / piece.length))))
  },
  (random, text, opts) => {
    const [open, close] = random.pick(opts.nesting)
    // Mostly shallow: the deep ones find stack overflows, and are slow to refuse.
    const depth = 1 + random.int(random.chance(0.85) ? 50 : random.chance(0.9) ? 5000 : 50_000)
    return insert(text, at(random, text), open.repeat(depth) + (random.chance(0.8) ? close.repeat(depth) : ''))
  },
  (random, text, opts) => onLines(text, (lines) => {
    const key = random.chance(0.5) ? random.pick(OBJECT_KEYS) : 'k'.repeat(1 + random.int(random.chance(0.5) ? 2000 : 50_000))
    lines.splice(random.int(lines.length + 1), 0, opts.keyLine(key))
  }),
  // An existing key renamed to one that means something to objects.
  (random, text) => onLines(text, (lines) => {
    const i = random.int(lines.length)
    lines[i] = lines[i]!.replace(/[\w@/.-]+/, random.pick(OBJECT_KEYS))
  }),
  (random, text, opts) => {
    const other = random.pick(opts.corpus)
    const i = random.int(other.length)
    return insert(text, at(random, text), other.slice(i, i + random.int(2000)))
  },
]

/** `text` with one to four random mutations. */
export function mutate (random: Random, text: string, opts: MutateOptions): string {
  let out = text
  for (let n = 1 + random.int(4); n > 0; n--) out = random.pick(MUTATIONS)(random, out, opts)
  return out
}

/** The seed of one iteration, so any iteration can be regenerated alone. */
function iterationSeed (seed: number, iteration: number): number {
  return Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(iteration + 1, 0xc2b2ae35)
}

/** What a target module exports. */
/**
 * The outcome of a check that refused its input: `err` must be a `LodeError` with an `ERR_LODE_`
 * code and a hint, whose message holds `names` (the file it read) when given; its code is returned.
 * Anything else is rethrown, as the failure it is.
 */
export function assertCoded (err: unknown, names?: string): string {
  const { code, message, hint } = err as { code?: unknown, message?: unknown, hint?: unknown }
  if (!(err instanceof Error) || err.name !== 'LodeError' || typeof code !== 'string' || !code.startsWith('ERR_LODE_')) throw err
  if (names !== undefined) assert.ok(typeof message === 'string' && message.includes(names), `the message names ${names}: ${String(message)}`)
  assert.ok(typeof hint === 'string' && hint !== '', 'a hint')
  return code
}

export interface FuzzTarget {
  /** One input, from `random` alone. */
  generate: (random: Random) => unknown
  /** Returns (optionally how the input was handled, for the tally) when the contract holds; throws when it does not. */
  check: (input: unknown) => string | undefined | Promise<string | undefined>
}

export interface FuzzResult {
  seed: number
  iterations: number
  /** How many inputs ended each way (the strings `check` returned). */
  outcomes: Record<string, number>
}

/** Wall-clock bound of one check: 1 s per 100 KB of input, at least 1 s. */
function timeLimitMs (input: unknown): number {
  const size = typeof input === 'string' ? input.length : JSON.stringify(input)?.length ?? 0
  return 1000 * Math.max(1, size / 100_000)
}

// A check that makes no progress for this long is a hang; longer than any time limit above.
const STALL_MS = 30_000

interface Job { module: string, name: string, seed: number, iterations: number, keepGoing: boolean, heartbeat: SharedArrayBuffer }
interface Failure { iteration: number, error: string }
type Report = { type: 'done', outcomes: Record<string, number>, failures: Array<Failure & { count: number }> } | ({ type: 'fail' } & Failure)

/**
 * Runs `iterations` inputs of the target `name` exported by `module` (a file URL): `defaultIterations`
 * unless LODE_FUZZ_ITERATIONS says otherwise. Rejects with the seed, the iteration and the input
 * when a check throws, takes too long or never returns.
 */
export async function fuzz (module: URL, name: string, defaultIterations: number): Promise<FuzzResult> {
  const iterations = Number(process.env['LODE_FUZZ_ITERATIONS'] ?? defaultIterations)
  const seed = Number(process.env['LODE_FUZZ_SEED'] ?? 1)
  const heartbeat = new SharedArrayBuffer(4)
  const progress = new Int32Array(heartbeat)
  const keepGoing = process.env['LODE_FUZZ_KEEP_GOING'] === '1'
  const job: Job = { module: module.href, name, seed, iterations, keepGoing, heartbeat }
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { lodeFuzz: job },
    resourceLimits: { maxOldGenerationSizeMb: 1024, stackSizeMb: 1 },
  })
  let watchdog: NodeJS.Timeout | undefined
  const report = await new Promise<Report>((resolve) => {
    let last = -1
    let since = Date.now()
    watchdog = setInterval(() => {
      const current = Atomics.load(progress, 0)
      if (current !== last) {
        last = current
        since = Date.now()
      } else if (Date.now() - since > STALL_MS) {
        resolve({ type: 'fail', iteration: current, error: `no answer after ${STALL_MS / 1000} s (a hang)` })
      }
    }, 250)
    worker.on('message', (message: Report) => resolve(message))
    worker.on('error', (err) => resolve({ type: 'fail', iteration: Atomics.load(progress, 0), error: `the worker died: ${inspect(err)}` }))
    worker.on('exit', () => resolve({ type: 'fail', iteration: Atomics.load(progress, 0), error: 'the worker exited' }))
  })
  clearInterval(watchdog)
  await worker.terminate()
  if (report.type === 'done' && report.failures.length === 0) return { seed, iterations, outcomes: report.outcomes }
  const target = await loadTarget(job)
  const failures = report.type === 'done' ? report.failures : [{ ...report, count: 1 }]
  throw new Error(failures.map((failure) => {
    const input = target.generate(createRandom(iterationSeed(seed, failure.iteration)))
    return `fuzz target ${name} failed at LODE_FUZZ_SEED=${seed}, iteration ${failure.iteration}${failure.count > 1 ? ` (and ${failure.count - 1} more times)` : ''}: ${failure.error}\n${describeInput(input, `${name}-${failure.iteration}`)}`
  }).join('\n\n'))
}

/** The failing input, in full in a file and (up to 8 KB) in the message. */
function describeInput (input: unknown, name: string): string {
  const text = typeof input === 'string' ? JSON.stringify(input) : inspect(input, { depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity, breakLength: 120 })
  const file = path.join(os.tmpdir(), `lode-fuzz-${name}-${process.pid}.txt`)
  fs.writeFileSync(file, typeof input === 'string' ? input : text)
  const shown = text.length > 8192 ? `${text.slice(0, 8192)}… (${text.length} characters)` : text
  return `input (written in full to ${file}):\n${shown}`
}

async function loadTarget (job: Pick<Job, 'module' | 'name'>): Promise<FuzzTarget> {
  const exports = await import(job.module) as Record<string, FuzzTarget | undefined>
  const target = exports[job.name]
  if (target === undefined) throw new Error(`${job.module} exports no fuzz target ${job.name}`)
  return target
}

async function runJob (job: Job): Promise<Report> {
  const target = await loadTarget(job)
  const progress = new Int32Array(job.heartbeat)
  const outcomes: Record<string, number> = {}
  // Failures by kind: the error's first line.
  const failures = new Map<string, Failure & { count: number }>()
  const fail = (failure: Failure): Report | undefined => {
    if (!job.keepGoing) return { type: 'fail', ...failure }
    const kind = failure.error.split('\n')[0]!.replaceAll(/\d+/g, 'N')
    const seen = failures.get(kind)
    if (seen === undefined) failures.set(kind, { ...failure, count: 1 })
    else seen.count++
    return undefined
  }
  for (let iteration = 0; iteration < job.iterations; iteration++) {
    Atomics.store(progress, 0, iteration)
    const input = target.generate(createRandom(iterationSeed(job.seed, iteration)))
    const start = performance.now()
    let outcome: string | undefined
    try {
      outcome = await target.check(input)
    } catch (err) {
      const report = fail({ iteration, error: inspect(err) })
      if (report !== undefined) return report
      continue
    }
    const ms = performance.now() - start
    if (ms > timeLimitMs(input)) {
      const report = fail({ iteration, error: `took ${Math.round(ms)} ms (limit ${timeLimitMs(input)} ms)` })
      if (report !== undefined) return report
    }
    if (outcome !== undefined) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
  }
  return { type: 'done', outcomes, failures: [...failures.values()] }
}

// In the worker: not awaited at the top level, as the target module imports this one.
if (!isMainThread && (workerData as { lodeFuzz?: Job } | undefined)?.lodeFuzz !== undefined) {
  void runJob((workerData as { lodeFuzz: Job }).lodeFuzz).then((report) => { parentPort!.postMessage(report) })
}
