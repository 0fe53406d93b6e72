export { gitOutput, isGitRepo, isWorkingTreeClean, runGit } from './git.js'
