export { pruneGlobalVirtualStore } from './global-virtual-store.js'
export { registerProject, registeredProjects, storeSubdir } from './project-registry.js'
export { modifiedPackages, prettyBytes, pruneStore, readdirOrEmpty } from './store-files.js'
export type { InstalledPackage, PruneOptions, PruneResult } from './store-files.js'
