export { parseLockfile, readInstalledLockfile, readLockfile } from './read.js'
export type { ReadLockfile } from './read.js'
export type { Lockfile, LockfileSettings, PackageInfo, ProjectSnapshot, Resolution, ResolvedDependency, SnapshotInfo } from './types.js'
export { lexCompare, normalizeLockfile, stringifyLockfile, writeLockfile, writeLockfileText } from './write.js'
