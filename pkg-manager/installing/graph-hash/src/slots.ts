import path from 'node:path'

import { LodeError } from '@lode/core.error'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { hashObject, hashObjectWithoutSorting } from './object-hash.js'
import type { HashedValue } from './object-hash.js'

export interface SlotOptions {
  /** The workspace root, absolute: `link:` children and directory packages hash with it. */
  lockfileDir: string
  /** pnpm's `allowBuild(depPath)` (from `allowBuilds`); only `true` puts the engine into a hash. */
  allowBuild: (depPath: string) => boolean | undefined
  /** The running Node.js version (`v24.1.0`); a node runtime the lockfile pins wins over it. */
  nodeVersion: string
  platform: string
  arch: string
}

/** A package's slot in the global virtual store, relative to the links dir (`/`-separated). */
export interface Slot {
  name: string
  /** `@/is-odd/3.0.1/<hex>`, `@scope/name/1.0.0/<hex>`, `@/b/directory/<hex>`. */
  path: string
}

interface Node {
  /** alias → child id (a dependency path, or `link:<absolute dir>`). */
  children: Record<string, string>
  fullPkgId: string
}

// pnpm's `link:<root>/…` children (`packageRootLinkTarget`) are left out of every hash.
const PACKAGE_ROOT_LINK = 'link:<root>/'

/**
 * pnpm 11's slot of each snapshot of `lockfile` (`@pnpm/deps.graph-hasher`: `lockfileToDepGraph`,
 * `calcDepGraphHash`, `calcGraphNodeHash`, `formatGlobalVirtualStorePath`), computed when first
 * asked for and kept: only the packages an install lays out are hashed, with what they reach.
 */
export function createSlotResolver (lockfile: Lockfile, opts: SlotOptions): (depPath: string) => Slot {
  const graph = dependencyGraph(lockfile, opts.lockfileDir)
  const hashes = new Map<string, string>()
  let buildRequired: Set<string> | undefined
  const rootPin = runtimePin(lockfile.importers['.']?.dependencies?.['node']?.version ?? lockfile.importers['.']?.devDependencies?.['node']?.version)
  const slots = new Map<string, Slot>()
  return (depPath) => {
    const known = slots.get(depPath)
    if (known !== undefined) return known
    buildRequired ??= buildRequiredDepPaths(graph, opts.allowBuild)
    const node = graph.get(depPath)
    const snapshot = lockfile.snapshots?.[depPath]
    if (node === undefined || snapshot === undefined) throw new Error(`The lockfile has no snapshot for ${depPath}`)
    const { name, version } = nameAndVersion(depPath, lockfile)
    const engine = buildRequired.has(depPath)
      ? engineName(runtimePin(node.children['node']?.replace(/^node@/, '')) ?? rootPin ?? opts.nodeVersion, opts)
      : null
    const deps = graphHash(graph, hashes, depPath)
    const directory = isDirectory(lockfile, depPath)
    const hex = hashObjectWithoutSorting(directory ? { engine, deps, project: opts.lockfileDir } : { engine, deps })
    const slot = { name, path: `${name.startsWith('@') ? '' : '@/'}${name}/${directory ? 'directory' : checkedVersion(version, depPath)}/${hex}` }
    slots.set(depPath, slot)
    return slot
  }
}

/** pnpm's `engineName`: `linux;x64;node24`. */
export function engineName (nodeVersion: string, opts: { platform: string, arch: string }): string {
  const major = (nodeVersion.startsWith('v') ? nodeVersion.slice(1) : nodeVersion).split('.')[0]!
  return `${opts.platform};${opts.arch};node${major}`
}

/** `runtime:24.1.0` (a lockfile's node runtime pin) → `24.1.0`. */
function runtimePin (ref: string | undefined): string | undefined {
  return ref?.startsWith('runtime:') === true ? ref.slice('runtime:'.length) : undefined
}

/** A version that becomes a directory name: pnpm refuses one with a `..` segment (ERR_PNPM_INVALID_DEPENDENCY_NAME). */
function checkedVersion (version: string, depPath: string): string {
  if (version === '' || path.isAbsolute(version) || version.split(/[\\/]/).some((segment) => segment === '..' || segment === '.' || segment === '')) {
    throw new LodeError('INVALID_DEPENDENCY_NAME', `The version of ${depPath} in the lockfile (${JSON.stringify(version)}) cannot be a directory name in the global virtual store.`, {
      hint: 'Check pnpm-lock.yaml: a version is not a path. Remove the entry and install again.',
    })
  }
  return version
}

function isDirectory (lockfile: Lockfile, depPath: string): boolean {
  const resolution = lockfile.packages?.[pkgIdOf(depPath)]?.resolution as Record<string, unknown> | undefined
  return resolution?.['type'] === 'directory'
}

