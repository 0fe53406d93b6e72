import fs from 'node:fs/promises'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS, MODULES_DIR } from '@lode/core.constants'
import { pkgIdOf, splitNameAt } from '@lode/core.dep-path'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { registryFor, registryTarballUrl } from '@lode/resolving.npm-resolver/registries'
import type { Registries } from '@lode/resolving.npm-resolver/registries'

import { buildDependencyGraph, nameAndVersion, serializeNodeId } from './dependency-graph.js'
import type { GraphEdge, GraphNode, NodeId } from './dependency-graph.js'
import { lexCompare, peersSuffixHash } from './dependents.js'
import { detailLines, installedLayout, installedLockfile, packageDetails, readManifestFields } from './installed.js'
import type { Details, PackageDetails } from './installed.js'
import { stringifyJson } from './output-text.js'
import { renderTextTree } from './text-tree.js'
import type { TextTreeNode } from './text-tree.js'

export interface ListOptions {
  lockfileDir: string
  /** The projects to list (absolute directories), in order. */
  projectDirs: readonly string[]
  include: Readonly<Record<DependencyGroup, boolean>>
  /** pnpm's setting: the root's dev dependencies provide optional peers for every project (see `peerSatisfactionEdges`). */
  resolvePeersFromWorkspaceRoot: boolean
  /** Levels below the projects' own dependencies (pnpm's `--depth`, 0 by default; -1 only the projects). */
  depth: number
  /** pnpm's recursive listing (a workspace from its root, or `-r`): a project without dependencies still prints its line at depth -1. */
  recursive: boolean
  lockfileOnly?: boolean | undefined
  /** The registries, for a registry package's tarball URL in `--json` (`resolved`). */
  registries: Registries
  format: 'text' | 'parseable' | 'json'
  /** pnpm's `--long`: each package's description, repository, homepage and directory too. */
  long?: boolean | undefined
  /** pnpm's `list <pattern>…` (see `createPackageSearch`): only the paths that lead to a package it matches. */
  search?: ((pkg: { alias: string, name: string, version: string }) => boolean) | undefined
}

/** One dependency as listed. */
interface ListedNode {
  alias: string
  name: string
  version: string
  path: string
  /** Where its tarball is (not for directories, git repositories and links). */
  resolved?: string | undefined
  isPeer: boolean
  isSkipped: boolean
  peersSuffixHash?: string | undefined
  deduped?: true
  /** The nodes its deduped subtree holds. */
  dedupedCount?: number
  dependencies?: ListedNode[]
}

interface ListedProject {
  name: string | undefined
  version: string | undefined
  private: boolean
  path: string
  groups: Partial<Record<DependencyGroup, ListedNode[]>>
  unsaved: ListedNode[]
}

/**
 * pnpm's `list`: each project's dependencies from what is installed (`node_modules/.pnpm/lock.yaml`,
 * else pnpm-lock.yaml), as pnpm 11 prints them: a tree per project under its dependency groups,
 * `--depth` levels deep, a subtree shown once (`[deduped]` after, across projects), then how many
 * packages were listed; or `--parseable`, one directory per line.
 */
export async function list (opts: ListOptions): Promise<string> {
  const lockfile = await installedLockfile(opts.lockfileDir, opts.lockfileOnly === true)
  const projects = await Promise.all(opts.projectDirs.map(async (dir): Promise<ListedProject> => {
    const manifest = await readManifestFields(dir)
    return {
      name: typeof manifest['name'] === 'string' ? manifest['name'] : undefined,
      version: typeof manifest['version'] === 'string' ? manifest['version'] : undefined,
      private: Boolean(manifest['private']),
      path: dir,
      groups: {},
      unsaved: [],
    }
  }))
  if (lockfile !== undefined && opts.depth !== -1) await listDependencies(projects, lockfile, opts)
  const details = opts.long === true ? await detailsOf(projects) : undefined
  if (opts.format === 'json') return renderJson(projects, details)
  return opts.format === 'parseable' ? renderParseable(projects, opts) : renderList(projects, opts, details)
}

