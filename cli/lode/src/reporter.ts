import { printable } from '@lode/core.error'
import type { InstallEvent } from '@lode/pkg-manager.core'

import type { MainContext } from './context.js'
import { rawOutput } from './terminal.js'

// What the CLI prints while a command runs: pnpm's reporter, its lines and labels.

export type ReporterName = 'default' | 'append-only' | 'silent' | 'ndjson'
export const REPORTERS: readonly ReporterName[] = ['default', 'append-only', 'silent', 'ndjson']

export interface Reporter {
  /** A line, or lines (kept above the progress line, which is written again under it); printed printable. */
  print: (line: string) => void
  /** A warning: pnpm's WARN label, then the message, printed printable. */
  warn: (message: string) => void
  /** The labels, asked for when first needed (it looks at whether stdout is a terminal). */
  style: () => LabelStyle
  /** An install's event, printed as pnpm prints it. */
  onEvent: (event: InstallEvent) => void
  silent: boolean
}

/** How `report` writes: lines made printable, a warning, or a line as it is (a build's output). */
interface Lines {
  print: (line: string) => void
  warn: (message: string) => void
  raw: (line: string) => void
  progress: (line: string, done: boolean) => void
}

/**
 * pnpm's reporters: `default` rewrites the progress line in place on a terminal (elsewhere only the
 * final one is printed), `append-only` never rewrites, `silent` prints nothing. Everything is
 * written printable (see terminal.ts) but lode's own control sequences and a build's output.
 */
export function createReporter (name: ReporterName, ctx: MainContext): Reporter {
  if (name === 'ndjson') return ndjsonReporter(ctx)
  const silent = name === 'silent'
  const out = rawOutput(ctx.stdout)
  // Asked on first progress: the no-op prints without looking at what stdout is.
  let live: boolean | undefined
  const isLive = (): boolean => (live ??= name === 'default' && ctx.stdout.isTTY === true && ctx.env['CI'] === undefined)
  let progressLine: string | undefined
  let progressShownAt = 0
  let labels: LabelStyle | undefined
  const style = (): LabelStyle => (labels ??= labelStyle(ctx))
  // Every line reaches the terminal here: lode's own text or text made printable, or a build's output.
  const raw = (line: string): void => {
    if (silent) return
    out.write(progressLine !== undefined ? `\r\x1b[2K${line}\n${progressLine}` : `${line}\n`)
  }
  const print = (line: string): void => { raw(printable(line, { newlines: true })) }
  const warn = (message: string): void => { raw(`${style().warn} ${printable(message, { newlines: true })}`) }
  const appendProgress = appendThrottled((line) => { out.write(`${line}\n`) }, 1000)
  const progress = (line: string, done: boolean): void => {
    if (silent) return
    if (done) {
      appendProgress.cancel()
      if (progressLine !== undefined) out.write('\r\x1b[2K')
      progressLine = undefined
      out.write(`${line}\n`)
      return
    }
    // Where nothing can be rewritten (CI, a pipe, --reporter append-only), a line about once a second, as pnpm's append-only reporter.
    if (!isLive()) {
      appendProgress(line)
      return
    }
    if (Date.now() - progressShownAt < 100) return
    progressShownAt = Date.now()
    progressLine = line
    out.write(`\r\x1b[2K${line}`)
  }
  const lines: Lines = { print, warn, raw, progress }
  return { print, warn, style, silent, onEvent: (event) => { report(event, lines) } }
}

/**
 * At most one call per `intervalMs`: the first at once, the last one of each interval at its end
 * (rxjs's throttleTime with leading and trailing, as pnpm's reporter throttles its progress).
 */
