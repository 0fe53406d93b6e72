export { StoreIndex, gitIndexKey, storeIndexKey } from './store-index.js'
export type { StoreIndexOptions } from './store-index.js'
export { bundleManifest, createPackageFilesIndex, decodeRow, encodeRow, requiresBuild } from './row.js'
export type { BundledManifest, PackageFilesIndex } from './row.js'
