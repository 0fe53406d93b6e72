import assert from 'node:assert/strict'
import { test } from 'node:test'

import { skippedPackages } from '@lode/pkg-manager.installing.package-is-installable'
import type { PackagesCheckOptions } from '@lode/pkg-manager.installing.package-is-installable'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

const here: PackagesCheckOptions = { engineStrict: false, nodeVersion: '24.0.0', platform: { os: 'linux', cpu: 'x64', libc: 'glibc' } }
const strict = { ...here, engineStrict: true }
const UNFIT = { resolution: { integrity: 'sha512-x' }, os: ['darwin'] }
const FIT = { resolution: { integrity: 'sha512-x' } }

/** app → optional has-unfit → unfit (required by it) → helper; app → optional unfit-opt (unfit itself) → below-opt; app → old (engines). */
const lockfile: Lockfile = {
  lockfileVersion: '9.0',
  importers: {
    '.': {
      dependencies: { old: { specifier: '1.0.0', version: '1.0.0' } },
      optionalDependencies: { 'has-unfit': { specifier: '1.0.0', version: '1.0.0' }, 'unfit-opt': { specifier: '1.0.0', version: '1.0.0' } },
    },
  },
  packages: {
    'has-unfit@1.0.0': FIT,
    'unfit@1.0.0': UNFIT,
    'helper@1.0.0': FIT,
    'unfit-opt@1.0.0': UNFIT,
    'below-opt@1.0.0': UNFIT,
    'old@1.0.0': { ...FIT, engines: { node: '<20' } },
  },
  snapshots: {
    'has-unfit@1.0.0': { dependencies: { unfit: '1.0.0' }, optional: true },
    'unfit@1.0.0': { dependencies: { helper: '1.0.0' }, optional: true },
    'helper@1.0.0': { optional: true },
    'unfit-opt@1.0.0': { dependencies: { 'below-opt': '1.0.0' }, optional: true },
    'below-opt@1.0.0': { optional: true },
    'old@1.0.0': {},
  },
}

test('skippedPackages: an unfit package is skipped only when every edge the install reaches it by is optional', () => {
  // unfit is a required dependency of an installable optional one: installed. below-opt is below a skipped package: skipped, as flagged.
  assert.deepEqual([...skippedPackages(lockfile, here)].sort(), ['below-opt@1.0.0', 'unfit-opt@1.0.0'])
  // A lockfile without unfit packages is not walked.
  assert.deepEqual([...skippedPackages({ ...lockfile, packages: {} }, here)], [])
})

test('skippedPackages under engineStrict: from the lockfile, only what no optional path reaches fails; just resolved, the optional subtree\'s required package too', () => {
  assert.throws(() => skippedPackages(lockfile, strict), { code: 'ERR_LODE_UNSUPPORTED_ENGINE', message: /old@1\.0\.0/ })
  const withoutOld: Lockfile = { ...lockfile, importers: { '.': { optionalDependencies: lockfile.importers['.']!.optionalDependencies! } } }
  assert.deepEqual([...skippedPackages(withoutOld, strict)].sort(), ['below-opt@1.0.0', 'unfit-opt@1.0.0'])
  assert.throws(() => skippedPackages(withoutOld, { ...strict, resolvedNow: true }), { code: 'ERR_LODE_UNSUPPORTED_PLATFORM', message: /unfit@1\.0\.0 does not support this platform/ })
})