/** `nameVerFromPkgSnapshot`: the name from the dependency path, the version from the package entry or the path. */
function nameAndVersion (depPath: string, lockfile: Lockfile): { name: string, version: string } {
  const at = depPath.indexOf('@', 1)
  const name = depPath.slice(0, at)
  const recorded = lockfile.packages?.[pkgIdOf(depPath)]?.version
  if (typeof recorded === 'string') return { name, version: recorded }
  let version = depPath.slice(at + 1)
  const paren = version.indexOf('(')
  if (paren !== -1) version = version.slice(0, paren)
  // A registry-qualified version (`reg:1.2.3`) is its plain version.
  const colon = version.lastIndexOf(':')
  return { name, version: colon === -1 ? version : version.slice(colon + 1) }
}

/**
 * Where a dependency path's peer suffix starts, as pnpm reads it: a `(patch_hash=…)` part stays
 * with the id (`indexOfDepPathSuffix`), unlike lode's `withoutPeersSuffix` (which gives the `packages` key).
 */
function indexOfPeersSuffix (depPath: string): number {
  if (!depPath.endsWith(')')) return -1
  let open = 1
  for (let i = depPath.length - 2; i >= 0; i--) {
    if (depPath[i] === '(') open--
    else if (depPath[i] === ')') open++
    else if (open === 0) {
      if (depPath.slice(i + 1).startsWith('(patch_hash=')) return depPath.indexOf('(', i + 2)
      return i + 1
    }
  }
  return -1
}

/** pnpm's `getPkgIdWithPatchHash`: the dependency path without its peers, with its patch hash. */
function pkgIdWithPatchHash (depPath: string): string {
  const index = indexOfPeersSuffix(depPath)
  return index === -1 ? depPath : depPath.slice(0, index)
}

/** The `packages` key: without peers and patch hash. */
function pkgIdOf (depPath: string): string {
  return pkgIdWithPatchHash(depPath).replace(/\(patch_hash=[^)]*\)$/, '')
}

/** pnpm's `refToRelative`: a snapshot's reference as the dependency path it points at; null for `link:`. */
function refToRelative (ref: string, alias: string): string | null {
  if (ref.startsWith('link:')) return null
  if (ref.startsWith('@')) return ref
  const at = ref.indexOf('@')
  if (at === -1) return `${alias}@${ref}`
  const colon = ref.indexOf(':')
  const bracket = ref.indexOf('(')
  return (colon === -1 || at < colon) && (bracket === -1 || at < bracket) ? ref : `${alias}@${ref}`
}

/** pnpm's `lockfileToDepGraph`: a node per snapshot (children and id with integrity), and a leaf per `link:` target. */
function dependencyGraph (lockfile: Lockfile, lockfileDir: string): Map<string, Node> {
  const graph = new Map<string, Node>()
  for (const [depPath, snapshot] of Object.entries(lockfile.snapshots ?? {})) {
    const children: Record<string, string> = {}
    for (const [alias, ref] of Object.entries({ ...snapshot.dependencies, ...snapshot.optionalDependencies })) {
      const child = refToRelative(ref, alias)
      if (child !== null) {
        children[alias] = child
      } else if (!ref.startsWith(PACKAGE_ROOT_LINK)) {
        const target = `link:${path.resolve(lockfileDir, ref.slice('link:'.length))}`
        children[alias] = target
        graph.set(target, { children: {}, fullPkgId: target })
      }
    }
    const id = pkgIdWithPatchHash(depPath)
    const resolution = (lockfile.packages?.[pkgIdOf(depPath)]?.resolution ?? {}) as Record<string, unknown>
    graph.set(depPath, { children, fullPkgId: `${id}:${typeof resolution['integrity'] === 'string' ? resolution['integrity'] : hashObject(toHashed(resolution))}` })
  }
  return graph
}

/** A resolution (from YAML: strings, numbers, nested maps) as object-hash sees it. */
function toHashed (value: unknown): HashedValue {
  if (value === null || value === undefined) return null
  if (typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, toHashed(v)]))
  }
  if (typeof value === 'string') return value
  throw new Error(`Unexpected ${typeof value} in a lockfile resolution`)
}

/** pnpm's `computeBuildRequiredDepPaths`: the packages allowed to build, and every package that reaches one. */
function buildRequiredDepPaths (graph: ReadonlyMap<string, Node>, allowBuild: SlotOptions['allowBuild']): Set<string> {
  const required = new Set<string>()
  for (const depPath of graph.keys()) if (!depPath.startsWith('link:') && allowBuild(depPath) === true) required.add(depPath)
  if (required.size === 0) return required
  const parents = new Map<string, string[]>()
  for (const [depPath, node] of graph) {
    for (const child of Object.values(node.children)) {
      const list = parents.get(child)
      if (list === undefined) parents.set(child, [depPath])
      else list.push(depPath)
    }
  }
  const pending = [...required]
  while (pending.length > 0) {
    for (const parent of parents.get(pending.pop()!) ?? []) {
      if (required.has(parent)) continue
      required.add(parent)
      pending.push(parent)
    }
  }
  return required
}

