export { isTarballPath, manifestOfTarball, packageJsonOfTarball, resolveLocal, resolveTarballUrl } from './local-resolver.js'
export type { LocalResolution, LocalSpec, ResolveLocalOptions } from './local-resolver.js'
