export { createMatcher } from './matcher.js'
