import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'

// The package.json that goes into a packed package, as pnpm 11 writes it: pnpm's own fields and the
// publish lifecycle scripts out, `workspace:` and `catalog:` specifiers replaced by what they stand
// for, publishConfig's fields applied.

/** Scripts of publishing, which the packed manifest does not carry (pnpm's "manifest obfuscation"). */
const PUBLISH_SCRIPTS = ['prepublishOnly', 'prepack', 'prepare', 'postpack', 'publish', 'postpublish']
/** The fields publishConfig may set in the packed manifest (pnpm's list). */
const PUBLISH_CONFIG_FIELDS = new Set([
  'name', 'bin', 'engines', 'type', 'imports', 'main', 'module', 'typings', 'types', 'exports', 'browser', 'esnext', 'es2015', 'unpkg',
  'umd:main', 'os', 'cpu', 'libc', 'typesVersions',
])
const WORKSPACE_SEMVER = /workspace:([\^~*]|>=|>|<=|<)?((\d+|[xX*])(\.(\d+|[xX*])){0,2})?/

export interface ExportOptions {
  /** The project's node_modules, where a `workspace:` dependency's package.json is read. */
  modulesDir: string
  /** The catalogs of the workspace (`catalog:` and `catalog:<name>`). */
  catalogs: Readonly<Record<string, Readonly<Record<string, string>>>>
  /** The workspace's projects by name, for a `workspace:` dependency not linked in node_modules. */
  workspaceManifests: ReadonlyMap<string, Record<string, unknown>>
  /** pnpm's `--skip-manifest-obfuscation`: scripts and packageManager kept. */
  keepScripts: boolean
}

