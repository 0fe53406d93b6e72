export { outdatedLockfileReason } from './lockfile-satisfies.js'
export type { LockfileSettingsToMatch } from './lockfile-satisfies.js'
export { recordVerifiedLockfile, verifyLockfile } from './verify-lockfile.js'
export type { LockfileVerificationEvent, VerifyLockfileOptions } from './verify-lockfile.js'
