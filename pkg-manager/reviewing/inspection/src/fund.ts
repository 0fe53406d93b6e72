import path from 'node:path'

import { parseDepPath, pkgIdOf, refToDepPath } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { isValidPackageName } from '@lode/core.safe-name'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { installedLayout, installedLockfile, readManifestFields } from './installed.js'
import { renderTextTree } from './text-tree.js'
import type { TextTreeNode } from './text-tree.js'

// pnpm 12's `fund` (npm's): the funding of the installed packages, from each one's package.json, as
// a tree (packages that share a URL on one line) or JSON; `fund <pkg>` lists one package's URLs.

export interface FundingSource { type?: string, url: string }

/** A funded package of the tree; an unfunded one is left out, its funded dependencies taking its place. */
export interface FundedPackage {
  name: string
  version: string
  funding: FundingSource | FundingSource[]
  dependencies: FundedPackage[]
}

export interface FundingTree {
  name: string
  version: string
  funding: FundingSource | FundingSource[] | undefined
  dependencies: FundedPackage[]
}

/** The project's funded packages, from what is installed: each once, where it is first reached (a direct dependency before a deeper one). */
export async function fundingTree (projectDir: string, lockfileDir: string): Promise<FundingTree> {
  const manifest = await readManifestFields(projectDir)
  const lockfile = await installedLockfile(lockfileDir, false)
  const importerId = path.relative(lockfileDir, projectDir).split(path.sep).join('/') || '.'
  const layout = await installedLayout(lockfileDir, { listing: false })
  const seen = new Set<string>()
  // The name comes from the lockfile: one that is no package name is no path to read (and has no funding to show).
  const manifestOf = async (depPath: string): Promise<Record<string, unknown>> => {
    const { name } = parseDepPath(depPath)
    return isValidPackageName(name) ? await readManifestFields(layout.pathOf(depPath, name)) : {}
  }
  const importer = lockfile?.importers[importerId]
  const direct = importer === undefined
    ? []
    : refs({ ...importer.dependencies, ...importer.devDependencies, ...importer.optionalDependencies })
  return {
    name: typeof manifest['name'] === 'string' ? manifest['name'] : '',
    version: typeof manifest['version'] === 'string' ? manifest['version'] : '',
    funding: normalizeFunding(manifest['funding']),
    dependencies: lockfile === undefined ? [] : await funded(lockfile, direct, seen, manifestOf),
  }
}

/** The dependency paths of dependencies (an importer's, or a snapshot's), in name order; a `link:` (a workspace project) has none. */
function refs (deps: Record<string, string | { version: string }>): string[] {
  return Object.entries(deps)
    .map(([alias, ref]) => [alias, typeof ref === 'string' ? ref : ref.version] as const)
    .filter(([, ref]) => !ref.startsWith('link:'))
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([alias, ref]) => refToDepPath(alias, ref))
}

async function funded (
  lockfile: Lockfile,
  depPaths: readonly string[],
  seen: Set<string>,
  manifestOf: (depPath: string) => Promise<Record<string, unknown>>
): Promise<FundedPackage[]> {
  const fresh = depPaths.filter((depPath) => !seen.has(depPath))
  for (const depPath of fresh) seen.add(depPath)
  const out: FundedPackage[] = []
  for (const depPath of fresh) {
    const snapshot = lockfile.snapshots?.[depPath]
    const children = await funded(lockfile, refs({ ...snapshot?.dependencies, ...snapshot?.optionalDependencies }), seen, manifestOf)
    const manifest = await manifestOf(depPath)
    const funding = normalizeFunding(manifest['funding'])
    if (funding === undefined) {
      out.push(...children)
      continue
    }
    const recorded = lockfile.packages?.[pkgIdOf(depPath)]?.version
    const { name, version } = parseDepPath(depPath)
    out.push({
      name: typeof manifest['name'] === 'string' ? manifest['name'] : name,
      version: typeof recorded === 'string' ? recorded : version,
      funding,
      dependencies: children,
    })
  }
  return out
}

