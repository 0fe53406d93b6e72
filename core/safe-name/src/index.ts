export { assertValidDependencyName, assertValidDependencyNames, isInsideDir, isSafeBinName, isValidPackageName, joinInside, joinModulesDir, own } from './names.js'
export { hasRealParents, joinRecorded, parseModulesLocation, recordedSegments } from './recorded-path.js'
export { assertOwnModulesDir } from './modules-dir.js'
