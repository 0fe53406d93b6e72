import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { createMatcher } from '@lode/core.matcher'
import type { Config } from '@lode/pkg-manager.config.settings'
import { catalogSpecifier } from '@lode/pkg-manager.deps.resolve-dependencies/catalogs'
import { npmResolverFor } from '@lode/pkg-manager.deps.resolve-dependencies/install'
import { readProjectManifest } from '@lode/pkg-manager.installing.install-context/project-manifest'
import { Installer } from '@lode/pkg-manager.installing.installer'
import { readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile.format'
import { packumentVersions, parseWantedSpec } from '@lode/resolving.npm-resolver'
import { encodeName } from '@lode/resolving.npm-resolver/registries'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'

import { outdatedPackages } from './outdated.js'
import type { OutdatedPackage } from './outdated.js'


export interface OutdatedOptions {
  config: Config
  now: () => number
  /** The project (a workspace project's directory); the root (`config.dir`) by default. */
  projectDir?: string | undefined
  include?: Readonly<Record<DependencyGroup, boolean>> | undefined
  /** Only these dependencies (names or patterns, `@babel/*`); all by default. */
  names?: readonly string[] | undefined
  /** `--compatible`: the newest version the range allows, not the `latest` tag. */
  compatible?: boolean | undefined
  /** `--long`: each newest version's manifest from the registry's full document (its homepage, its deprecation). */
  long?: boolean | undefined
  signal?: AbortSignal | undefined
  onWarning?: ((message: string) => void) | undefined
}

/**
 * pnpm's `outdated`: the project's direct dependencies with a newer version in the registry (its
 * `latest`, or with `compatible` its range's newest), as installed, as the lockfile wants them, and
 * the newest. A project with dependencies and no pnpm-lock.yaml is `ERR_LODE_OUTDATED_NO_LOCKFILE`.
 */
export async function outdated (opts: OutdatedOptions): Promise<OutdatedPackage[]> {
  const [project] = await outdatedOfProjects({ ...opts, projectDirs: [opts.projectDir ?? '.'] })
  return project!.packages
}

/** `outdated` for several projects of the workspace (`lode outdated -r`), over one resolver: each project's name and report. */
export async function outdatedOfProjects (
  opts: Omit<OutdatedOptions, 'projectDir'> & { projectDirs: readonly string[] }
): Promise<Array<{ dir: string, name: string | undefined, packages: OutdatedPackage[] }>> {
  const { config } = opts
  const projects = await Promise.all(opts.projectDirs.map(async (dir) => {
    const projectDir = path.resolve(config.dir, dir)
    const manifest = await readProjectManifest(projectDir)
    const dependencies = Object.assign({}, ...DEPENDENCY_GROUPS.map((group) => manifest[group] ?? {})) as Record<string, string>
    return { dir: projectDir, name: manifest.name, dependencies }
  }))
  const withDependencies = projects.filter((project) => Object.keys(project.dependencies).length > 0)
  if (withDependencies.length === 0) return projects.map((project) => ({ dir: project.dir, name: project.name, packages: [] }))
  const wanted = (await readLockfile(config.dir))?.lockfile
  if (wanted === undefined) {
    throw new LodeError('OUTDATED_NO_LOCKFILE', `No lockfile in directory "${config.dir}". Run \`lode install\` to generate one.`)
  }
  const current = (await readInstalledLockfile(config.dir))?.lockfile
  const onWarning = opts.onWarning ?? (() => {})
  const installer = new Installer({ config, linking: false, ignoreScripts: true, tracePipeline: undefined, signal: opts.signal, onWarning })
  const resolver = npmResolverFor(config, { client: installer.client, packuments: installer.packuments, now: opts.now, onWarning })
  const match = opts.names === undefined || opts.names.length === 0 ? undefined : createMatcher(opts.names)
  try {
    return await Promise.all(projects.map(async (project) => ({
      dir: project.dir,
      name: project.name,
      packages: Object.keys(project.dependencies).length === 0 ? [] : await outdatedPackages({
        dependencies: project.dependencies,
        importerId: path.relative(config.dir, project.dir).split(path.sep).join('/') || '.',
        wanted,
        current,
        include: opts.include ?? { dependencies: true, devDependencies: true, optionalDependencies: true },
        match,
        latestOf: async (alias, bareSpecifier) => {
          const specifier = catalogSpecifier(alias, bareSpecifier, config.catalogs)?.specifier ?? bareSpecifier
          const spec = parseWantedSpec(alias, specifier, path.join(project.dir, 'package.json'))
          if (spec.kind !== 'registry') return undefined
          const picked = await resolver.resolve(opts.compatible === true ? spec : { type: 'tag', name: spec.name, tag: 'latest' })
          const registry = resolver.registryFor(spec.name)
          const manifest = opts.long === true ? await fullManifest(installer, registry, spec.name, picked.version) : undefined
          return { version: picked.version, deprecated: picked.meta.deprecated, manifest }
        },
      }),
    })))
  } finally {
    await resolver.close()
    await installer.close()
  }
}

/** A version's manifest as the registry's full document has it (`--long` shows its homepage and prints it as JSON). */
async function fullManifest (
  installer: Installer,
  registry: string,
  name: string,
  version: string
): Promise<Record<string, unknown> | undefined> {
  const answer = await installer.client.get(`${registry}${encodeName(name)}`, { accept: ACCEPT_FULL, subject: name })
  if (answer.status !== 200) return undefined
  return packumentVersions(answer.body, name)[version]
}