async function listDependencies (projects: ListedProject[], lockfile: Lockfile, opts: ListOptions): Promise<void> {
  const importerIdOf = (dir: string): string => path.relative(opts.lockfileDir, dir).split(path.sep).join('/') || '.'
  const roots: NodeId[] = projects.map((project) => importerIdOf(project.path))
    .filter((importerId) => lockfile.importers[importerId] !== undefined)
    .map((importerId) => ({ type: 'importer', importerId }))
  const graph = buildDependencyGraph(lockfile, roots, opts)
  const { pathOf, skipped } = await installedLayout(opts.lockfileDir, { listing: true })
  const ctx: TreeContext = {
    graph, lockfile, lockfileDir: opts.lockfileDir, pathOf, skipped, registries: opts.registries,
    cache: new Map(), ancestors: new Set(), search: opts.search,
  }
  let rootEntries: ModulesEntry[] | undefined
  for (const project of projects) {
    const importerId = importerIdOf(project.path)
    const importer = lockfile.importers[importerId]
    if (importer === undefined) continue
    const groupOf = new Map<string, DependencyGroup>()
    for (const group of DEPENDENCY_GROUPS.filter((candidate) => opts.include[candidate])) {
      project.groups[group] = []
      for (const alias of Object.keys(importer[group] ?? {})) groupOf.set(alias, group)
    }
    const key = serializeNodeId({ type: 'importer', importerId })
    ctx.ancestors = new Set([key])
    for (const node of withoutCycles(children(key, opts.depth + 1, project.path, ctx).nodes)) {
      const group = groupOf.get(node.alias)
      if (group !== undefined) project.groups[group]!.push(node)
    }
    // A search lists no unsaved dependencies, as pnpm's.
    if (opts.search !== undefined) continue
    rootEntries ??= await modulesEntries(opts.lockfileDir)
    project.unsaved = unsavedDependencies(rootEntries, project.path, importer)
  }
}

interface TreeContext {
  graph: ReadonlyMap<string, GraphNode>
  lockfile: Lockfile
  lockfileDir: string
  pathOf: (depPath: string, name: string) => string
  skipped: ReadonlySet<string>
  registries: Registries
  /** Subtrees already listed, by node and levels left: listed again, they are `[deduped]` (pnpm's materialization cache); with a search, whether they held a match. */
  cache: Map<string, { count: number, matched: boolean }>
  ancestors: Set<string>
  search: ListOptions['search']
}

/**
 * A node's children, `levels` deep, and how many nodes they hold; edges in alias order, as pnpm
 * expands them. With a search, only the children on a path to a match stay (`matched`: any did).
 */
interface Subtree { nodes: ListedNode[], count: number, matched: boolean }

/**
 * Depth first on an explicit stack (a listing with `--depth Infinity` is as deep as the graph), in
 * the order a recursive walk takes: a frame waits on the subtree of the child it expands (`expanding`).
 */
function children (start: string, levels: number, projectDir: string, ctx: TreeContext): Subtree {
  interface Frame {
    levels: number
    edges: readonly GraphEdge[]
    next: number
    peers: ReadonlySet<string>
    linkBase: string
    subtree: Subtree
    expanding: { listed: ListedNode, target: string, cacheKey: string } | undefined
  }
  const frameOf = (key: string, levels: number): Frame => {
    const subtree: Subtree = { nodes: [], count: 0, matched: false }
    if (levels <= 0) return { levels, edges: [], next: 0, peers: new Set(), linkBase: '', subtree, expanding: undefined }
    const node = ctx.graph.get(key)!
    return {
      levels,
      edges: [...node.edges].sort((a, b) => lexCompare(a.alias, b.alias)),
      next: 0,
      peers: node.id.type === 'package' ? new Set(Object.keys(ctx.lockfile.packages?.[pkgIdOf(node.id.depPath)]?.peerDependencies ?? {})) : new Set<string>(),
      linkBase: node.id.type === 'importer' ? path.join(ctx.lockfileDir, node.id.importerId) : ctx.lockfileDir,
      subtree,
      expanding: undefined,
    }
  }
  // A listed child, with what is below it, joins its parent's subtree (unless a search finds nothing there).
  const add = ({ subtree }: Frame, listed: ListedNode, below: { count: number, matched: boolean }): void => {
    const isMatch = ctx.search?.({ alias: listed.alias, name: listed.name, version: listed.version }) === true
    if (ctx.search !== undefined && !isMatch && !below.matched) return
    subtree.matched ||= isMatch || below.matched
    if (listed.dependencies !== undefined) subtree.count += below.count
    subtree.nodes.push(listed)
    subtree.count += 1
  }
  const frames = [frameOf(start, levels)]
  for (;;) {
    const frame = frames.at(-1)!
    const edge = frame.edges[frame.next++]
    if (edge === undefined) {
      frames.pop()
      const parent = frames.at(-1)
      if (parent === undefined) return frame.subtree
      const { listed, target, cacheKey } = parent.expanding!
      parent.expanding = undefined
      ctx.ancestors.delete(target)
      const below = { count: frame.subtree.count, matched: frame.subtree.matched }
      ctx.cache.set(cacheKey, below)
      if (frame.subtree.nodes.length > 0) listed.dependencies = frame.subtree.nodes
      add(parent, listed, below)
      continue
    }
    const listed = listedNode(edge.alias, edge.ref, edge.target, { peers: frame.peers, linkBase: frame.linkBase, projectDir, ctx })
    if (edge.target === undefined || ctx.ancestors.has(edge.target)) {
      add(frame, listed, { count: 0, matched: false })
      continue
    }
    const cacheKey = frame.levels - 1 === Infinity ? edge.target : `${edge.target}@d${frame.levels - 1}`
    const cached = ctx.cache.get(cacheKey)
    if (cached !== undefined) {
      if (cached.count > 0) {
        listed.deduped = true
        listed.dedupedCount = cached.count
      }
      add(frame, listed, cached)
      continue
    }
    ctx.ancestors.add(edge.target)
    frame.expanding = { listed, target: edge.target, cacheKey }
    frames.push(frameOf(edge.target, frame.levels - 1))
  }
}

