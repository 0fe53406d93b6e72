import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { buildDependencyGraph } from './dependency-graph.js'
import type { NodeId } from './dependency-graph.js'
import { dependentsTrees } from './dependents.js'
import type { DependentNode, DependentsTree } from './dependents.js'
import { detailLines, installedLayout, installedLockfile, packageDetails, readManifestFields } from './installed.js'
import type { Details } from './installed.js'
import { stringifyJson } from './output-text.js'
import { createPackageSearch } from './package-search.js'
import { renderTextTree } from './text-tree.js'
import type { TextTreeNode } from './text-tree.js'

export interface WhyOptions {
  /** Names, name patterns (`babel-*`, `@types/*`) or `name@<version or range>`. */
  queries: readonly string[]
  /** The directory of the lockfile (the workspace's root). */
  lockfileDir: string
  /** The projects whose dependencies are searched (absolute directories): every project of a workspace, as pnpm. */
  projectDirs: readonly string[]
  include: Readonly<Record<DependencyGroup, boolean>>
  /** pnpm's setting: the root's dev dependencies provide optional peers for every project (see `peerSatisfactionEdges`). */
  resolvePeersFromWorkspaceRoot: boolean
  /** How many levels of dependents to show (pnpm's `--depth`; all by default). */
  depth?: number | undefined
  format: 'text' | 'json' | 'parseable'
  /** pnpm's `--long`: each package's description, repository, homepage and directory too (its directory in `--parseable`). */
  long?: boolean | undefined
}

/**
 * pnpm's `why`: every package matching the queries, with the packages that depend on it up to the
 * projects, as a tree, JSON or one `project > … > package` line per path; rendered as pnpm 11
 * renders them. Reads what is installed (`node_modules/.pnpm/lock.yaml`), else pnpm-lock.yaml;
 * without either, an empty string.
 */
export async function why (opts: WhyOptions): Promise<string> {
  if (opts.queries.length === 0) {
    throw new LodeError('MISSING_PACKAGE_NAME', '`lode why` requires the package name.', { hint: 'For example: lode why react, or lode why "@babel/*".' })
  }
  const matches = createPackageSearch(opts.queries)
  const lockfile = await installedLockfile(opts.lockfileDir, false)
  if (lockfile === undefined) return ''
  const roots: NodeId[] = opts.projectDirs
    .map((dir) => path.relative(opts.lockfileDir, dir).split(path.sep).join('/') || '.')
    .filter((importerId) => lockfile.importers[importerId] !== undefined)
    .map((importerId) => ({ type: 'importer', importerId }))
  const graph = buildDependencyGraph(lockfile, roots, opts)
  const trees = dependentsTrees(graph, lockfile, {
    matches,
    projects: await projectNames(lockfile, opts.lockfileDir),
    pathOf: (await installedLayout(opts.lockfileDir, { listing: false })).pathOf,
  })
  const details = opts.long === true && opts.format !== 'parseable'
    ? new Map(await Promise.all(trees.map(async (tree) => [tree.path, await packageDetails(tree.path)] as const)))
    : undefined
  if (opts.format === 'json') {
    return stringifyJson(trees.map((tree) => {
      const shown = opts.depth === undefined ? tree : { ...tree, dependents: truncated(tree.dependents, opts.depth) }
      const more = details?.get(tree.path)
      return more === undefined ? shown : { ...shown, description: more.description, repository: more.repository, homepage: more.homepage }
    }), '`lode why --json`')
  }
  if (opts.format === 'parseable') {
    return trees.flatMap((tree) => pathLines(tree.dependents, `${opts.long === true ? `${tree.path}:` : ''}${nameAtVersion(tree)}`, opts.depth)).join('\n')
  }
  return renderWhy(trees, opts.depth, details)
}

