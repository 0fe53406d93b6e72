import { pkgIdOf } from '@lode/core.dep-path'
import { indexRowsByKey, readStoreFile } from '@lode/store.controller'
import { storeIndexKey } from '@lode/store.index'

import type { Component } from './components.js'
import { packageDetails } from './details.js'

// The packages' details from the store, as pnpm 11 reads them: their package.json and license
// file by the store's index, so an SBOM needs no node_modules.

/** The components with what their package.json and license file say; one the store lacks as it was. */
export async function storeDetails (storeDir: string, components: readonly Component[]): Promise<Component[]> {
  const keyOf = (component: Component): string | undefined =>
    component.integrity === undefined ? undefined : storeIndexKey(component.integrity, pkgIdOf(component.depPath))
  const rows = indexRowsByKey(storeDir, components.map(keyOf).filter((key): key is string => key !== undefined))
  return await Promise.all(components.map(async (component) => {
    const key = keyOf(component)
    const files = key === undefined ? undefined : rows.get(key)?.files
    if (files === undefined) return component
    const read = (name: string): string | undefined => {
      const digest = files.get(name)?.digest
      // The index row names a store file by its hex digest: anything else is no path to read.
      if (digest === undefined || !/^[0-9a-f]{128}$/.test(digest)) return undefined
      try {
        return readStoreFile(storeDir, digest).toString('utf8')
      } catch {
        // A file the store has lost: the SBOM says what it can.
        return undefined
      }
    }
    const manifestText = read('package.json')
    let manifest: unknown
    try {
      manifest = manifestText === undefined ? undefined : JSON.parse(manifestText)
    } catch {
      manifest = undefined
    }
    if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) return component
    return { ...component, ...await packageDetails(manifest as Record<string, unknown>, async (name) => await Promise.resolve(read(name))) }
  }))
}