function listedNode (
  alias: string,
  ref: string,
  target: string | undefined,
  where: { peers: ReadonlySet<string>, linkBase: string, projectDir: string, ctx: TreeContext }
): ListedNode {
  const { ctx } = where
  const isPeer = where.peers.has(alias)
  if (ref.startsWith('link:')) {
    const dir = path.join(where.linkBase, ref.slice('link:'.length))
    return { alias, name: alias, version: `link:${path.relative(where.projectDir, dir).split(path.sep).join('/')}`, path: dir, isPeer, isSkipped: false }
  }
  const id = target === undefined ? undefined : ctx.graph.get(target)?.id
  const depPath = id?.type === 'package' ? id.depPath : undefined
  if (depPath === undefined) return { alias, name: alias, version: ref, path: '', isPeer, isSkipped: false }
  const installed = ctx.lockfile.snapshots?.[depPath] !== undefined
  const { name, version } = installed ? nameAndVersion(ctx.lockfile, depPath) : { name: alias, version: '' }
  return {
    alias,
    name,
    version: version === '' ? ref : version,
    path: ctx.pathOf(depPath, name),
    resolved: installed ? tarballOf(depPath, name, version, ctx) : undefined,
    isPeer,
    isSkipped: !installed && ctx.skipped.has(depPath),
    peersSuffixHash: peersSuffixHash(depPath),
  }
}

/**
 * A package's tarball as `list --json` reports it: a `file:` tarball or a URL as the lockfile has
 * it, else the registry's URL for its name and version (from the configured registry, where pnpm 11
 * names the public one whatever is configured); none for a directory or a git repository.
 */
function tarballOf (depPath: string, name: string, version: string, ctx: TreeContext): string | undefined {
  type TarballFields = { type?: unknown, tarball?: unknown, gitHosted?: unknown }
  const resolution = ctx.lockfile.packages?.[pkgIdOf(depPath)]?.resolution as TarballFields | undefined
  if (resolution === undefined) return undefined
  const tarball = typeof resolution.tarball === 'string' ? resolution.tarball : undefined
  if (resolution.type !== undefined || tarball?.startsWith('file:') === true || resolution.gitHosted === true) return tarball
  const { rest } = splitNameAt(pkgIdOf(depPath))
  if (rest?.startsWith('file:') === true) return rest
  const registry = registryFor(ctx.registries, name)
  return tarball === undefined ? registryTarballUrl(registry, name, version.replace(/\+.*$/, '')) : new URL(tarball, registry).toString()
}

/**
 * A node that is its own ancestor (by directory) loses its subtree and its dedupe mark (pnpm's
 * fixCircularRefs). Depth first on an explicit stack: a frame waits on the copy of the subtree of
 * the node it opened.
 */
