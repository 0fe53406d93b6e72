export { checkDependencyGroups, parsePackageJson } from './package-json.js'