export function exportableManifest (dir: string, manifest: Record<string, unknown>, opts: ExportOptions): Record<string, unknown> {
  const { pnpm: _pnpm, ...kept } = manifest
  let out: Record<string, unknown> = kept
  if (!opts.keepScripts) {
    const { scripts, packageManager: _packageManager, ...rest } = kept
    out = rest
    if (scripts !== null && typeof scripts === 'object') {
      out['scripts'] = Object.fromEntries(Object.entries(scripts).filter(([event]) => !PUBLISH_SCRIPTS.includes(event)))
    }
  }
  for (const group of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const) {
    const deps = manifest[group]
    if (deps === null || typeof deps !== 'object') continue
    out[group] = Object.fromEntries(Object.entries(deps as Record<string, string>).map(([alias, spec]) => {
      const fromCatalog = catalogSpec(alias, spec, opts.catalogs)
      return [alias, group === 'peerDependencies' ? peerSpec(dir, alias, fromCatalog, opts) : workspaceSpec(dir, alias, fromCatalog, opts)]
    }))
  }
  applyPublishConfig(out)
  if (typeof out['name'] !== 'string' || out['name'] === '') throw new LodeError('MISSING_REQUIRED_FIELD', 'Missing required field "name"')
  if (typeof out['version'] !== 'string' || out['version'] === '') throw new LodeError('MISSING_REQUIRED_FIELD', 'Missing required field "version"')
  if (typeof out['bin'] === 'string') {
    // A bin string becomes `{ <name without scope>: file }`, last among the fields, as pnpm writes it.
    const { bin, ...rest } = out
    out = { ...rest, bin: { [out['name'].replace(/^@[^/]+\//, '')]: bin } }
  }
  const meta = out['peerDependenciesMeta']
  if (meta !== null && typeof meta === 'object') {
    out['peerDependenciesMeta'] = Object.fromEntries(Object.entries(meta as Record<string, { optional?: boolean }>).map(([peer, { optional, ...rest }]) => [peer, { ...rest, optional: optional ?? false }]))
  }
  if (typeof out['repository'] === 'string') out['repository'] = { type: 'git', url: out['repository'] }
  return out
}

function catalogSpec (alias: string, spec: string, catalogs: ExportOptions['catalogs']): string {
  if (!spec.startsWith('catalog:')) return spec
  const name = spec.slice('catalog:'.length) || 'default'
  const found = catalogs[name]?.[alias]
  if (found === undefined) {
    throw new LodeError('CATALOG_ENTRY_NOT_FOUND_FOR_SPEC', `No catalog entry '${alias}' was found for catalog '${name}'.`, { hint: 'Add it to the catalog in pnpm-workspace.yaml, or give the dependency a version.' })
  }
  return found
}

/** `workspace:*` → the version, `workspace:^`/`~` → `^`/`~` + it, `workspace:<range>` → the range, `workspace:../dir` → the version there. */
function workspaceSpec (dir: string, alias: string, spec: string, opts: ExportOptions): string {
  if (!spec.startsWith('workspace:')) return spec
  const shorthand = /^workspace:(?:(.+)@)?([\^~*])?$/.exec(spec)
  if (shorthand !== null) {
    const target = dependencyManifest(alias, path.join(opts.modulesDir, alias), opts, shorthand[1])
    const prefix = shorthand[2] === '^' || shorthand[2] === '~' ? shorthand[2] : ''
    return alias !== target.name ? `npm:${target.name}@${prefix}${target.version}` : `${prefix}${target.version}`
  }
  const body = spec.slice('workspace:'.length)
  if (body.startsWith('./') || body.startsWith('../')) {
    const target = dependencyManifest(alias, path.join(dir, body), opts)
    return target.name === alias ? target.version : `npm:${target.name}@${target.version}`
  }
  return body.includes('@') ? `npm:${body}` : body
}

/** A peer's `workspace:` specifier: a range stays a range (`workspace:^` → `^` + the version; `workspace:>=1` → `>=1`). */
function peerSpec (dir: string, alias: string, spec: string, opts: ExportOptions): string {
  if (!spec.includes('workspace:')) return spec
  const body = spec.slice(spec.indexOf('workspace:') + 'workspace:'.length)
  const at = body.lastIndexOf('@')
  if (at > 0 && !body.startsWith('.')) {
    const range = body.slice(at + 1)
    return `npm:${body.slice(0, at)}@${range === '^' || range === '~' || range === '' ? '*' : range}`
  }
  if (body.startsWith('./') || body.startsWith('../')) return workspaceSpec(dir, alias, spec, opts)
  const parts = WORKSPACE_SEMVER.exec(spec)
  if (parts === null || parts[2] !== undefined) return spec.replace('workspace:', '')
  const target = dependencyManifest(alias, path.join(opts.modulesDir, alias), opts)
  return spec.replace(WORKSPACE_SEMVER, `${parts[1] === undefined || parts[1] === '*' ? '' : parts[1]}${target.version}`)
}

function dependencyManifest (alias: string, dir: string, opts: ExportOptions, targetName?: string): { name: string, version: string } {
  const read = readManifest(dir)
  if (typeof read?.['name'] === 'string' && typeof read['version'] === 'string') return { name: read['name'], version: read['version'] }
  const project = opts.workspaceManifests.get(targetName ?? alias)
  if (typeof project?.['name'] === 'string' && typeof project['version'] === 'string') return { name: project['name'], version: project['version'] }
  const found = read ?? project
  if (typeof found?.['name'] === 'string') {
    throw new LodeError('CANNOT_RESOLVE_WORKSPACE_PROTOCOL', `Cannot resolve workspace protocol of dependency "${alias}" because its package.json has no "version" field.`, {
      hint: `Add a "version" field to the package.json of "${found['name']}".`,
    })
  }
  throw new LodeError('CANNOT_RESOLVE_WORKSPACE_PROTOCOL', `Cannot resolve workspace protocol of dependency "${alias}" because this dependency is not installed. Try running "lode install".`)
}

function readManifest (dir: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/** publishConfig's listed fields replace the manifest's; what is left of publishConfig stays (or goes, when nothing is). */
function applyPublishConfig (manifest: Record<string, unknown>): void {
  const config = manifest['publishConfig']
  if (config === null || typeof config !== 'object') return
  const rest: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(config)) {
    if (PUBLISH_CONFIG_FIELDS.has(key)) manifest[key] = value
    else rest[key] = value
  }
  if (Object.keys(rest).length === 0) delete manifest['publishConfig']
  else manifest['publishConfig'] = rest
}
