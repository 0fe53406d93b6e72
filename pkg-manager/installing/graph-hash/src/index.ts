export { hashObject, hashObjectWithoutSorting } from './object-hash.js'
export type { HashedValue } from './object-hash.js'
export { createSlotResolver, engineName } from './slots.js'
export type { Slot, SlotOptions } from './slots.js'
