export { VIRTUAL_STORE_DIR_MAX_LENGTH, depPathToFilename } from './dep-path-to-filename.js'
export { nameOf, planLayout, refToDepPath } from './layout.js'
export type { LaidOutPackage, Layout, LayoutOptions, Symlink } from './layout.js'
export { writeSymlinks } from './symlinks.js'
