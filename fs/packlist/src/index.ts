export { packedFiles } from './packlist.js'
