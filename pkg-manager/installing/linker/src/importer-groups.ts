import type { DependencyGroup } from '@lode/core.constants'

/**
 * Whether a project's own dependencies of `group` are installed, as pnpm 11 decides it: a project's
 * optional dependencies are production dependencies, left out with them (`--dev` records
 * `optionalDependencies: true` in `.modules.yaml` and still leaves them out); deeper optional
 * dependencies follow `include.optionalDependencies` alone.
 */
export function includesImporterGroup (include: Readonly<Record<DependencyGroup, boolean>>, group: DependencyGroup): boolean {
  return group === 'optionalDependencies' ? include.optionalDependencies && include.dependencies : include[group]
}
