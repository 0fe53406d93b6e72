export { install, readProjectManifest } from './install.js'
export type { InstallEvent, InstallOptions, InstallResult } from './install.js'
export { getConfig } from '@lode/pkg-manager.config'
export type { Config, ConfigOverrides } from '@lode/pkg-manager.config'
