export { loadPatches, patchFor, patchOf } from './patches.js'
export type { Patch } from './patches.js'
