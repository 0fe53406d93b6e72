export { patchCommitDiff, preparePatch, writePatchFile } from './patch.js'
export type { PatchCommit, PatchCommitOptions, PatchOptions } from './patch.js'