/**
 * pnpm's `calcDepGraphHash`: a package's id and its children's hashes, hashed. A dependency cycle
 * (a strongly connected component, found with Tarjan's algorithm) is hashed as a whole: its
 * members' labels (id and the children outside the cycle) are refined by their children inside it
 * until the number of distinct labels stops growing, then each member hashes its label with the
 * component's shape. A child the graph lacks counts as `""`. Results are kept in `hashes`.
 */
function graphHash (graph: ReadonlyMap<string, Node>, hashes: Map<string, string>, root: string): string {
  const known = hashes.get(root)
  if (known !== undefined) return known
  if (!graph.has(root)) return ''
  const visits = new Map<string, { index: number, lowLink: number, onStack: boolean }>()
  const stack: string[] = []
  const hashedChildren = (node: Node): string[] => Object.values(node.children).filter((child) => !child.startsWith(PACKAGE_ROOT_LINK))
  const childDeps = (node: Node, include: (child: string) => boolean, valueOf: (child: string) => string): Record<string, string> => {
    const deps: Record<string, string> = {}
    for (const [alias, child] of Object.entries(node.children)) {
      if (child.startsWith(PACKAGE_ROOT_LINK) || !include(child)) continue
      deps[alias] = valueOf(child)
    }
    return deps
  }
  const hashOf = (child: string): string => hashes.get(child) ?? ''
  // Tarjan's algorithm as pnpm's recursion runs it, on an explicit stack: a chain is as deep as a
  // registry makes it. A frame takes its children in order, and after a child's own walk its low link.
  interface Frame {
    id: string
    own: { index: number, lowLink: number, onStack: boolean }
    children: string[]
    next: number
    /** The child whose walk the frame waits on. */
    walked: string | undefined
  }
  const frames: Frame[] = []
  const enter = (id: string): void => {
    const own = { index: visits.size, lowLink: visits.size, onStack: true }
    visits.set(id, own)
    stack.push(id)
    frames.push({ id, own, children: hashedChildren(graph.get(id)!), next: 0, walked: undefined })
  }
  const leave = (id: string, own: { index: number, lowLink: number }): void => {
    if (own.lowLink !== own.index) return
    const members = stack.splice(stack.lastIndexOf(id))
    for (const member of members) visits.get(member)!.onStack = false
    if (members.length === 1 && !hashedChildren(graph.get(id)!).includes(id)) {
      const node = graph.get(id)!
      hashes.set(id, hashObject({ id: node.fullPkgId, deps: childDeps(node, () => true, hashOf) }))
      return
    }
    hashCycle(members)
  }
  const visit = (root: string): void => {
    enter(root)
    while (frames.length > 0) {
      const frame = frames.at(-1)!
      if (frame.walked !== undefined) {
        frame.own.lowLink = Math.min(frame.own.lowLink, visits.get(frame.walked)!.lowLink)
        frame.walked = undefined
      }
      const child = frame.children[frame.next++]
      if (child === undefined) {
        frames.pop()
        leave(frame.id, frame.own)
        continue
      }
      if (!graph.has(child) || hashes.has(child)) continue
      const seen = visits.get(child)
      if (seen === undefined) {
        frame.walked = child
        enter(child)
      } else if (seen.onStack) {
        frame.own.lowLink = Math.min(frame.own.lowLink, seen.index)
      }
    }
  }
  const hashCycle = (members: string[]): void => {
    const position = new Map(members.map((member, i) => [member, i]))
    const inside = (child: string): boolean => position.has(child)
    const internalDeps = (member: string, labels: readonly string[]): Record<string, string> =>
      childDeps(graph.get(member)!, inside, (child) => labels[position.get(child)!]!)
    let labels = members.map((member) => hashObject({
      id: graph.get(member)!.fullPkgId,
      deps: childDeps(graph.get(member)!, (child) => !inside(child), hashOf),
    }))
    for (;;) {
      const groups = new Set(labels).size
      const refined = labels.map((label, i) => hashObject({ color: label, deps: internalDeps(members[i]!, labels) }))
      if (new Set(refined).size === groups) break
      labels = refined
    }
    const shape: Record<string, HashedValue> = {}
    members.forEach((member, i) => { shape[labels[i]!] = internalDeps(member, labels) })
    const component = hashObject(shape)
    members.forEach((member, i) => { hashes.set(member, hashObject({ member: labels[i]!, component })) })
  }
  visit(root)
  return hashes.get(root)!
}
