export { createAuthHeaderLookup, nerfDart } from './auth.js'
export type { AuthHeaderLookup } from './auth.js'
export { ACCEPT_ABBREVIATED, ACCEPT_FULL, RegistryClient, verboseDuration } from './client.js'
export type { GetOptions, GetResult, ProxyOptions, RegistryClientOptions, RetryOptions } from './client.js'
