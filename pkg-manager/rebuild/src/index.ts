export { rebuild } from './rebuild.js'
export type { RebuildOptions } from './rebuild.js'
