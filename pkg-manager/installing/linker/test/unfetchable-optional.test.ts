import assert from 'node:assert/strict'
import { test } from 'node:test'

import { LodeError } from '@lode/core.error'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import type { PackageInStore, PackageSource } from '../src/link-types.js'
import { unfetchableOptionalPackages } from '../src/unfetchable-optional.js'

const lockfile: Lockfile = {
  lockfileVersion: '9.0',
  importers: {},
  snapshots: { 'opt@1.0.0': { optional: true }, 'gone@1.0.0': { optional: true }, 'req@1.0.0': {}, 'stored@1.0.0': { optional: true } },
}
const pkg = (depPath: string): { depPath: string, pkgId: string, resolution: { integrity: string } } => ({ depPath, pkgId: depPath, resolution: { integrity: `sha512-${depPath}` } })
const row = {} as PackageInStore

/** A store that has `stored@1.0.0`, fetches `opt@1.0.0`, and cannot fetch `gone@1.0.0`; it records what it was asked for. */
function source (asked: string[][]): PackageSource {
  return {
    downloaded: 0,
    rows: (packages) => {
      asked.push(packages.map((p) => p.pkgId))
      return {
        reused: 0,
        rows: packages.map((p) => p.pkgId === 'stored@1.0.0'
          ? row
          : p.pkgId === 'gone@1.0.0'
            ? Promise.reject(new LodeError('NOT_FOUND', 'gone@1.0.0 is not in the registry (answered 404).'))
            : Promise.resolve(row)),
      }
    },
  }
}

test('unfetchableOptionalPackages: only optional packages are fetched first; those that fail are returned, each with a warning', async () => {
  const asked: string[][] = []
  const warnings: string[] = []
  const failed = await unfetchableOptionalPackages(lockfile, ['opt@1.0.0', 'req@1.0.0', 'gone@1.0.0', 'stored@1.0.0', 'gone@1.0.0'].map(pkg), {
    fetcher: source(asked),
    onWarning: (message) => { warnings.push(message) },
  })
  assert.deepEqual([...failed], ['gone@1.0.0'])
  assert.deepEqual(asked, [['opt@1.0.0', 'gone@1.0.0', 'stored@1.0.0']], 'the required package is left to the import, each optional one asked for once')
  assert.deepEqual(warnings, ['gone@1.0.0 is an optional dependency that could not be fetched. Excluding it from installation.\n[ERR_LODE_NOT_FOUND] gone@1.0.0 is not in the registry (answered 404).'])
})

test('unfetchableOptionalPackages: nothing optional to import asks the store nothing; a stop is no failure to fetch', async () => {
  const asked: string[][] = []
  assert.deepEqual([...await unfetchableOptionalPackages(lockfile, [pkg('req@1.0.0')], { fetcher: source(asked) })], [])
  assert.deepEqual(asked, [])
  const aborted: PackageSource = {
    downloaded: 0,
    rows: (packages) => ({ reused: 0, rows: packages.map(() => Promise.reject(Object.assign(new Error('stopped'), { name: 'AbortError' }))) }),
  }
  await assert.rejects(unfetchableOptionalPackages(lockfile, [pkg('opt@1.0.0')], { fetcher: aborted }), { name: 'AbortError' })
})
