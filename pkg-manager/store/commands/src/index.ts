export { storeStatus } from './store-status.js'
export { storePrune } from './store-prune.js'
export { storePath } from '@lode/store.cafs'
export { prettyBytes } from '@lode/store.controller'
