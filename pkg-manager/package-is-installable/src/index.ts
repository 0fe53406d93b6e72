export { currentPlatform, platformMismatch } from './platform.js'
export type { Platform, PlatformFields, SupportedArchitectures } from './platform.js'
export { checkProjects, packagesCheck, skippedPackages } from './installability.js'
export type { CurrentEngines, PackagesCheckOptions, ProjectsCheckOptions } from './installability.js'
