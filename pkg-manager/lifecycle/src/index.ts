export { createAllowBuild } from './allow-builds.js'
export { runDependencyBuilds } from './build.js'
export type { BuildOptions, BuildTarget } from './build.js'
