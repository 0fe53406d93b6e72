import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { createMatcher } from '@lode/core.matcher'
import type { Config } from '@lode/pkg-manager.config'
import { outdatedPackages } from '@lode/pkg-manager.inspection'
import type { OutdatedPackage } from '@lode/pkg-manager.inspection'
import { readProjectManifest } from '@lode/pkg-manager.install-context/project-manifest'
import { readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile'
import { catalogSpecifier } from '@lode/pkg-manager.resolve-dependencies/catalogs'
import { npmResolverFor } from '@lode/pkg-manager.resolve-dependencies/install'
import { parseWantedSpec } from '@lode/resolving.npm-resolver'

import { Installer } from './installer.js'

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
  signal?: AbortSignal | undefined
  onWarning?: ((message: string) => void) | undefined
}

/**
 * pnpm's `outdated`: the project's direct dependencies with a newer version in the registry (its
 * `latest`, or with `compatible` its range's newest), as installed, as the lockfile wants them, and
 * the newest. A project with dependencies and no pnpm-lock.yaml is `ERR_LODE_OUTDATED_NO_LOCKFILE`.
 */
export async function outdated (opts: OutdatedOptions): Promise<OutdatedPackage[]> {
  const { config } = opts
  const projectDir = path.resolve(config.dir, opts.projectDir ?? '.')
  const manifest = await readProjectManifest(projectDir)
  const dependencies = Object.assign({}, ...DEPENDENCY_GROUPS.map((group) => manifest[group] ?? {})) as Record<string, string>
  if (Object.keys(dependencies).length === 0) return []
  const wanted = (await readLockfile(config.dir))?.lockfile
  if (wanted === undefined) {
    throw new LodeError('OUTDATED_NO_LOCKFILE', `No lockfile in directory "${config.dir}". Run \`lode install\` to generate one.`)
  }
  const onWarning = opts.onWarning ?? (() => {})
  const installer = new Installer({ config, linking: false, ignoreScripts: true, tracePipeline: undefined, signal: opts.signal, onWarning })
  const resolver = npmResolverFor(config, { client: installer.client, now: opts.now, onWarning })
  try {
    return await outdatedPackages({
      dependencies,
      importerId: path.relative(config.dir, projectDir).split(path.sep).join('/') || '.',
      wanted,
      current: (await readInstalledLockfile(config.dir))?.lockfile,
      include: opts.include ?? { dependencies: true, devDependencies: true, optionalDependencies: true },
      match: opts.names === undefined || opts.names.length === 0 ? undefined : createMatcher(opts.names),
      latestOf: async (alias, bareSpecifier) => {
        const spec = parseWantedSpec(alias, catalogSpecifier(alias, bareSpecifier, config.catalogs)?.specifier ?? bareSpecifier, path.join(projectDir, 'package.json'))
        if (spec.kind !== 'registry') return undefined
        const picked = await resolver.resolve(opts.compatible === true ? spec : { type: 'tag', name: spec.name, tag: 'latest' })
        return { version: picked.version, deprecated: picked.meta.deprecated }
      },
    })
  } finally {
    await resolver.close()
    await installer.close()
  }
}
