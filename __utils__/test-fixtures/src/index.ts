export { buildPackageTarball, buildTarball, integrityOf, packTar, ustarHeader } from './tarball.js'
export type { PackageSpec, TarEntry } from './tarball.js'
export { TestRegistry } from './registry.js'
export type { Advisory, Fault, PublishedPackage } from './registry.js'
