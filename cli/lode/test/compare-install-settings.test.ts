import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { changesOutside, cloneProject, listing, lode, makeProject, pnpm, readLockfileText, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// pnpm 11 and lode on copies of the same projects, for the install settings real monorepos set:
// engineStrict (and engines checks without it), strictPeerDependencies, preferWorkspacePackages
// and cleanupUnusedCatalogs.

const PACKAGES: PackageSpec[] = [
  { name: 'new-node', version: '1.0.0', manifest: { engines: { node: '>=99' } } },
  { name: 'new-node-opt', version: '1.0.0', manifest: { engines: { node: '>=99' } } },
  // A dependency's engines.pnpm is never checked, by pnpm or lode.
  { name: 'node-ok', version: '1.0.0', manifest: { engines: { node: '>=18', pnpm: '>=99' } } },
  { name: 'needs-new-node', version: '1.0.0', dependencies: { 'new-node': '1.0.0' } },
  { name: 'win-only', version: '1.0.0', manifest: { os: ['win32'] } },
  { name: 'ms', version: '2.1.3' },
  { name: 'is-positive', version: '1.0.0' },
  { name: 'is-positive', version: '1.2.0' },
  { name: 'is-positive', version: '2.0.0' },
  { name: 'peer-host', version: '1.0.0' },
  { name: 'peer-host', version: '2.0.0' },
  { name: 'peer-user', version: '1.0.0', manifest: { peerDependencies: { 'peer-host': '^1.0.0' } } },
  { name: 'peer-opt', version: '1.0.0', manifest: { peerDependencies: { 'peer-host': '^1.0.0' }, peerDependenciesMeta: { 'peer-host': { optional: true } } } },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

interface Pair { lodeProject: Project, pnpmProject: Project }

function twoProjects (manifest: Record<string, unknown>, files: Record<string, string> = {}): Pair {
  const lodeProject = makeProject(registry, manifest, files)
  return { lodeProject, pnpmProject: cloneProject(lodeProject) }
}

const output = (result: RunResult): string => `${result.stdout}${result.stderr}`

/** Both run `args` and succeed: the same pnpm-lock.yaml, and (unless `--lockfile-only`) the same node_modules and skipped packages. */
async function bothInstall ({ lodeProject, pnpmProject }: Pair, args: string[]): Promise<{ byLode: RunResult, byPnpm: RunResult }> {
  const byPnpm = await pnpm(pnpmProject, args)
  const byLode = await lode(lodeProject, args)
  assert.equal(byLode.code, 0, output(byLode))
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  if (!args.includes('--lockfile-only')) {
    const tree = (project: Project): string[] => listing(project.dir).filter((file) => !file.endsWith(`.pnpm${path.sep}lock.yaml`))
    assert.deepEqual(tree(lodeProject), tree(pnpmProject))
    const skipped = (project: Project): unknown => (JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as { skipped: unknown }).skipped
    assert.deepEqual(skipped(lodeProject), skipped(pnpmProject))
  }
  return { byLode, byPnpm }
}

/** pnpm fails with `pnpmCode`; lode fails with `lodeCode` and leaves the project (its home's caches and store aside) as it was. */
async function bothFail ({ lodeProject, pnpmProject }: Pair, args: string[], pnpmCode: string, lodeCode: string): Promise<RunResult> {
  const byPnpm = await pnpm(pnpmProject, args, true)
  assert.match(output(byPnpm), new RegExp(pnpmCode))
  const root = path.dirname(lodeProject.dir)
  const before = snapshot(root)
  const byLode = await lode(lodeProject, args)
  assert.equal(byLode.code, 1, output(byLode))
  assert.ok(byLode.stderr.startsWith(`[${lodeCode}] `), byLode.stderr)
  assert.deepEqual(changesOutside(before, snapshot(root), [path.join('home', '.cache'), path.join('home', '.local')]), [])
  return byLode
}

function writeBoth ({ lodeProject, pnpmProject }: Pair, file: string, text: string): void {
  for (const project of [lodeProject, pnpmProject]) fs.writeFileSync(path.join(project.dir, file), text)
}

describe('install settings, beside pnpm 11', () => {
  test('engines: without engineStrict a required dependency Node.js does not satisfy (or of another os) is installed, an optional one skipped', async () => {
    const projects = twoProjects({ name: 'engines', version: '1.0.0', dependencies: { 'needs-new-node': '1.0.0', 'node-ok': '1.0.0', 'win-only': '1.0.0' }, optionalDependencies: { 'new-node-opt': '1.0.0' } })
    await bothInstall(projects, ['install', '--lockfile-only'])
    const { byLode } = await bothInstall(projects, ['install', '--frozen-lockfile'])
    assert.ok(fs.existsSync(path.join(projects.lodeProject.dir, 'node_modules', '.pnpm', 'new-node@1.0.0')))
    assert.ok(!fs.existsSync(path.join(projects.lodeProject.dir, 'node_modules', 'new-node-opt')))
    // As pnpm, a dependency skipped is not among those added, and nothing is said about the ones installed.
    assert.doesNotMatch(byLode.stdout, /new-node-opt|Unsupported/)
  })

  test('engineStrict: a required dependency Node.js does not satisfy fails the install, from a resolution and from the lockfile, changing nothing', async () => {
    const manifest = { name: 'strict-engines', version: '1.0.0', dependencies: { 'needs-new-node': '1.0.0', 'node-ok': '1.0.0' }, optionalDependencies: { 'new-node-opt': '1.0.0' } }
    const projects = twoProjects(manifest, { 'pnpm-workspace.yaml': 'engineStrict: true\n' })
    const failed = await bothFail(projects, ['install'], 'ERR_PNPM_UNSUPPORTED_ENGINE', 'ERR_LODE_UNSUPPORTED_ENGINE')
    assert.ok(failed.stderr.includes(`Unsupported engine for new-node@1.0.0: wanted: {"node":">=99"} (current: {"node":"${process.version}"})`), failed.stderr)
    await bothFail(projects, ['install', '--lockfile-only'], 'ERR_PNPM_UNSUPPORTED_ENGINE', 'ERR_LODE_UNSUPPORTED_ENGINE')
    // A lockfile resolved without it: a frozen install fails; --lockfile-only resolves nothing and passes.
    writeBoth(projects, 'pnpm-workspace.yaml', '')
    await bothInstall(projects, ['install', '--lockfile-only'])
    writeBoth(projects, 'pnpm-workspace.yaml', 'engineStrict: true\n')
    await bothFail(projects, ['install', '--frozen-lockfile'], 'ERR_PNPM_UNSUPPORTED_ENGINE', 'ERR_LODE_UNSUPPORTED_ENGINE')
    await bothInstall(projects, ['install', '--frozen-lockfile', '--lockfile-only'])
    // nodeVersion stands in for the running Node.js.
    writeBoth(projects, 'pnpm-workspace.yaml', 'engineStrict: true\nnodeVersion: 99.1.0\n')
    await bothInstall(projects, ['install', '--frozen-lockfile'])
    assert.ok(fs.existsSync(path.join(projects.lodeProject.dir, 'node_modules', 'new-node-opt')), 'the optional one fits 99.1.0')

    // Only an optional dependency that does not fit: skipped, no failure.
    const optional = twoProjects({ name: 'strict-optional', version: '1.0.0', dependencies: { ms: '2.1.3' }, optionalDependencies: { 'new-node-opt': '1.0.0' } }, { 'pnpm-workspace.yaml': 'engineStrict: true\n' })
    await bothInstall(optional, ['install'])
    // A required package of another os.
    const platform = twoProjects({ name: 'strict-platform', version: '1.0.0', dependencies: { 'win-only': '1.0.0' } }, { 'pnpm-workspace.yaml': 'engineStrict: true\n' })
    await bothFail(platform, ['install'], 'ERR_PNPM_UNSUPPORTED_PLATFORM', 'ERR_LODE_UNSUPPORTED_PLATFORM')
  })

  test('a project\'s own engines: engines.node warns (fails with engineStrict), engines.pnpm is pnpm 11.28.11\'s; its os only warns', async () => {
    const files = (settings: string, a: Record<string, unknown>): Record<string, string> => ({
      'pnpm-workspace.yaml': `packages:\n  - packages/*\n${settings}`,
      'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { ms: '2.1.3' }, ...a }),
    })
    const root = { name: 'root', version: '1.0.0', private: true }
    const warned = twoProjects(root, files('', { engines: { node: '>=99' } }))
    const { byLode, byPnpm } = await bothInstall(warned, ['install'])
    const warning = `Unsupported engine: wanted: {"node":">=99"} (current: {"node":"${process.version}","pnpm":"11.28.11"})`
    assert.ok(byPnpm.stdout.includes(warning) && byLode.stdout.includes(`packages/a: ${warning}`), byLode.stdout)
    const strict = twoProjects(root, files('engineStrict: true\n', { engines: { node: '>=99' } }))
    const failed = await bothFail(strict, ['install'], 'ERR_PNPM_UNSUPPORTED_ENGINE', 'ERR_LODE_UNSUPPORTED_ENGINE')
    assert.ok(failed.stderr.includes(path.join(strict.lodeProject.dir, 'packages', 'a')), failed.stderr)
    const oldPnpm = twoProjects({ ...root, engines: { pnpm: '^10.0.0' } }, files('', {}))
    await bothFail(oldPnpm, ['install', '--lockfile-only'], 'ERR_PNPM_UNSUPPORTED_ENGINE', 'ERR_LODE_UNSUPPORTED_ENGINE')
    const otherOs = twoProjects(root, files('engineStrict: true\n', { os: ['win32'], engines: { node: '>=99' } }))
    const platform = await bothInstall(otherOs, ['install'])
    assert.match(platform.byLode.stdout, /packages\/a: Unsupported platform: wanted: \{"cpu":\["any"\],"os":\["win32"\],"libc":\["any"\]\}/)
  })

  test('strictPeerDependencies: unmet and missing peers found by a resolution fail install, changing nothing; add and a frozen install do not fail', async () => {
    const unmet = twoProjects({ name: 'unmet', version: '1.0.0', dependencies: { 'peer-user': '1.0.0', 'peer-opt': '1.0.0', 'peer-host': '2.0.0' } }, { 'pnpm-workspace.yaml': 'strictPeerDependencies: true\n' })
    // pnpm writes pnpm-lock.yaml (and node_modules) before it fails, so each failure is tried on fresh copies.
    const unmetLockfileOnly = twoProjects(JSON.parse(fs.readFileSync(path.join(unmet.lodeProject.dir, 'package.json'), 'utf8')) as Record<string, unknown>, { 'pnpm-workspace.yaml': 'strictPeerDependencies: true\n' })
    await bothFail(unmetLockfileOnly, ['install', '--lockfile-only'], 'ERR_PNPM_PEER_DEP_ISSUES', 'ERR_LODE_PEER_DEP_ISSUES')
    const failed = await bothFail(unmet, ['install'], 'ERR_PNPM_PEER_DEP_ISSUES', 'ERR_LODE_PEER_DEP_ISSUES')
    assert.ok(failed.stderr.includes('✕ unmet peer peer-host\n  Installed: 2.0.0\n  Wanted:\n    ^1.0.0:\n      peer-opt@1.0.0\n      peer-user@1.0.0') ||
      failed.stderr.includes('✕ unmet peer peer-host\n  Installed: 2.0.0\n  Wanted:\n    ^1.0.0:\n      peer-user@1.0.0\n      peer-opt@1.0.0'), failed.stderr)
    // The rules decide what is an issue.
    writeBoth(unmet, 'pnpm-workspace.yaml', 'strictPeerDependencies: true\npeerDependencyRules:\n  allowedVersions:\n    peer-host: "2"\n')
    await bothInstall(unmet, ['install'])
    // A lockfile installed as it is: no resolution, no peer check.
    writeBoth(unmet, 'pnpm-workspace.yaml', 'strictPeerDependencies: true\n')
    await bothInstall(unmet, ['install', '--frozen-lockfile'])

    const missing = twoProjects({ name: 'missing', version: '1.0.0', dependencies: { 'peer-user': '1.0.0' } }, { 'pnpm-workspace.yaml': 'strictPeerDependencies: true\nautoInstallPeers: false\n' })
    const missingFailed = await bothFail(missing, ['install'], 'ERR_PNPM_PEER_DEP_ISSUES', 'ERR_LODE_PEER_DEP_ISSUES')
    assert.match(missingFailed.stderr, /✕ missing peer peer-host\n {2}Wanted:\n {4}\^1\.0\.0:\n {6}peer-user@1\.0\.0/)

    const adding = twoProjects({ name: 'adding', version: '1.0.0', dependencies: { 'peer-host': '2.0.0' } }, { 'pnpm-workspace.yaml': 'strictPeerDependencies: true\n' })
    await bothInstall(adding, ['add', 'peer-user@1.0.0'])
  })

  test('preferWorkspacePackages: with linkWorkspacePackages, a workspace project a range takes wins over a newer registry version; a locked version stays', async () => {
    const files = (settings: string): Record<string, string> => ({
      'pnpm-workspace.yaml': `packages:\n  - packages/*\nlinkWorkspacePackages: true\n${settings}`,
      'packages/a/package.json': JSON.stringify({ name: 'is-positive', version: '1.0.0' }),
      // Newer in the registry; only in the registry; a tag. (An exact `1.0.0` anywhere would make
      // 1.0.0 the preferred version of every range, and so the workspace's.)
      'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { 'is-positive': '^1.0.0' } }),
      'packages/d/package.json': JSON.stringify({ name: 'd', version: '1.0.0', dependencies: { 'is-positive': '^2.0.0' } }),
      'packages/e/package.json': JSON.stringify({ name: 'e', version: '1.0.0', dependencies: { 'is-positive': 'latest' } }),
    })
    const root = { name: 'root', version: '1.0.0', private: true }
    const without = twoProjects(root, files(''))
    await bothInstall(without, ['install', '--lockfile-only'])
    assert.match(readLockfileText(without.lodeProject), /packages\/b:\n {4}dependencies:\n {6}is-positive:\n {8}specifier: \^1\.0\.0\n {8}version: 1\.2\.0\n/)
    // Turned on over that lockfile, the locked versions stay; resolved afresh, the project is linked.
    writeBoth(without, 'pnpm-workspace.yaml', files('preferWorkspacePackages: true\n')['pnpm-workspace.yaml']!)
    await bothInstall(without, ['install', '--lockfile-only'])
    assert.match(readLockfileText(without.lodeProject), /version: 1\.2\.0\n/)
    const preferred = twoProjects(root, files('preferWorkspacePackages: true\n'))
    await bothInstall(preferred, ['install'])
    assert.match(readLockfileText(preferred.lodeProject), /packages\/b:\n {4}dependencies:\n {6}is-positive:\n {8}specifier: \^1\.0\.0\n {8}version: link:\.\.\/a\n/)
    // Without linkWorkspacePackages, preferWorkspacePackages changes nothing.
    const unlinked = twoProjects(root, { ...files(''), 'pnpm-workspace.yaml': 'packages:\n  - packages/*\npreferWorkspacePackages: true\n' })
    await bothInstall(unlinked, ['install', '--lockfile-only'])
  })

  test('cleanupUnusedCatalogs: catalog entries no project uses leave pnpm-workspace.yaml after an install, its comments and other keys kept as pnpm writes them', async () => {
    const yaml = [
      'packages:',
      '  - packages/*',
      'cleanupUnusedCatalogs: true',
      '',
      '# the default catalog',
      'catalog:',
      '  ms: 2.1.3 # used',
      '  # used as a peer',
      '  peer-host: ^1.0.0',
      '  unused: ^1.0.0  # gone',
      '  peer-user: 1.0.0',
      '',
      'catalogs:',
      '  tools:',
      '    is-positive: ^1.0.0',
      '    new-node: 1.0.0',
      '  # all of it unused',
      '  gone: { node-ok: 1.0.0 }',
      '  # its entry is used with catalog:',
      '  same-name:',
      '    ms: 2.1.3',
      '',
      'overrides:',
      '  peer-user: "catalog:"',
      'packageExtensions: {}',
      '',
    ].join('\n')
    const files = {
      'pnpm-workspace.yaml': yaml,
      'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { 'is-positive': 'catalog:tools' }, peerDependencies: { 'peer-host': 'catalog:' } }),
    }
    const projects = twoProjects({ name: 'root', version: '1.0.0', private: true, dependencies: { ms: 'catalog:' } }, files)
    const workspaceYaml = (project: Project): string => fs.readFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'utf8')
    await bothInstall(projects, ['install', '--lockfile-only'])
    assert.equal(workspaceYaml(projects.lodeProject), workspaceYaml(projects.pnpmProject))
    assert.doesNotMatch(workspaceYaml(projects.lodeProject), /unused|new-node|gone|packageExtensions/)
    assert.match(workspaceYaml(projects.lodeProject), /# the default catalog\ncatalog:\n {2}ms: 2\.1\.3 # used\n/)
    // An install that uses the lockfile as it is prunes too.
    writeBoth(projects, 'pnpm-workspace.yaml', yaml)
    await bothInstall(projects, ['install', '--frozen-lockfile'])
    assert.equal(workspaceYaml(projects.lodeProject), workspaceYaml(projects.pnpmProject))

    // A failed install leaves the file as it was.
    const failing = makeProject(registry, { name: 'root', version: '1.0.0', private: true, dependencies: { ms: 'catalog:', 'not-in-the-registry': '1.0.0' } }, files)
    const before = snapshot(failing.dir)
    const result = await lode(failing, ['install'])
    assert.equal(result.code, 1, output(result))
    assert.deepEqual(changesOutside(before, snapshot(failing.dir), []), [])
  })
})
