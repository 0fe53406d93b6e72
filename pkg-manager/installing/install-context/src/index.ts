export { readInstallContext } from './install-context.js'
export type { InstallContext, InstallContextOptions } from './install-context.js'
export { readProjectManifest } from './project-manifest.js'
