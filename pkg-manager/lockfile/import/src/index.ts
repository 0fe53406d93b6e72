export { readImportedVersions } from './import-lockfile.js'
export type { ImportedVersions } from './import-lockfile.js'
