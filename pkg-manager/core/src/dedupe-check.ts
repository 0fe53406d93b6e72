import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { renderTextTree } from '@lode/pkg-manager.reviewing.inspection'

interface SnapshotChanges {
  added: string[]
  removed: string[]
  updated: Record<string, Record<string, { type: 'added', next: string } | { type: 'removed', prev: string } | { type: 'updated', prev: string, next: string }>>
}

/** `dedupe --check`: the projects' and packages' dependencies of both lockfiles compared, as pnpm compares them. */
export function dedupeCheck (before: Lockfile | undefined, after: Lockfile): void {
  const refs = (deps: Readonly<Record<string, { version: string }>> | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries(deps ?? {}).map(([alias, dep]) => [alias, dep.version]))
  const importerRefs = (lockfile: Lockfile | undefined): Record<string, Record<string, Record<string, string>>> =>
    Object.fromEntries(Object.entries(lockfile?.importers ?? {}).map(([id, importer]) =>
      [id, Object.fromEntries(DEPENDENCY_GROUPS.map((group) => [group, refs(importer[group])]))]))
  const packageRefs = (lockfile: Lockfile | undefined): Record<string, Record<string, Record<string, string>>> =>
    Object.fromEntries(Object.entries(lockfile?.snapshots ?? {}).map(([depPath, snapshot]) =>
      [depPath, { dependencies: snapshot.dependencies ?? {}, optionalDependencies: snapshot.optionalDependencies ?? {} }]))
  const importers = diffSnapshots(importerRefs(before), importerRefs(after))
  const packages = diffSnapshots(packageRefs(before), packageRefs(after))
  if (count(importers) + count(packages) === 0) return
  const sections = ([['Importers', importers], ['Packages', packages]] as const)
    .map(([title, changes]) => [title, renderChanges(changes)] as const)
    .filter(([, text]) => text !== '')
    .map(([title, text]) => `${title}\n${text}\n`)
  throw new LodeError('DEDUPE_CHECK_ISSUES', 'Dedupe --check found changes to the lockfile', {
    hint: `${sections.join('\n')}\nRun lode dedupe to apply the changes above.\n`,
  })
}

function count (changes: SnapshotChanges): number {
  return changes.added.length + changes.removed.length + Object.keys(changes.updated).length
}

function diffSnapshots (
  before: Readonly<Record<string, Record<string, Record<string, string>>>>,
  after: Readonly<Record<string, Record<string, Record<string, string>>>>
): SnapshotChanges {
  const removed: string[] = []
  const updated: SnapshotChanges['updated'] = {}
  for (const [id, prev] of Object.entries(before)) {
    const next = after[id]
    if (next === undefined) {
      removed.push(id)
      continue
    }
    const updates: SnapshotChanges['updated'][string] = {}
    for (const field of Object.keys(prev)) {
      const prevRefs = prev[field] ?? {}
      const nextRefs = next[field] ?? {}
      for (const [alias, ref] of Object.entries(prevRefs)) {
        const nextRef = nextRefs[alias]
        if (nextRef === ref) continue
        updates[alias] = nextRef === undefined ? { type: 'removed', prev: ref } : { type: 'updated', prev: ref, next: nextRef }
      }
      for (const [alias, ref] of Object.entries(nextRefs)) {
        if (prevRefs[alias] === undefined) updates[alias] = { type: 'added', next: ref }
      }
    }
    if (Object.keys(updates).length > 0) updated[id] = updates
  }
  const added = Object.keys(after).filter((id) => before[id] === undefined)
  return { added: added.sort(), removed: removed.sort(), updated }
}

/** pnpm's listing: each changed project or package as a tree of its changed dependencies, then `+ added`, `- removed`. */
function renderChanges (changes: SnapshotChanges): string {
  const byKey = <T>(record: Readonly<Record<string, T>>): Array<[string, T]> =>
    Object.entries(record).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
  return [
    ...byKey(changes.updated).map(([id, updates]) => renderTextTree({
      label: id,
      children: byKey(updates).map(([alias, change]) => ({
        label: change.type === 'added' ? `+ ${alias} ${change.next}` : change.type === 'removed' ? `- ${alias} ${change.prev}` : `${alias} ${change.prev} → ${change.next}`,
      })),
    })),
    ...changes.added.map((id) => `+ ${id}`),
    ...changes.removed.map((id) => `- ${id}`),
  ].join('\n')
}