function appendThrottled (write: (line: string) => void, intervalMs: number): ((line: string) => void) & { cancel: () => void } {
  let writtenAt = -Infinity
  let written: string | undefined
  let waiting: string | undefined
  let timer: NodeJS.Timeout | undefined
  const writeNow = (line: string): void => {
    writtenAt = Date.now()
    if (line !== written) write(line)
    written = line
  }
  const flush = (): void => {
    timer = undefined
    if (waiting === undefined) return
    const line = waiting
    waiting = undefined
    writeNow(line)
  }
  const throttled = (line: string): void => {
    const since = Date.now() - writtenAt
    if (timer === undefined && since >= intervalMs) {
      writeNow(line)
      return
    }
    waiting = line
    // Unref'd: a pending line never keeps the process alive.
    timer ??= setTimeout(flush, Math.max(0, intervalMs - since)).unref()
  }
  return Object.assign(throttled, {
    cancel: () => {
      clearTimeout(timer)
      timer = undefined
      waiting = undefined
    },
  })
}

/**
 * `--reporter ndjson`, for tools: every event of the install as one JSON object per line (its
 * `type`, its fields, and `time`, ms since the epoch), and each line lode would print as
 * `{ "type": "message", "message": … }`; nothing is throttled or left out. JSON escapes C0
 * controls; the printable stdout escapes the rest (C1, bidi overrides) as JSON escapes them.
 */
function ndjsonReporter (ctx: MainContext): Reporter {
  const write = (record: object): void => { ctx.stdout.write(`${JSON.stringify({ ...record, time: Date.now() })}\n`) }
  return {
    print: (line) => { write({ type: 'message', message: line }) },
    warn: (message) => { write({ type: 'message', message: `[WARN] ${message}` }) },
    style: () => ({ warn: '[WARN]', error: (code) => `[${code}]` }),
    onEvent: (event) => { write(event) },
    silent: false,
  }
}

export interface LabelStyle {
  warn: string
  error: (code: string) => string
}

/** pnpm's labels: ` WARN ` on yellow and ` ERR_… ` on red where colours show, `[WARN]` and `[ERR_…]` otherwise. */
function labelStyle (ctx: MainContext): LabelStyle {
  const colors = ctx.env['FORCE_COLOR'] !== undefined && ctx.env['FORCE_COLOR'] !== '0'
    ? true
    : ctx.stdout.isTTY === true && ctx.env['NO_COLOR'] === undefined && ctx.env['TERM'] !== 'dumb'
  return colors
    ? { warn: '\x1b[30;43m WARN \x1b[39;49m', error: (code) => `\x1b[41m\x1b[30m ${code} \x1b[39m\x1b[49m` }
    : { warn: '[WARN]', error: (code) => `[${code}]` }
}

/** A build's directory as pnpm names it: relative, and past 40 characters its end after `...`, from a `/`. */
function lifecyclePrefix (dir: string): string {
  if (dir.length <= 40) return dir
  const end = dir.slice(-37)
  const slash = end.indexOf('/')
  return `...${slash <= 0 ? end : end.slice(slash)}`
}

/** pnpm's `++++--` bar: one sign per package, scaled down to 80 columns when there are more. */
export function changeBar (added: number, removed: number, width = 80): string {
  const total = added + removed
  if (total <= width) return '+'.repeat(added) + '-'.repeat(removed)
  const plus = Math.round(width * added / total)
  return '+'.repeat(plus) + '-'.repeat(width - plus)
}

