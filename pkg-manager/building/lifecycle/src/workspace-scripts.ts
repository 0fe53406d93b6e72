import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import pLimit from 'p-limit'

import type { LifecycleLog } from './build.js'
import { isSkippedScript, scriptsOf } from './project-scripts.js'
import { commandLine, spawnScript, type SpawnedScript } from './spawn-script.js'

export interface ScriptProject {
  /** The project's path from the workspace root (`.`, `packages/a`). */
  id: string
  dir: string
  manifest: object
}

export interface WorkspaceScriptOptions {
  script: string
  /** Passed to the script itself, not to its pre and post scripts. */
  args: readonly string[]
  /** Which projects each project depends on (by id, every project of the workspace). */
  dependencies: ReadonlyMap<string, readonly string[]>
  /** pnpm's `workspaceConcurrency`: scripts at a time. */
  concurrency: number
  /** `--parallel`: every script at once, dependencies disregarded, output streamed. */
  parallel: boolean
  /** `--stream`: output prefixed and streamed even when the scripts run one at a time. */
  stream: boolean
  /** `--aggregate-output`: a script's output in one piece once it ends, not interleaved. */
  aggregateOutput: boolean
  /** `--no-bail` turns it off: then every script runs and the failures are summed up. */
  bail: boolean
  /** `--reverse`: dependents first. */
  reverse: boolean
  /** `--resume-from <name>`: start at that project's turn. */
  resumeFrom?: string | undefined
  userAgent: string
  /** Where lode was started: every script's `INIT_CWD`, as pnpm sets it. */
  initCwd?: string | undefined
  env: Readonly<Record<string, string | undefined>>
  /** Piped output, as pnpm's lifecycle log: a script's start, its lines, its exit code. */
  onLifecycle: (log: LifecycleLog) => void
  /** A script about to share lode's terminal (one at a time): pnpm's `$ <command>` line. */
  onCommand: (command: string) => void
}

export interface ScriptFailure {
  project: ScriptProject
  event: string
  command: string
  exitCode: number
}

export interface WorkspaceScriptResult {
  /** Projects that have the script (from `--resume-from`'s turn on). */
  ran: number
  /** Projects whose scripts all passed. */
  passed: number
  failures: ScriptFailure[]
}

/**
 * `pnpm -r run <script>`: the script (with its pre and post scripts) in every project that has
 * it, each after the projects it depends on, `concurrency` at a time. When they can only run one
 * at a time they share the terminal (pnpm's `$ <command>` first); otherwise their output is piped,
 * line by line, prefixed with the project. The first failure stops the rest unless `bail` is off.
 */