/** The trees as text, each block apart, then pnpm's summary (`Found 2 versions of foo`). */
function renderWhy (trees: readonly DependentsTree[], depth: number | undefined, details: Details): string {
  if (trees.length === 0) return ''
  const variants = peerVariants(trees)
  const label = (pkg: { name: string, version: string, peersSuffixHash?: string | undefined }): string => {
    const count = pkg.peersSuffixHash === undefined ? undefined : variants.get(nameAtVersion(pkg))
    return `${nameAtVersion(pkg)}${count === undefined ? '' : ` peer#${pkg.peersSuffixHash} (${count} variation${count === 1 ? '' : 's'})`}`
  }
  // Built level by level (a tree is as deep as the graph): each node's children are filled when its level is.
  const nodes = (top: readonly DependentNode[]): TextTreeNode[] => {
    const roots: TextTreeNode[] = []
    const pending = [{ dependents: top, into: roots, level: 1 }]
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const { dependents, into, level } = next
      for (const dependent of dependents) {
        const children: TextTreeNode[] = []
        into.push({
          label: `${dependent.depField === undefined ? label(dependent) : `${nameAtVersion(dependent)} (${dependent.depField})`}`
            + `${dependent.circular === true ? ' [circular]' : ''}${dependent.deduped === true ? ' [deduped]' : ''}`,
          children,
        })
        if (dependent.dependents === undefined || (depth !== undefined && level >= depth)) continue
        pending.push({ dependents: dependent.dependents, into: children, level: level + 1 })
      }
    }
    return roots
  }
  const rootLabel = (tree: DependentsTree): string => details === undefined
    ? label(tree)
    : [label(tree), ...detailLines(details.get(tree.path)), tree.path].join('\n')
  const blocks = trees.map((tree) => tree.dependents.length === 0
    ? rootLabel(tree)
    : renderTextTree({ label: rootLabel(tree), children: nodes(tree.dependents) }).replace(/\n+$/, ''))
  const found = new Map<string, { versions: Set<string>, count: number }>()
  for (const tree of trees) {
    const entry = found.get(tree.name) ?? { versions: new Set<string>(), count: 0 }
    entry.versions.add(tree.version)
    entry.count++
    found.set(tree.name, entry)
  }
  const summary = [...found].map(([name, { versions, count }]) =>
    `Found ${versions.size} version${versions.size === 1 ? '' : 's'}${count > versions.size ? `, ${count} instances` : ''} of ${name}`)
  return `${blocks.join('\n\n')}\n\n${summary.join('\n')}`
}

/** `name@version` → how many peer variants of it the output shows, for the ones shown in more than one. */
function peerVariants (trees: readonly DependentsTree[]): Map<string, number> {
  const hashes = new Map<string, Set<string>>()
  const pending: Array<DependentNode | DependentsTree> = [...trees]
  for (let pkg = pending.pop(); pkg !== undefined; pkg = pending.pop()) {
    if (pkg.peersSuffixHash !== undefined) {
      const key = nameAtVersion(pkg)
      hashes.set(key, (hashes.get(key) ?? new Set()).add(pkg.peersSuffixHash))
    }
    pending.push(...pkg.dependents ?? [])
  }
  return new Map([...hashes].filter(([, set]) => set.size > 1).map(([key, set]) => [key, set.size]))
}

/** `--depth` in JSON: dependents below the limit lose their own (level by level: a tree is as deep as the graph). */
function truncated (top: readonly DependentNode[], depth: number): DependentNode[] {
  const roots: DependentNode[] = []
  const pending = [{ dependents: top, into: roots, level: 1 }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { dependents, into, level } = next
    for (const { dependents: above, ...rest } of dependents) {
      if (above === undefined || level >= depth) {
        into.push(rest)
        continue
      }
      const kept: DependentNode[] = []
      into.push({ ...rest, dependents: kept })
      pending.push({ dependents: above, into: kept, level: level + 1 })
    }
  }
  return roots
}

/**
 * `--parseable`: a line per path, from the project (or where the path stops) down to the package
 * (`start`), depth first on an explicit stack: a path is as long as the graph is deep.
 */
function pathLines (top: readonly DependentNode[], start: string, depth: number | undefined): string[] {
  const lines: string[] = []
  // The names from the package up to the dependent being looked at; a frame per level above the package.
  const chain = [start]
  const frames = [{ dependents: top, next: 0 }]
  while (frames.length > 0) {
    const frame = frames.at(-1)!
    const dependent = frame.dependents[frame.next++]
    if (dependent === undefined) {
      frames.pop()
      if (frames.length > 0) chain.pop()
      continue
    }
    chain.push(nameAtVersion(dependent))
    if (dependent.dependents !== undefined && dependent.dependents.length > 0 && (depth === undefined || frames.length < depth)) {
      frames.push({ dependents: dependent.dependents, next: 0 })
    } else {
      lines.push([...chain].reverse().join(' > '))
      chain.pop()
    }
  }
  return lines
}

function nameAtVersion (pkg: { name: string, version: string }): string {
  return pkg.version === '' ? pkg.name : `${pkg.name}@${pkg.version}`
}

/** Each project of the lockfile as `why` names it: its package.json's name and version (pnpm's words for a root without a name). */
async function projectNames (lockfile: Lockfile, lockfileDir: string): Promise<Map<string, { name: string, version: string }>> {
  return new Map(await Promise.all(Object.keys(lockfile.importers).map(async (importerId) => {
    const manifest = await readManifestFields(path.join(lockfileDir, importerId))
    const name = typeof manifest['name'] === 'string' ? manifest['name'] : importerId === '.' ? 'the root project' : importerId
    return [importerId, { name, version: typeof manifest['version'] === 'string' ? manifest['version'] : '' }] as const
  })))
}
