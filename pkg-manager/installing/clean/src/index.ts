export { cleanProjects } from './clean.js'
export type { CleanOptions } from './clean.js'