export async function runWorkspaceScript (
  projects: readonly ScriptProject[],
  opts: WorkspaceScriptOptions
): Promise<WorkspaceScriptResult> {
  const tasks = scheduledTasks(projects, opts)
  const serial = !opts.parallel && Math.max(0, ...countByLevel(tasks).values()) <= 1
  const piped = opts.parallel || opts.stream || (opts.concurrency > 1 && !serial)
  const limit = pLimit(opts.parallel ? Number.POSITIVE_INFINITY : Math.max(1, opts.concurrency))
  const running = new Set<SpawnedScript>()
  const failures: ScriptFailure[] = []
  let stopped = false
  const runTask = async (task: Task): Promise<boolean> => {
    const scripts = scriptsOf(task.project.manifest)
    for (const [event, args] of [[`pre${opts.script}`, []], [opts.script, opts.args], [`post${opts.script}`, []]] as const) {
      const script = scripts[event]
      if (stopped) return false
      if (script === undefined || isSkippedScript(script)) continue
      const command = commandLine(script, args)
      const buffered: LifecycleLog[] = []
      const log = (fields: Omit<LifecycleLog, 'dir' | 'stage'>): void => {
        if (stopped) return
        const entry = { dir: task.project.dir, stage: event, ...fields }
        if (opts.aggregateOutput) buffered.push(entry)
        else opts.onLifecycle(entry)
      }
      if (piped) log({ script: command })
      else opts.onCommand(command)
      const spawned = spawnScript({
        dir: task.project.dir,
        manifest: task.project.manifest,
        event,
        command,
        userAgent: opts.userAgent,
        initCwd: opts.initCwd,
        env: opts.env,
        onLine: piped ? (line) => { log({ line }) } : undefined,
      })
      running.add(spawned)
      const exitCode = await spawned.exited
      running.delete(spawned)
      if (piped) log({ exitCode })
      if (!stopped) for (const entry of buffered) opts.onLifecycle(entry)
      if (exitCode === 0) continue
      if (!stopped) failures.push({ project: task.project, event, command, exitCode })
      if (opts.bail) {
        stopped = true
        for (const other of running) other.kill()
      }
      return false
    }
    return true
  }
  // Whether each task passed: a task after one that did not is skipped, as pnpm skips it.
  const done = new Map<Task, Promise<boolean>>()
  const start = (task: Task): Promise<boolean> => {
    let promise = done.get(task)
    if (promise === undefined) {
      promise = Promise.all(task.after.map(start)).then(async (passed) => {
        if (passed.includes(false)) return false
        return await limit(async () => !stopped && await runTask(task))
      })
      done.set(task, promise)
    }
    return promise
  }
  // Piped scripts lead process groups of their own, which a Ctrl-C on the terminal does not reach: lode stops them.
  const stopAll = (signal: NodeJS.Signals): void => {
    for (const script of running) script.kill()
    process.kill(process.pid, signal)
  }
  const onSignal = (signal: NodeJS.Signals): void => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    stopAll(signal)
  }
  if (piped) {
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  }
  try {
    // In level order: a task's tasks before it are started already, so `start` never recurses deep.
    const passed = await Promise.all([...tasks].sort((a, b) => a.level - b.level).map(start))
    return { ran: tasks.length, passed: passed.filter(Boolean).length, failures }
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

interface Task {
  project: ScriptProject
  /** The tasks that run before it. */
  after: Task[]
  /** Its turn: 0 for a task after none, else one more than the latest task it comes after. */
  level: number
}

/** The projects that have the script, each with the tasks it waits for, from `--resume-from`'s turn on. */
function scheduledTasks (projects: readonly ScriptProject[], opts: WorkspaceScriptOptions): Task[] {
  const withScript = projects.filter((project) => Object.hasOwn(scriptsOf(project.manifest), opts.script))
  const tasks = new Map(withScript.map((project) => [project.id, { project, after: [] as Task[], level: 0 }]))
  if (!opts.parallel) {
    const order = new Map<string, string[]>()
    for (const task of tasks.values()) {
      for (const id of taskDependencies(task.project.id, tasks, opts.dependencies)) {
        const [before, after] = opts.reverse ? [task.project.id, id] : [id, task.project.id]
        order.set(after, [...order.get(after) ?? [], before])
      }
    }
    for (const [id, before] of order) tasks.get(id)!.after = before.map((other) => tasks.get(other)!)
    setLevels([...tasks.values()])
  }
  if (opts.resumeFrom === undefined) return [...tasks.values()]
  const from = projects.find((project) => (project.manifest as { name?: unknown }).name === opts.resumeFrom)
  if (from === undefined) throw new LodeError('RESUME_FROM_NOT_FOUND', `Cannot find package ${opts.resumeFrom}. Could not determine where to resume from.`)
  // The turns of every project (those without the script too): the run resumes at that project's.
  const turns = projectLevels(projects, opts)
  const level = turns.get(from.id) ?? 0
  const resumed = [...tasks.values()].filter((task) => (turns.get(task.project.id) ?? 0) >= level)
  for (const task of resumed) task.after = task.after.filter((other) => resumed.includes(other))
  return resumed
}

/** Each project's turn in the whole selection, every project counted (pnpm's chunks). */
function projectLevels (projects: readonly ScriptProject[], opts: WorkspaceScriptOptions): Map<string, number> {
  const all = new Map(projects.map((project) => [project.id, { project, after: [] as Task[], level: 0 }]))
  for (const task of all.values()) {
    for (const id of opts.dependencies.get(task.project.id) ?? []) {
      const other = all.get(id)
      if (other === undefined) continue
      if (opts.reverse) other.after.push(task)
      else task.after.push(other)
    }
  }
  setLevels([...all.values()])
  return new Map([...all].map(([id, task]) => [id, task.level]))
}

/** The tasks a project's task waits for: the nearest projects with the script it depends on, through projects without it. */
function taskDependencies (id: string, tasks: ReadonlyMap<string, Task>, dependencies: ReadonlyMap<string, readonly string[]>): string[] {
  const found = new Set<string>()
  const seen = new Set([id])
  const queue = [...dependencies.get(id) ?? []]
  while (queue.length > 0) {
    const next = queue.shift()!
    if (seen.has(next)) continue
    seen.add(next)
    if (tasks.has(next)) found.add(next)
    else queue.push(...dependencies.get(next) ?? [])
  }
  return [...found]
}

/** Levels by a walk with a stack of its own; in a dependency cycle, the task reached first goes first. */
function setLevels (tasks: readonly Task[]): void {
  const settled = new Set<Task>()
  for (const root of tasks) {
    const stack: Array<{ task: Task, next: number }> = [{ task: root, next: 0 }]
    const onStack = new Set([root])
    while (stack.length > 0) {
      const top = stack.at(-1)!
      if (settled.has(top.task)) {
        stack.pop()
        onStack.delete(top.task)
        continue
      }
      const dependency = top.task.after[top.next++]
      if (dependency !== undefined) {
        if (onStack.has(dependency)) {
          top.task.after = top.task.after.filter((other) => other !== dependency)
          top.next--
        } else if (!settled.has(dependency)) {
          stack.push({ task: dependency, next: 0 })
          onStack.add(dependency)
        }
        continue
      }
      top.task.level = Math.max(-1, ...top.task.after.map((other) => other.level)) + 1
      settled.add(top.task)
    }
  }
}

function countByLevel (tasks: readonly Task[]): Map<number, number> {
  const counts = new Map<number, number>()
  for (const task of tasks) counts.set(task.level, (counts.get(task.level) ?? 0) + 1)
  return counts
}

/** pnpm's warning beside a failed script of a project that was never installed. */
export function notInstalled (dir: string): boolean {
  return !fs.existsSync(path.join(dir, 'node_modules'))
}
