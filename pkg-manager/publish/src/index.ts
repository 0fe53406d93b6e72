export { publishDocument } from './publish-document.js'
export type { PublishDocumentOptions } from './publish-document.js'
export { checkGitForPublish } from './git-checks.js'
export type { GitCheckOptions } from './git-checks.js'
