import type { ConfigOverrides } from '@lode/pkg-manager.core'

import { concurrency } from '../args.js'
import type { ParsedArgs } from '../args.js'

/**
 * The settings the command line gives (the options every installing command takes, `SETTINGS` of
 * the registry): they win over every file.
 */
export function settingsOf (values: ParsedArgs['values']): ConfigOverrides {
  const overrides: ConfigOverrides = {}
  const text = (name: string): string | undefined => values[name] as string | undefined
  if (text('registry') !== undefined) overrides.registry = text('registry')!
  if (text('cache-dir') !== undefined) overrides.cacheDir = text('cache-dir')!
  if (text('store-dir') !== undefined) overrides.storeDir = text('store-dir')!
  if (values['offline'] === true) overrides.offline = true
  if (values['prefer-offline'] === true) overrides.preferOffline = true
  if (text('node-linker') !== undefined) overrides.nodeLinker = text('node-linker')!
  if (values['shamefully-hoist'] !== undefined) overrides.shamefullyHoist = values['shamefully-hoist'] as boolean
  if (text('virtual-store-dir') !== undefined) overrides.virtualStoreDir = text('virtual-store-dir')!
  if (text('network-concurrency') !== undefined) overrides.networkConcurrency = concurrency('--network-concurrency', text('network-concurrency')!)
  return overrides
}
