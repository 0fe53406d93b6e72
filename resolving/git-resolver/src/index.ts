export { parseGitParams, parseGitSpec } from './parse.js'
export type { GitParams, GitSpec, HostedRepo } from './parse.js'
