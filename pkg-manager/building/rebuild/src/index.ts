export { rebuild } from './rebuild.js'
export type { RebuildOptions } from './rebuild.js'
export { approveBuilds, buildsAwaitingApproval } from './approve-builds.js'
export type { ApproveBuildsOptions } from './approve-builds.js'
