export { indexOfPeersSuffix, nameOf, parseDepPath, pkgIdFrom, pkgIdOf, refToDepPath, splitNameAt, withoutPeersSuffix } from './dep-path.js'
export type { DepPath, PkgId } from './dep-path.js'
export { VIRTUAL_STORE_DIR_MAX_LENGTH, depPathToFilename } from './dep-path-to-filename.js'
