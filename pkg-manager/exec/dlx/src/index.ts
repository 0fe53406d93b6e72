export { dlxBin, dlxInstall } from './dlx.js'
export type { DlxAdd, DlxOptions } from './dlx.js'
export { createPackageName } from './create.js'
export { pruneDlxCache } from './dlx-cache.js'
