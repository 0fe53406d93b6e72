export { addDistTag, listDistTags } from './dist-tags.js'
export type { DistTagOptions } from './dist-tags.js'
export { whoami } from './whoami.js'
