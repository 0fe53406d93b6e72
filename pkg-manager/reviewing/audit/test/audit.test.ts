import assert from 'node:assert/strict'
import { test } from 'node:test'

import { devOnlyDepPaths } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import {
  auditReport, auditRequest, findingPaths, fixableAdvisories, fixOverrides, MAX_PATHS_PER_FINDING, optionalOnlyDepPaths,
} from '../src/index.js'
import type { ReportedAdvisory } from '../src/index.js'

const ALL = { dependencies: true, devDependencies: true, optionalDependencies: true }

const PEERS_FROM_ROOT = { resolvePeersFromWorkspaceRoot: true }

function lockfile (importers: Lockfile['importers'], snapshots: Record<string, Record<string, string>>): Lockfile {
  return {
    lockfileVersion: '9.0',
    importers,
    packages: Object.fromEntries(Object.keys(snapshots).map((depPath) => [depPath, { resolution: { integrity: 'sha512-x' } }])),
    snapshots: Object.fromEntries(Object.entries(snapshots).map(([depPath, dependencies]) => [depPath, { dependencies }])),
  }
}

const dep = (version: string): { specifier: string, version: string } => ({ specifier: version, version })

test('paths stop at a cycle and a finding keeps at most 100 paths (each project still gets its first)', () => {
  // a → b → a (a cycle), b → bad; 120 packages each depending on bad.
  const fans = Array.from({ length: 120 }, (_, i) => `fan${String(i).padStart(3, '0')}`)
  const snapshots: Record<string, Record<string, string>> = {
    'a@1.0.0': { b: '1.0.0' },
    'b@1.0.0': { a: '1.0.0', bad: '1.0.0' },
    'bad@1.0.0': {},
    'hub@1.0.0': Object.fromEntries(fans.map((name) => [name, '1.0.0'])),
    ...Object.fromEntries(fans.map((name) => [`${name}@1.0.0`, { bad: '1.0.0' }])),
  }
  const lock = lockfile({
    '.': { dependencies: { a: dep('1.0.0'), hub: dep('1.0.0') } },
    'packages/p': { devDependencies: { bad: dep('1.0.0') } },
  }, snapshots)
  const walk = { include: ALL, devOnly: devOnlyDepPaths(lock, PEERS_FROM_ROOT), optionalOnly: optionalOnlyDepPaths(lock, ALL) }
  const found = findingPaths(lock, new Set(['bad']), walk).get('bad')!.get('1.0.0')!
  assert.equal(found.paths[0], '.>a>b>bad')
  assert.equal(found.paths[1], '.>hub>fan000>bad')
  assert.equal(found.paths.length, MAX_PATHS_PER_FINDING + 1)
  assert.equal(found.paths.at(-1), 'packages__p>bad')
  assert.equal(found.dev, false)
  const request = auditRequest(lock, walk)
  assert.deepEqual(request.body['bad'], ['1.0.0'])
  assert.equal(request.totalDependencies, 124)
  assert.equal(request.devDependencies, 0)
})

test('dev-only and optional-only packages are counted apart; a link is not followed', () => {
  const lock = lockfile({
    '.': { dependencies: { p: dep('link:packages/p') }, devDependencies: { d: dep('1.0.0') }, optionalDependencies: { o: dep('1.0.0') } },
  }, { 'd@1.0.0': { shared: '1.0.0' }, 'o@1.0.0': { shared: '1.0.0' }, 'shared@1.0.0': {} })
  const walk = { include: ALL, devOnly: devOnlyDepPaths(lock, PEERS_FROM_ROOT), optionalOnly: optionalOnlyDepPaths(lock, ALL) }
  const request = auditRequest(lock, walk)
  assert.deepEqual(request, {
    body: { d: ['1.0.0'], shared: ['1.0.0'], o: ['1.0.0'] },
    dependencies: 1,
    devDependencies: 1,
    optionalDependencies: 1,
    totalDependencies: 3,
  })
  const report = auditReport({ shared: [{ id: 1, severity: 'low', vulnerable_versions: '<=1.0.0', url: 'https://x/GHSA-AbC-dEf' }] }, request, findingPaths(lock, new Set(['shared']), walk))
  const advisory = report.advisories['1']!
  assert.equal(advisory.patched_versions, '>=1.0.1')
  assert.equal(advisory.github_advisory_id, 'GHSA-abc-def')
  assert.deepEqual(advisory.findings[0]!.paths, ['.>d>shared', '.>o>shared'])
  assert.equal(advisory.findings[0]!.dev, false)
})

test('--fix leaves out an advisory another override covers, and keeps the save prefix', () => {
  const advisory = (id: number, vulnerable: string, patched: string | null): ReportedAdvisory => ({
    findings: [], id, title: '', module_name: 'x', vulnerable_versions: vulnerable, patched_versions: patched,
    severity: 'low', cwe: '', github_advisory_id: '', url: '',
  })
  const fixable = fixableAdvisories([advisory(1, '<2.0.0', '>=2.0.0'), advisory(2, '>=1.0.0 <1.5.0', '>=1.5.0'), advisory(3, '<1.0.0', null)])
  assert.deepEqual(fixable.map((a) => a.id), [1])
  assert.deepEqual(fixOverrides(fixable, '~'), { 'x@<2.0.0': '~2.0.0' })
  assert.deepEqual(fixOverrides(fixable, ''), { 'x@<2.0.0': '2.0.0' })
})