function withoutCycles (top: readonly ListedNode[]): ListedNode[] {
  const ancestors = new Set<string>()
  interface Frame { nodes: readonly ListedNode[], next: number, out: ListedNode[], opened: ListedNode | undefined }
  const frames: Frame[] = [{ nodes: top, next: 0, out: [], opened: undefined }]
  for (;;) {
    const frame = frames.at(-1)!
    const node = frame.nodes[frame.next++]
    if (node === undefined) {
      frames.pop()
      const parent = frames.at(-1)
      if (parent === undefined) return frame.out
      const opened = parent.opened!
      parent.opened = undefined
      ancestors.delete(opened.path)
      parent.out.push({ ...opened, dependencies: frame.out })
      continue
    }
    if (node.path !== '' && ancestors.has(node.path)) {
      const { dependencies: _dependencies, deduped: _deduped, dedupedCount: _count, ...rest } = node
      frame.out.push(rest)
      continue
    }
    if (node.dependencies === undefined) {
      frame.out.push(node)
      continue
    }
    ancestors.add(node.path)
    frame.opened = node
    frames.push({ nodes: node.dependencies, next: 0, out: [], opened: undefined })
  }
}

/** Every node of the trees, depth first, each before its dependencies (an explicit stack: a listing is as deep as the graph). */
function * eachNode (nodes: readonly ListedNode[]): Generator<ListedNode> {
  const stack = [nodes.values()]
  while (stack.length > 0) {
    const next = stack.at(-1)!.next()
    if (next.done === true) {
      stack.pop()
      continue
    }
    yield next.value
    if (next.value.dependencies !== undefined) stack.push(next.value.dependencies.values())
  }
}

/**
 * pnpm's unsaved dependencies: what the workspace root's node_modules has that the project's lockfile
 * entry does not name (pnpm reads the root's for every project). Listed by `--parseable` only.
 */
function unsavedDependencies (entries: readonly ModulesEntry[], projectDir: string, importer: Lockfile['importers'][string]): ListedNode[] {
  const saved = new Set(DEPENDENCY_GROUPS.flatMap((group) => Object.keys(importer[group] ?? {})))
  return entries.filter((entry) => !saved.has(entry.name)).map((entry) => ({
    alias: entry.name,
    name: entry.name,
    version: entry.linkTarget === undefined ? entry.version : `link:${path.relative(projectDir, entry.linkTarget).split(path.sep).join('/')}`,
    path: entry.linkTarget ?? entry.dir,
    isPeer: false,
    isSkipped: false,
  }))
}

/** An entry of the root's node_modules: a symlink's target, else its package.json's version. */
interface ModulesEntry {
  name: string
  dir: string
  linkTarget: string | undefined
  version: string
}

/**
 * The root's node_modules entries, read once per listing: its own, then each scope's (files and
 * dot-entries aside, as pnpm reads them). pnpm lists them in the order its reads finish; `--json`
 * lists them by name.
 */
async function modulesEntries (lockfileDir: string): Promise<ModulesEntry[]> {
  const modulesDir = path.join(lockfileDir, MODULES_DIR)
  const listed = (dir: string): Promise<Array<{ name: string, isFile: boolean }>> => fs.readdir(dir, { withFileTypes: true })
    .then((entries) => entries.map((entry) => ({ name: entry.name, isFile: entry.isFile() })), () => [])
  const entries = (await listed(modulesDir)).filter((entry) => !entry.isFile && !entry.name.startsWith('.'))
  const scoped = await Promise.all(entries.filter((entry) => entry.name.startsWith('@')).map(async (scope) =>
    (await listed(path.join(modulesDir, scope.name))).filter((entry) => !entry.isFile && !entry.name.startsWith('.')).map((entry) => `${scope.name}/${entry.name}`)))
  const names = [...entries.filter((entry) => !entry.name.startsWith('@')).map((entry) => entry.name), ...scoped.flat()]
  return await Promise.all(names.map(async (name): Promise<ModulesEntry> => {
    const dir = path.join(modulesDir, name)
    const linked = (await fs.lstat(dir).catch(() => undefined))?.isSymbolicLink() === true
    return {
      name,
      dir,
      linkTarget: linked ? await fs.realpath(dir).catch(() => dir) : undefined,
      version: linked ? '' : String((await readManifestFields(dir))['version']),
    }
  }))
}

/** `--long`: every listed package's details, read once per directory. */
async function detailsOf (projects: readonly ListedProject[]): Promise<Map<string, PackageDetails>> {
  const dirs = new Set<string>()
  for (const project of projects) {
    for (const group of DEPENDENCY_GROUPS) for (const node of eachNode(project.groups[group] ?? [])) dirs.add(node.path)
    for (const node of eachNode(project.unsaved)) dirs.add(node.path)
  }
  return new Map(await Promise.all([...dirs].map(async (dir) => [dir, await packageDetails(dir)] as const)))
}

