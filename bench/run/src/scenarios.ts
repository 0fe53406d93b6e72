/**
 * The scenarios of pnpm's published benchmarks: which of cache (store and metadata), lockfile and
 * node_modules are there when the install starts. Every run leaves all three behind, so a scenario
 * is set up by deleting what it lacks.
 */
export interface Scenario {
  name: string
  cache: boolean
  lockfile: boolean
  nodeModules: boolean
  command: 'install' | 'update' | 'add'
  /**
   * Runs changing the project (`add`) first put it back: the fixture's manifests and lockfile, and an
   * install, not measured, that takes out of node_modules what the last run added.
   */
  restore?: boolean
}

/** What `add` adds: a package none of the fixtures' root projects depend on, with no dependencies of its own. */
export const ADDED_PACKAGE = 'zod'

export const SCENARIOS: readonly Scenario[] = [
  { name: 'clean', cache: false, lockfile: false, nodeModules: false, command: 'install' },
  { name: 'lockfile', cache: false, lockfile: true, nodeModules: false, command: 'install' },
  { name: 'cache', cache: true, lockfile: false, nodeModules: false, command: 'install' },
  { name: 'cache+lockfile', cache: true, lockfile: true, nodeModules: false, command: 'install' },
  { name: 'cache+node_modules', cache: true, lockfile: false, nodeModules: true, command: 'install' },
  { name: 'node_modules', cache: false, lockfile: false, nodeModules: true, command: 'install' },
  { name: 'lockfile+node_modules', cache: false, lockfile: true, nodeModules: true, command: 'install' },
  { name: 'no-op', cache: true, lockfile: true, nodeModules: true, command: 'install' },
  { name: 'update', cache: true, lockfile: true, nodeModules: true, command: 'update' },
  { name: 'add', cache: true, lockfile: true, nodeModules: true, command: 'add', restore: true },
]

export function pickScenarios (names: string | undefined): Scenario[] {
  if (names === undefined) return [...SCENARIOS]
  return names.split(',').map((name) => {
    const scenario = SCENARIOS.find((s) => s.name === name)
    if (scenario === undefined) throw new Error(`unknown scenario ${name} (scenarios: ${SCENARIOS.map((s) => s.name).join(', ')})`)
    return scenario
  })
}