/** `500ms`, `2s`, `5m`, `1h`, `3d`: pnpm's age of a cached verdict (pretty-ms, compact: the largest unit only). */
export function formatAgo (ms: number): string {
  const elapsed = Math.max(0, Number.isNaN(ms) ? 0 : ms)
  const units: Array<[string, number]> = [['y', 365 * 86_400_000], ['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]]
  for (const [unit, size] of units) if (elapsed >= size) return `${Math.floor(elapsed / size)}${unit}`
  return `${Math.round(elapsed)}ms`
}

/** `564ms`, `3.2s`, `1m 5.3s`: pnpm's "Done in" duration (pretty-ms). */
export function formatDuration (ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  const minutes = Math.floor(ms / 60_000)
  const seconds = Math.floor((ms - minutes * 60_000) / 100) / 10
  return minutes > 0 ? `${minutes}m${seconds > 0 ? ` ${seconds}s` : ''}` : `${seconds}s`
}

/**
 * An install's event as pnpm prints it. Fields that are one line (names, versions, ranges, ids,
 * directories) are made printable with their newlines escaped too: a version holding "\n WARN …"
 * cannot print a line that looks like lode's.
 */
function report (event: InstallEvent, { print, warn, raw, progress }: Lines): void {
  const one = (text: string): string => printable(text)
  switch (event.type) {
    case 'warning': warn(event.message); break
    case 'info': print(event.message); break
    case 'deprecated':
      for (const id of event.direct) warn(`deprecated ${one(id)}`)
      if (event.subdependencies.length > 0) warn(`${event.subdependencies.length} deprecated subdependencies found: ${[...event.subdependencies].sort().map(one).join(', ')}`)
      break
    case 'progress': progress(`Progress: resolved ${event.resolved}, reused ${event.reused}, downloaded ${event.downloaded}, added ${event.added}${event.done ? ', done' : ''}`, event.done); break
    case 'peer-issues':
      // pnpm points at `pnpm peers check` here; lode lists the issues instead.
      warn('Issues with peer dependencies found:')
      for (const issue of event.issues) {
        const peer = `${one(issue.peer)}@${one(issue.range)}`
        print(issue.kind === 'unmet'
          ? `  ✕ unmet peer ${peer}: found ${one(issue.installed)} (wanted by ${one(issue.wantedBy)})`
          : `  ✕ missing peer ${peer} (wanted by ${one(issue.wantedBy)})`)
      }
      break
    case 'lockfile': print(''); break
    case 'lockfile-verification':
      if (event.status === 'cached') print(`✓ Lockfile passes supply-chain policies (verified ${formatAgo(Date.now() - Date.parse(event.verifiedAt))} ago)`)
      else {
        const entries = `${event.entries} ${event.entries === 1 ? 'entry' : 'entries'}`
        if (event.status === 'started') print(`? Verifying lockfile against supply-chain policies (${entries})...`)
        else if (event.status === 'done') print(`✓ Lockfile passes supply-chain policies (${entries} in ${formatDuration(event.elapsedMs)})`)
        else print(`✗ Lockfile failed supply-chain policy check (${entries} in ${formatDuration(event.elapsedMs)})`)
      }
      break
    case 'up-to-date': print('Already up to date'); break
    case 'script-output': break
    case 'lifecycle': {
      // pnpm's append-only lines: `<dir> <stage>$ <script>`, `<dir> <stage>: <line>`, `<dir> <stage>: Done`.
      const prefix = `${one(lifecyclePrefix(event.dir))} ${one(event.stage)}`
      if (event.exitCode !== undefined) print(`${prefix}: ${event.exitCode === 0 ? 'Done' : 'Failed'}`)
      else if (event.script !== undefined) print(`${prefix}$ ${one(event.script)}`)
      // The build's own output is the script's to colour, as pnpm shows it; only lode's framing is made printable.
      else raw(`${prefix}: ${event.line ?? ''}`)
      break
    }
    case 'packages':
      print(`Packages: ${[event.added > 0 ? `+${event.added}` : '', event.removed > 0 ? `-${event.removed}` : ''].filter(Boolean).join(' ')}`)
      print(changeBar(event.added, event.removed))
      if (event.added > 0) {
        print('Packages are hard linked from the content-addressable store to the virtual store.')
        print(`  Content-addressable store is at: ${one(event.storeDir)}`)
        print(`  Virtual store is at:             ${one(event.virtualStoreDir)}`)
      }
      break
    case 'summary':
      for (const group of ['dependencies', 'optionalDependencies', 'devDependencies'] as const) {
        const changes = event.changes.filter((change) => change.group === group)
        if (changes.length === 0) continue
        print(`${group}:`)
        for (const change of changes) {
          const from = change.linkedFrom !== undefined ? ` <- ${one(change.linkedFrom)}` : ''
          const available = change.latest === undefined ? '' : ` (${one(change.latest)} is available)`
          const name = change.name !== undefined && change.name !== change.alias ? ` <- ${one(change.name)}` : ''
          print(`${change.change} ${one(change.alias)}${name} ${one(change.version)}${available}${from}`)
        }
        print('')
      }
      break
  }
}