function renderList (projects: readonly ListedProject[], opts: ListOptions, details: Details): string {
  const variants = peerVariants(projects)
  const blocks = projects.flatMap((project) => {
    const groups = DEPENDENCY_GROUPS.flatMap((group) => {
      const nodes = project.groups[group] ?? []
      return nodes.length === 0 ? [] : [{ group: `${group}:`, nodes: textNodes(nodes, variants, details) }]
    })
    if (groups.length === 0 && !(opts.recursive && opts.depth === -1)) return []
    const label = `${project.name === undefined ? '' : `${nameAtVersion(project.name, project.version ?? '')} `}${project.path}${project.private ? ' (PRIVATE)' : ''}`
    return [groups.length === 0 ? label : renderTextTree({ label, children: groups }).trimEnd()]
  })
  const output = blocks.join('\n\n')
  if (opts.depth <= -1 || output === '') return output
  let total = 0
  for (const project of projects) for (const group of DEPENDENCY_GROUPS) for (const _ of eachNode(project.groups[group] ?? [])) total++
  const summary = `${total} package${total === 1 ? '' : 's'}${projects.length > 1 ? ` in ${projects.length} projects` : ''}`
  return `Legend: production dependency, optional only, dev only\n\n${output}\n\n${summary}`
}

/** The listed trees as text trees, level by level (a listing is as deep as the graph): each node's children are filled when their level is. */
function textNodes (top: readonly ListedNode[], variants: ReadonlyMap<string, number>, details: Details): TextTreeNode[] {
  const roots: TextTreeNode[] = []
  const pending = [{ nodes: top, into: roots }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const node of [...next.nodes].sort((a, b) => lexCompare(a.name, b.name))) {
      let label = node.alias === node.name
        ? nameAtVersion(node.name, node.version)
        : node.version.includes('@') ? `${node.alias}@${node.version}` : `${node.alias}@npm:${node.name}@${node.version}`
      if (node.isPeer) label += ' peer'
      if (node.isSkipped) label += ' skipped'
      const variantCount = node.peersSuffixHash === undefined ? undefined : variants.get(`${node.name}@${node.version}`)
      if (variantCount !== undefined) label += ` peer#${node.peersSuffixHash} (${variantCount} variation${variantCount === 1 ? '' : 's'})`
      if (node.deduped === true) label += ' [deduped]'
      const lines = details === undefined ? [label] : [label, ...detailLines(details.get(node.path)), ...node.path === '' ? [] : [node.path]]
      const children: TextTreeNode[] = []
      next.into.push({ label: lines.join('\n'), children })
      if (node.deduped !== true) pending.push({ nodes: node.dependencies ?? [], into: children })
    }
  }
  return roots
}

/** `name@version` → its peer variants, for the ones listed with more than one. */
function peerVariants (projects: readonly ListedProject[]): Map<string, number> {
  const hashes = new Map<string, Set<string>>()
  for (const project of projects) {
    for (const group of DEPENDENCY_GROUPS) {
      for (const node of eachNode(project.groups[group] ?? [])) {
        if (node.peersSuffixHash === undefined) continue
        const key = `${node.name}@${node.version}`
        hashes.set(key, (hashes.get(key) ?? new Set()).add(node.peersSuffixHash))
      }
    }
  }
  return new Map([...hashes].filter(([, set]) => set.size > 1).map(([key, set]) => [key, set.size]))
}

/**
 * `--parseable`: each project's directory, then the directories of its dependencies not printed
 * yet (across projects), sorted by name; a project already printed as a dependency loses its line.
 */
function renderParseable (projects: readonly ListedProject[], opts: ListOptions): string {
  const seen = new Set<string>()
  const lines = projects.map((project) => {
    const rootSeen = seen.has(project.path)
    seen.add(project.path)
    const { optionalDependencies = [], dependencies = [], devDependencies = [] } = project.groups
    const all = [...optionalDependencies, ...dependencies, ...devDependencies, ...project.unsaved]
    const found: ListedNode[] = []
    for (const node of eachNode(all)) {
      if (seen.has(node.path)) continue
      seen.add(node.path)
      found.push(node)
    }
    found.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    if (rootSeen && found.length === 0) return ''
    if (!(opts.recursive && opts.depth === -1) && found.length === 0 && all.length === 0) return ''
    if (opts.long !== true) return [...rootSeen ? [] : [project.path], ...found.map((node) => node.path)].join('\n')
    const projectLine = project.name === undefined
      ? project.path
      : `${project.path}:${project.name}${project.version === undefined ? '' : `@${project.version}`}${project.private ? ':PRIVATE' : ''}`
    return [...rootSeen ? [] : [projectLine], ...found.map(longParseableLine)].join('\n')
  })
  return lines.filter((block) => block !== '').join('\n')
}

