export { why } from './why.js'
export type { WhyOptions } from './why.js'
export type { DependentNode, DependentsTree } from './dependents.js'
