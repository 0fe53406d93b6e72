import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lodeExactly, makeProject, pnpm, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

// `lode peers check` beside pnpm 11's, on the same installed project: the same report, JSON and exit code.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'peer-a', version: '1.0.0' },
    { name: 'peer-a', version: '2.0.0' },
    { name: 'peer-e', version: '1.5.0' },
    { name: 'needs-a', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^2.0.0' } } },
    { name: 'also-needs-a', version: '3.1.0', manifest: { peerDependencies: { 'peer-a': '>=2 <3' } } },
    { name: 'wants-b', version: '1.0.0', manifest: { peerDependencies: { 'peer-b': '^1.0.0' } } },
    { name: 'wants-c1', version: '1.0.0', manifest: { peerDependencies: { 'peer-c': '^1.0.0' } } },
    { name: 'wants-c2', version: '1.0.0', manifest: { peerDependencies: { 'peer-c': '^2.0.0' } } },
    { name: 'optional-peer', version: '1.0.0', manifest: { peerDependencies: { 'peer-d': '*' }, peerDependenciesMeta: { 'peer-d': { optional: true } } } },
    { name: 'fine', version: '1.0.0', manifest: { peerDependencies: { 'peer-e': '^1.0.0' } } },
  ])
})
after(async () => { await registry.close() })

async function installedByPnpm (project: Project): Promise<void> {
  const installed = await pnpm(project, ['install'])
  assert.equal(installed.code, 0, installed.stdout + installed.stderr)
}

test('peers check: unmet peers by the version found, missing and conflicting ones, as pnpm 11 reports them; JSON alike; exit code 1', async () => {
  const project = makeProject(registry, {
    name: 'app',
    version: '1.0.0',
    dependencies: { 'peer-a': '1.0.0', 'needs-a': '1.0.0', 'also-needs-a': '3.1.0', 'wants-b': '1.0.0', 'wants-c1': '1.0.0', 'wants-c2': '1.0.0', 'optional-peer': '1.0.0' },
  }, { 'pnpm-workspace.yaml': 'autoInstallPeers: false\n' })
  await installedByPnpm(project)
  for (const args of [['peers', 'check'], ['peers'], ['peers', 'check', '--lockfile-only']]) {
    const byPnpm = await pnpmExactly(project, args)
    const byLode = await lodeExactly(project, args)
    assert.equal(byPnpm.code, 1, byPnpm.stdout + byPnpm.stderr)
    assert.equal(byLode.code, 1, byLode.stderr)
    assert.equal(byLode.stdout, byPnpm.stdout, args.join(' '))
  }
  const report = (await lodeExactly(project, ['peers', 'check'])).stdout
  assert.match(report, /^Issues with peer dependencies found\n\n✕ unmet peer peer-a\n {2}Installed: 1\.0\.0\n {2}Wanted:\n {4}">=2 <3":\n {6}also-needs-a@3\.1\.0\n {4}\^2\.0\.0:\n {6}needs-a@1\.0\.0\n/)
  assert.match(report, /✕ missing peer peer-b\n/)
  assert.match(report, /✕ conflicting peer peer-c\n/)
  assert.doesNotMatch(report, /peer-d/)
  const json = { pnpm: await pnpmExactly(project, ['peers', 'check', '--json']), lode: await lodeExactly(project, ['peers', 'check', '--json']) }
  assert.equal(json.lode.code, 1)
  assert.deepEqual(JSON.parse(json.lode.stdout), JSON.parse(json.pnpm.stdout))
})

test('peers check without an issue, and with peerDependencyRules that allow the issues: pnpm 11\'s line, exit code 0', async () => {
  const fine = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'peer-e': '1.5.0', fine: '1.0.0' } })
  await installedByPnpm(fine)
  const clean = { pnpm: await pnpmExactly(fine, ['peers', 'check']), lode: await lodeExactly(fine, ['peers', 'check']) }
  assert.equal(clean.pnpm.code, 0, clean.pnpm.stdout)
  assert.equal(clean.lode.code, 0, clean.lode.stderr)
  assert.equal(clean.lode.stdout, clean.pnpm.stdout)
  assert.equal(clean.lode.stdout, 'No peer dependency issues found\n')
  // Another subcommand: the help, and exit code 1, as pnpm.
  const other = { pnpm: await pnpmExactly(fine, ['peers', 'list']), lode: await lodeExactly(fine, ['peers', 'list']) }
  assert.equal(other.pnpm.code, 1)
  assert.equal(other.lode.code, 1)
  assert.match(other.lode.stdout, /^Usage: lode peers check/)
  const ruled = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'peer-a': '1.0.0', 'needs-a': '1.0.0', 'wants-b': '1.0.0' } }, {
    'pnpm-workspace.yaml': 'autoInstallPeers: false\npeerDependencyRules:\n  ignoreMissing:\n    - peer-b\n  allowedVersions:\n    needs-a>peer-a: "1"\n',
  })
  await installedByPnpm(ruled)
  const allowed = { pnpm: await pnpmExactly(ruled, ['peers', 'check']), lode: await lodeExactly(ruled, ['peers', 'check']) }
  assert.equal(allowed.lode.code, allowed.pnpm.code, allowed.pnpm.stdout)
  assert.equal(allowed.lode.stdout, allowed.pnpm.stdout)
  assert.equal(allowed.lode.stdout, 'No peer dependency issues found\n')
})

test('peers check in a workspace: every project\'s issues under its id, or the ones --filter selects', async () => {
  const project = makeProject(registry, { name: 'root', version: '1.0.0', dependencies: { 'wants-b': '1.0.0' } }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\nautoInstallPeers: false\n',
    'packages/one/package.json': JSON.stringify({ name: 'one', version: '1.0.0', dependencies: { 'peer-a': '1.0.0', 'needs-a': '1.0.0' } }),
    'packages/two/package.json': JSON.stringify({ name: 'two', version: '1.0.0', dependencies: { 'wants-c1': '1.0.0', 'wants-c2': '1.0.0' } }),
  })
  await installedByPnpm(project)
  for (const args of [['peers', 'check'], ['--filter', 'two', 'peers', 'check'], ['-r', 'peers', 'check']]) {
    const byPnpm = await pnpmExactly(project, args)
    const byLode = await lodeExactly(project, args)
    assert.equal(byLode.code, byPnpm.code, `${args.join(' ')}\n${byPnpm.stdout}`)
    assert.equal(byLode.stdout, byPnpm.stdout, args.join(' '))
  }
})
