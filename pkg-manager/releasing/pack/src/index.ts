export { exportableManifest } from './exportable-manifest.js'
export type { ExportOptions } from './exportable-manifest.js'
export { pack } from './pack.js'
export type { PackOptions, PackResult } from './pack.js'
