export { createDeployFiles } from './deploy-files.js'
export type { DeployFiles, DeployFilesInput } from './deploy-files.js'
export { prepareDeployDir, validateDeployTarget } from './deploy-target.js'
export type { DeployTargetContext } from './deploy-target.js'
