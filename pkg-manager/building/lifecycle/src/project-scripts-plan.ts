// Which projects' own install scripts an install runs, and which of them, as pnpm 11 runs them
// (observed beside it; see cli/lode/test/scripts.test.ts): a project installed as a whole runs
// them all, one whose dependencies a command changes does not, except in one case below.

/** What a command does to one project: `install` (a plain install, a bare `update`), `some` (add, a named or `--latest` update), `remove`. */
export type ProjectMutation = 'install' | 'some' | 'remove'

export interface ScriptsPlanInput<P extends { id: string }> {
  /** Every project, in the order their scripts run (each after the projects it depends on). */
  projects: readonly P[]
  /** The projects an install without edits installs (undefined: all). */
  selected: ReadonlySet<string> | undefined
  /** The projects a command changes (none: a plain install). */
  mutations: ReadonlyMap<string, ProjectMutation>
  workspace: boolean
  /** Whether dev dependencies are installed: the `prepare` scripts run only then. */
  prepare: boolean
  /** The projects injected somewhere (`dependenciesMeta.injected`, `file:`): their copies are refreshed after their scripts. */
  injected?: ReadonlySet<string> | undefined
}

export interface ScriptsPlan<P> {
  /** The root's `preinstall` runs before anything is installed. */
  rootPreinstall: boolean
  /** The scripts that run once the dependencies are installed, project by project. */
  runs: Array<{ project: P, events: readonly string[] }>
}

const BUILD_EVENTS = ['preinstall', 'install', 'postinstall'] as const
const PREPARE_EVENTS = ['preprepare', 'prepare', 'postprepare'] as const
// pnpm 11's events of a project injected somewhere: what builds the files its copies get.
const INJECTED_EVENTS = ['preinstall', 'install', 'postinstall', 'prepare', 'prepublishOnly'] as const

/**
 * pnpm 11: the projects installed as a whole run every install script: all selected ones in a
 * plain install, a project given a bare `update`, and, in a workspace, the root when a command
 * changes only other projects. A project `add` or a named update changes runs none, unless it
 * is the only one changed in a workspace of more than one project besides the root: then its
 * `preinstall`, `install` and `postinstall` run (pnpm rebuilds it after the install), not
 * `prepare`. `remove` runs none. A project injected somewhere runs `prepare` and `prepublishOnly`
 * (not `preprepare`, `postprepare`), as pnpm builds the files of its copies with them.
 */
export function projectScriptsPlan<P extends { id: string }> (input: ScriptsPlanInput<P>): ScriptsPlan<P> {
  const { mutations } = input
  const removes = [...mutations.values()].includes('remove')
  const members = input.projects.filter((project) => project.id !== '.').length
  const whole = (project: P): boolean => {
    if (mutations.size === 0) return input.selected === undefined || input.selected.has(project.id)
    if (removes) return false
    const mutation = mutations.get(project.id)
    return mutation === 'install' || (mutation === undefined && input.workspace && project.id === '.')
  }
  const rebuilt = (project: P): boolean =>
    !removes && input.workspace && members > 1 && mutations.size === 1 && mutations.get(project.id) === 'some'
  const all = input.prepare ? [...BUILD_EVENTS, ...PREPARE_EVENTS] : BUILD_EVENTS
  const runs = input.projects.flatMap((project) => {
    const events = input.prepare && input.injected?.has(project.id) === true ? INJECTED_EVENTS : all
    if (whole(project)) return [{ project, events: project.id === '.' ? events.slice(1) : events }]
    return rebuilt(project) ? [{ project, events: BUILD_EVENTS }] : []
  })
  const root = input.projects.find((project) => project.id === '.')
  return { rootPreinstall: root !== undefined && whole(root), runs }
}
