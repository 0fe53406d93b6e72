import { assertValidDependencyNames, own } from '@lode/core.safe-name'
import { registryTarballUrl } from '@lode/resolving.npm-resolver'
import type { PackageMeta, ResolvedRegistryPackage } from '@lode/resolving.npm-resolver'

import type { ResolvedPackage } from './types.js'

/** A registry pick as a resolved package. */
export function fromRegistry (resolved: ResolvedRegistryPackage, autoInstallPeers: boolean): ResolvedPackage {
  const pkg = fromMeta(`${resolved.name}@${resolved.version}`, resolutionOf(resolved), resolved.meta, autoInstallPeers)
  return resolved.latest === undefined ? pkg : { ...pkg, latest: resolved.latest }
}

/** A resolved package from its manifest: the edges it wants, and its lockfile `packages` entry. */
export function fromMeta (id: string, resolution: ResolvedPackage['resolution'], meta: PackageMeta, autoInstallPeers: boolean): ResolvedPackage {
  // Every name the package declares may become a path (its peers too, when they are installed for it): refused before any is used.
  for (const deps of [meta.dependencies, meta.optionalDependencies, meta.peerDependencies, meta.peerDependenciesMeta]) {
    assertValidDependencyNames(deps, id)
  }
  const lockfileFields: ResolvedPackage['lockfileFields'] = {}
  // pnpm records `version` when the key does not say it (file:, URLs), except for directories (the
  // lockfile writer adds it where only the peers' suffix has a URL: see packageEntry).
  if (id.slice(1).includes(':') && !('directory' in resolution)) lockfileFields.version = meta.version
  if (meta.engines !== undefined) {
    const engines = Object.fromEntries(Object.entries(meta.engines).filter(([, range]) => range !== '*'))
    if (Object.keys(engines).length > 0) lockfileFields.engines = engines
  }
  if (meta.cpu !== undefined) lockfileFields.cpu = meta.cpu
  if (meta.os !== undefined) lockfileFields.os = meta.os
  if (meta.libc !== undefined) lockfileFields.libc = meta.libc
  if (meta.deprecated !== undefined) lockfileFields.deprecated = meta.deprecated
  if (meta.hasBin === true) lockfileFields.hasBin = true
  const optionalDependencies = meta.optionalDependencies ?? {}
  const peerDependencies = { ...meta.peerDependencies }
  const peerDependenciesMeta = meta.peerDependenciesMeta ?? {}
  // An optional peer declared only in peerDependenciesMeta is a peer on any version.
  for (const [peer, peerMeta] of Object.entries(peerDependenciesMeta)) {
    if (peerMeta.optional === true && own(peerDependencies, peer) === undefined) peerDependencies[peer] = '*'
  }
  const declaredPeers = Object.fromEntries(Object.entries(peerDependencies)
    .filter(([peer]) => peer !== meta.name && own(optionalDependencies, peer) === undefined))
  if (Object.keys(declaredPeers).length > 0) lockfileFields.peerDependencies = declaredPeers
  const optionalPeers = Object.fromEntries(Object.entries(peerDependenciesMeta)
    .filter(([, m]) => m.optional === true)
    .map(([peer]) => [peer, { optional: true as const }]))
  if (Object.keys(optionalPeers).length > 0) lockfileFields.peerDependenciesMeta = optionalPeers
  if (meta.bundledDependencies !== undefined) lockfileFields.bundledDependencies = meta.bundledDependencies
  const bundled = new Set(meta.bundledDependencies === true
    ? Object.keys(meta.dependencies ?? {})
    : Array.isArray(meta.bundledDependencies) ? meta.bundledDependencies : [])
  const requiredPeer = (alias: string): boolean => autoInstallPeers
    && own(meta.peerDependencies, alias) !== undefined
    && own(peerDependenciesMeta, alias)?.optional !== true
  const dependencies = Object.fromEntries(Object.entries(meta.dependencies ?? {})
    .filter(([alias]) => !bundled.has(alias) && own(optionalDependencies, alias) === undefined && !requiredPeer(alias)))
  // A peer the package also depends on is no peer: its own copy serves it (unless its owner has one in scope).
  delete peerDependencies[meta.name]
  const peerShadowable: Record<string, string> = {}
  for (const alias of Object.keys(dependencies)) {
    if (own(peerDependencies, alias) !== undefined && alias !== meta.name) peerShadowable[alias] = peerDependencies[alias]!
  }
  for (const alias of [...Object.keys(dependencies), ...Object.keys(optionalDependencies)]) delete peerDependencies[alias]
  const pkg: ResolvedPackage = {
    id,
    name: meta.name,
    version: meta.version,
    resolution,
    dependencies,
    optionalDependencies: Object.fromEntries(Object.entries(optionalDependencies).filter(([alias]) => !bundled.has(alias))),
    peerDependencies,
    peerDependenciesMeta,
    lockfileFields,
  }
  if (meta.deprecated !== undefined) pkg.deprecated = meta.deprecated
  if (Object.keys(peerShadowable).length > 0) pkg.peerShadowable = peerShadowable
  return pkg
}

/** `{integrity}` when the tarball sits at the registry's canonical URL, else with `tarball` too (as pnpm writes it). */
function resolutionOf ({ name, version, registry, meta }: ResolvedRegistryPackage): ResolvedPackage['resolution'] {
  const canonical = registryTarballUrl(registry, name, version)
  const strip = (url: string): string => url.replace(/^https?:\/\//, '')
  return strip(meta.dist.tarball) === strip(canonical)
    ? { integrity: meta.dist.integrity }
    : { integrity: meta.dist.integrity, tarball: meta.dist.tarball }
}
