export { prepareFileAtomic, removeAtomicTemps, writeFileAtomic, writeFileAtomicSync } from './write-file-atomic.js'
export type { PreparedFile } from './write-file-atomic.js'
