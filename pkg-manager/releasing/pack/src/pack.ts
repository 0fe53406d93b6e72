import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { packedFiles } from '@lode/fs.packlist'
import semver from 'semver'

import { exportableManifest, type ExportOptions } from './exportable-manifest.js'
import { writePackageTarball, type TarEntry } from './tarball.js'

export interface PackOptions extends Omit<ExportOptions, 'modulesDir'> {
  /** The project to pack. */
  dir: string
  /** The workspace's root (its ignore files count, as npm-packlist reads them); undefined outside a workspace. */
  workspaceDir: string | undefined
  /** pnpm's `--pack-destination`: where the tarball goes (default: the project). */
  packDestination?: string | undefined
  /** pnpm's `--out`: the tarball's path, `%s` the package's name and `%v` its version. */
  out?: string | undefined
  /** Everything but writing the tarball. */
  dryRun?: boolean | undefined
}

export interface PackResult {
  name: string
  version: string
  /** The tarball's path: relative to the project when it is there, else absolute. */
  filename: string
  /** The files packed, sorted. */
  files: string[]
  /** The packed package.json. */
  manifest: Record<string, unknown>
}

/**
 * pnpm's `pack`: the files `npm pack` would pack (see `@lode/fs.packlist`), with the package.json
 * pnpm publishes (see `exportableManifest`), into `<name>-<version>.tgz`. The caller runs the
 * `prepack`/`prepare` scripts before and `postpack` after, as pnpm does.
 */
export async function pack (opts: PackOptions): Promise<PackResult> {
  const manifestFile = path.join(opts.dir, 'package.json')
  let source: Record<string, unknown>
  try {
    source = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>
  } catch (err) {
    throw new LodeError('PACK_NO_MANIFEST', `Cannot read ${manifestFile}: ${(err as Error).message}`, { hint: 'lode pack packs a project with a package.json.' })
  }
  if (typeof source['name'] !== 'string' || source['name'] === '') throw new LodeError('PACKAGE_NAME_NOT_FOUND', 'Package name is not defined in the package.json.')
  if (typeof source['version'] !== 'string' || source['version'] === '') throw new LodeError('PACKAGE_VERSION_NOT_FOUND', 'Package version is not defined in the package.json.')
  if (source['bundleDependencies'] !== undefined || source['bundledDependencies'] !== undefined) {
    throw new LodeError('PACK_BUNDLED_DEPENDENCIES', `${manifestFile} has bundleDependencies, which lode pack does not pack yet.`, { hint: 'Pack this package with pnpm pack for now.' })
  }
  const manifest = exportableManifest(opts.dir, source, { ...opts, modulesDir: path.join(opts.dir, 'node_modules') })
  const name = manifest['name'] as string
  const version = (manifest['version'] as string).replace(/\+.*$/, '')
  manifest['version'] = version
  if (semver.valid(version) === null) throw new LodeError('INVALID_PACKAGE_VERSION', `Invalid package version "${version}".`)
  const tarballName = tarballNameOf(name, version, opts)
  const own = (await packedFiles(opts.dir, manifest, { workspaceDir: opts.workspaceDir })).filter((file) => file !== 'package.json')
  const licenses = workspaceLicenses(opts.dir, opts.workspaceDir, own)
  const files = [...own, ...licenses.keys()]
  const bins = new Set(binFiles(manifest).map((file) => path.join(opts.dir, file)))
  const entries: TarEntry[] = [
    { name: 'package.json', content: JSON.stringify(manifest, null, 2), executable: false },
    ...files.map((file): TarEntry => {
      const full = licenses.get(file) ?? path.join(opts.dir, file)
      const stat = fs.lstatSync(full)
      if (stat.isSymbolicLink()) return { name: file, executable: false, linkname: path.relative(path.dirname(full), fs.realpathSync(full)).split(path.sep).join('/') }
      return { name: file, source: full, executable: bins.has(full) || (stat.mode & 0o111) !== 0 }
    }),
  ]
  const destination = path.resolve(opts.dir, tarballName.dir)
  if (opts.dryRun !== true) {
    fs.mkdirSync(destination, { recursive: true })
    await writePackageTarball(path.join(destination, tarballName.base), entries)
  }
  return {
    name,
    version,
    filename: destination === path.resolve(opts.dir) ? tarballName.base : path.join(destination, tarballName.base),
    files: ['package.json', ...files].sort((a, b) => a.localeCompare(b, 'en')),
    manifest,
  }
}

/**
 * pnpm packs the workspace root's license files (`LICEN{S,C}E{,.*}`) into a workspace package
 * that packs none of its own: name in the package → the root's file.
 */
function workspaceLicenses (dir: string, workspaceDir: string | undefined, files: readonly string[]): Map<string, string> {
  const licenses = new Map<string, string>()
  if (workspaceDir === undefined || path.resolve(dir) === path.resolve(workspaceDir)) return licenses
  if (files.some((file) => /^LICEN[CS]E(?:\..+)?$/i.test(path.posix.basename(file)))) return licenses
  for (const entry of fs.readdirSync(workspaceDir, { withFileTypes: true })) {
    if (entry.isFile() && /^LICEN[SC]E(?:\..*)?$/.test(entry.name)) licenses.set(entry.name, path.join(workspaceDir, entry.name))
  }
  return licenses
}

/** `<name without @, / as ->-<version>.tgz` (or `--out`, `%s` and `%v` filled in), and the directory it goes to. */
function tarballNameOf (name: string, version: string, opts: PackOptions): { dir: string, base: string } {
  const normalized = name.replace('@', '').replace('/', '-')
  if (opts.out !== undefined) {
    if (opts.packDestination !== undefined) throw new LodeError('INVALID_OPTION', 'Cannot use --pack-destination and --out together')
    const parsed = path.parse(opts.out.replaceAll('%s', normalized).replaceAll('%v', version))
    return { dir: parsed.dir, base: parsed.base }
  }
  return { dir: opts.packDestination ?? '', base: `${normalized}-${version}.tgz` }
}

function binFiles (manifest: Record<string, unknown>): string[] {
  const bin = manifest['bin']
  if (typeof bin === 'string') return [bin]
  return bin !== null && typeof bin === 'object' ? Object.values(bin).filter((file): file is string => typeof file === 'string') : []
}