/** A `funding` field as npm normalizes it: a URL string → `{ url }`, an object kept with its type and url, a list of either; none without a URL. */
export function normalizeFunding (funding: unknown): FundingSource | FundingSource[] | undefined {
  const one = (value: unknown): FundingSource | undefined => {
    if (typeof value === 'string') return value === '' ? undefined : { url: value }
    if (typeof value !== 'object' || value === null) return undefined
    const { type, url } = value as { type?: unknown, url?: unknown }
    if (typeof url !== 'string' || url === '') return undefined
    return typeof type === 'string' ? { type, url } : { url }
  }
  if (Array.isArray(funding)) {
    const list = funding.map(one).filter((source): source is FundingSource => source !== undefined)
    return list.length === 0 ? undefined : list
  }
  return one(funding)
}

function sources (funding: FundingSource | FundingSource[]): FundingSource[] {
  return Array.isArray(funding) ? funding : [funding]
}

/** The tree as pnpm 12 prints it: each funded package under its first URL, packages sharing a URL on the first one's line. */
export function renderFundingTree (tree: FundingTree): string {
  const byUrl = new Map<string, TextTreeNode & { children: TextTreeNode[] }>()
  const nodes = (packages: readonly FundedPackage[]): TextTreeNode[] => {
    const out: TextTreeNode[] = []
    for (const pkg of packages) {
      const url = sources(pkg.funding)[0]!.url
      const ref = `${pkg.name}@${pkg.version}`
      const existing = byUrl.get(url)
      if (existing !== undefined) {
        existing.label += `, ${ref}`
        continue
      }
      const node = { label: `${url}\n└── ${ref}`, children: [] as TextTreeNode[] }
      byUrl.set(url, node)
      out.push(node)
      node.children.push(...nodes(pkg.dependencies))
    }
    return out
  }
  const root = `${tree.name}@${tree.version}`
  const rootUrl = tree.funding === undefined ? undefined : sources(tree.funding)[0]!.url
  return renderTextTree({ label: rootUrl === undefined ? root : `${rootUrl}\n└── ${root}`, children: nodes(tree.dependencies) }).trimEnd()
}

/** npm's `fund --json`: `length` (the funded packages), the project, its funding, the funded dependencies by name. */
export function fundingJson (tree: FundingTree): string {
  let length = 0
  const deps = (packages: readonly FundedPackage[]): Record<string, unknown> => Object.fromEntries(packages.map((pkg) => {
    length++
    const children = deps(pkg.dependencies)
    return [pkg.name, { version: pkg.version, funding: pkg.funding, ...Object.keys(children).length > 0 ? { dependencies: children } : {} }]
  }))
  const dependencies = deps(tree.dependencies)
  const funding = tree.funding === undefined ? {} : { funding: tree.funding }
  return JSON.stringify({ length, name: tree.name, version: tree.version, ...funding, dependencies }, null, 2)
}

/** The funded package named (searched through the tree); `ERR_LODE_NO_FUNDING` for one without funding or not installed. */
export function fundingOf (tree: FundingTree, name: string): FundingSource[] {
  const pending = [...tree.dependencies]
  for (let pkg = pending.shift(); pkg !== undefined; pkg = pending.shift()) {
    if (pkg.name === name) return sources(pkg.funding)
    pending.push(...pkg.dependencies)
  }
  if (tree.name === name && tree.funding !== undefined) return sources(tree.funding)
  throw new LodeError('NO_FUNDING', `No valid funding method available for: ${name}`, { hint: 'lode fund lists the installed packages that have funding.' })
}

/** `fund <pkg>`'s lines: one URL said, or the list to choose from with `--which` (an index out of the list said first). */
export function renderFundingChoice (
  name: string,
  funding: readonly FundingSource[],
  which: number | undefined
): { text: string, url: string | undefined } {
  const said = (source: FundingSource): string => `${source.type === undefined ? 'Funding' : `${source.type} funding`} available at the following URL`
  const chosen = which === undefined ? (funding.length === 1 ? funding[0] : undefined) : funding[which - 1]
  if (chosen !== undefined) return { text: `${said(chosen)}:\n${chosen.url}`, url: chosen.url }
  const list = funding.map((source, index) => `${index + 1}: ${said(source)}: ${source.url}`)
  const invalid = which === undefined ? [] : [`--which=${which} is not a valid index`]
  return { text: [...invalid, ...list, `Run \`lode fund ${name} --which=1\`, for example, to open the first funding URL listed in that package`].join('\n'), url: undefined }
}
