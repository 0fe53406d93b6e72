export { packFiles } from './file-list.js'
export { casFilePath, contentPathFromHex, modeIsExecutable, storePath } from './layout.js'
export { casFileMatches, createCasWriter, PLACEHOLDER_PACKAGE_JSON } from './cas-writer.js'
export type { CasFileInfo, CasFileStream, CasWriter, CasWriterOptions } from './cas-writer.js'