/** `--parseable --long`: a package's directory and what it is installed as. */
function longParseableLine (node: ListedNode): string {
  if (node.alias !== node.name) return node.version.includes('@') ? `${node.path}:${node.alias} ${node.version}` : `${node.path}:${node.alias} npm:${node.name}@${node.version}`
  return node.version.includes('@') ? `${node.path}:${node.version}` : `${node.path}:${node.name}@${node.version}`
}

function nameAtVersion (name: string, version: string): string {
  return version === '' ? name : `${name}@${version}`
}

/**
 * `--json`: every project (name, version, path, private), then each dependency group and the
 * root's other node_modules entries (`unsavedDependencies`) keyed by alias. Siblings come in
 * pnpm's order: by alias, then the shallower subtrees first. A search lists no unsaved ones.
 */
function renderJson (projects: readonly ListedProject[], details: Details): string {
  const heights = heightsOf(projects.flatMap((project) => [
    ...DEPENDENCY_GROUPS.flatMap((group) => project.groups[group] ?? []),
    ...project.unsaved,
  ]))
  return stringifyJson(projects.map((project) => {
    const groups = [...DEPENDENCY_GROUPS.map((group) => [group, project.groups[group] ?? []] as const), ['unsavedDependencies', project.unsaved] as const]
    return {
      name: project.name,
      version: project.version,
      path: project.path,
      private: project.private,
      ...Object.fromEntries(groups.filter(([, nodes]) => nodes.length > 0)
        .map(([group, nodes]) => [group, jsonNodes(nodes, heights, details)])),
    }
  }), '`lode list --json`')
}

interface JsonNode extends Partial<Record<'description' | 'license' | 'author' | 'homepage' | 'repository', unknown>> {
  from: string
  version: string
  resolved?: string
  path: string
  dependencies?: Record<string, JsonNode>
  deduped?: true
  dedupedDependenciesCount?: number
}

/**
 * Siblings keyed by alias, level by level (a listing is as deep as the graph): a node's
 * `dependencies` holds its place among its keys until its level is done.
 */
function jsonNodes (top: readonly ListedNode[], heights: ReadonlyMap<ListedNode, number>, details: Details): Record<string, JsonNode> {
  let root: Record<string, JsonNode> = {}
  const pending: Array<{ nodes: readonly ListedNode[], parent: JsonNode | undefined }> = [{ nodes: top, parent: undefined }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const byAlias = [...next.nodes].sort((a, b) => a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0)
    const ordered = byAlias.map((node, index) => ({ node, index, height: heights.get(node)! }))
      .sort((a, b) => a.height - b.height || a.index - b.index)
    const record = Object.fromEntries(ordered.map(({ node }) => {
      const resolved = node.resolved === undefined ? {} : { resolved: node.resolved }
      const more = details?.get(node.path)
      const long = more === undefined ? {} : {
        description: more.description, license: more.license, author: more.author, homepage: more.homepage, repository: more.repository,
      }
      const json: JsonNode = { from: node.name, version: node.version, ...resolved, ...long, path: node.path }
      if ((node.dependencies ?? []).length > 0) {
        json.dependencies = {}
        pending.push({ nodes: node.dependencies!, parent: json })
      }
      if (node.deduped === true) {
        json.deduped = true
        if (node.dedupedCount !== undefined) json.dedupedDependenciesCount = node.dedupedCount
      }
      return [node.alias, json]
    }))
    if (next.parent === undefined) root = record
    else next.parent.dependencies = record
  }
  return root
}

/** Each node's height (its longest path down), from the leaves up on an explicit stack. */
function heightsOf (top: readonly ListedNode[]): Map<ListedNode, number> {
  const heights = new Map<ListedNode, number>()
  const stack = top.map((node) => ({ node, opened: false }))
  while (stack.length > 0) {
    const entry = stack.at(-1)!
    const below = entry.node.dependencies ?? []
    if (!entry.opened) {
      entry.opened = true
      for (const child of below) stack.push({ node: child, opened: false })
      continue
    }
    stack.pop()
    heights.set(entry.node, below.reduce((height, child) => Math.max(height, heights.get(child)! + 1), 0))
  }
  return heights
}
