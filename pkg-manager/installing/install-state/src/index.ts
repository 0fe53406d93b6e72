// pnpm 11's own record (pnpm-workspace-state.ts) is loaded on its own (`./pnpm-workspace-state`):
// the no-op install reads it only when lode has no record of its own.
export { lockProject } from './install-lock.js'
export type { InstallLock, LockOptions } from './install-lock.js'
export { adoptPnpmState, installInputs, upToDateState, writeInstallState } from './install-state.js'
export type { InstallInputs, StateOptions } from './install-state.js'
