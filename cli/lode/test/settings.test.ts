import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'
import { PNPM_SETTINGS, PROJECT_REFUSED_KEYS } from '@lode/pkg-manager.core'

import { changesOutside, cloneProject, lode, makeProject, pnpm, readLockfileText, snapshot, virtualStore } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// pnpm 11 and lode on copies of the same projects: settings lode refuses, accepts or implements;
// the packageManager field; lockfile: false; the scripts pnpm skips and the user agent scripts see;
// trustPolicy.

const PROVENANCE = { url: 'https://attestations.test/tp', provenance: { predicateType: 'https://slsa.dev/provenance/v1' } }
const TRUSTED_PUBLISHER = { name: 'GitHub Actions', email: 'npm-oidc-no-reply@github.com', trustedPublisher: { id: 'github', oidcConfigId: 'oidc:1' } }
// which-pm-runs' reading of npm_config_user_agent, as only-allow uses it: the first `name/version`.
const CHECK_PM = `const pmSpec = (process.env.npm_config_user_agent || '').split(' ')[0]
const name = pmSpec.substring(0, pmSpec.lastIndexOf('/'))
require('fs').writeFileSync(process.argv[3] || 'user-agent.txt', process.env.npm_config_user_agent || '')
if (name !== process.argv[2]) {
  console.error('Use "' + process.argv[2] + '" for installation in this project. You are using ' + (name || 'an unknown package manager'))
  process.exit(1)
}
`

const PACKAGES: PackageSpec[] = [
  { name: 'leaf', version: '1.0.0' },
  { name: 'leaf', version: '1.1.0' },
  { name: 'lf-leaf', version: '1.0.0' },
  { name: 'peer-host', version: '1.0.0' },
  { name: 'plugin', version: '1.0.0', manifest: { peerDependencies: { 'peer-host': '^1.0.0' } } },
  // A build whose preinstall is only-allow's: pnpm skips that script, and the postinstall records the user agent.
  { name: 'needs-build', version: '1.0.0', scripts: { preinstall: 'npx only-allow pnpm', postinstall: 'node check-pm.cjs pnpm built.txt' }, files: { 'check-pm.cjs': CHECK_PM } },
  // tp@1.1.0 lost the trusted publisher 1.0.0 had.
  { name: 'tp', version: '1.0.0', publishedAt: '2025-02-01T00:00:00.000Z', npmUser: TRUSTED_PUBLISHER, attestations: PROVENANCE },
  { name: 'tp', version: '1.1.0', publishedAt: '2025-03-01T00:00:00.000Z' },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

/** The same project for lode and for pnpm. */
function twoProjects (
  manifest: Record<string, unknown>,
  files: Record<string, string> = {}
): { lodeProject: Project, pnpmProject: Project } {
  const lodeProject = makeProject(registry, manifest, files)
  return { lodeProject, pnpmProject: cloneProject(lodeProject) }
}

const output = (result: RunResult): string => `${result.stdout}${result.stderr}`

/** Runs lode, expecting it to fail with `code` and to leave the project and its home as they were. */
async function lodeFailsChangingNothing (project: Project, args: string[], code: string): Promise<RunResult> {
  const root = path.dirname(project.dir)
  const before = snapshot(root)
  const result = await lode(project, args)
  assert.equal(result.code, 1, output(result))
  assert.ok(result.stderr.startsWith(`[${code}] `), result.stderr)
  // The metadata cache may have been filled before a resolution failed; nothing else may change.
  assert.deepEqual(changesOutside(before, snapshot(root), [path.join('home', '.cache')]), [])
  return result
}

describe('settings', () => {
  test('a setting lode refuses fails install with ERR_LODE_UNSUPPORTED_SETTING, changing nothing; pnpm\'s default and accepted settings install as pnpm does', async () => {
    const manifest = { name: 'p', version: '1.0.0', dependencies: { leaf: '^1.0.0' } }
    const refused = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'dedupeDirectDeps: true\ndisallowWorkspaceCycles: true\n' })
    const failed = await lodeFailsChangingNothing(refused, ['install'], 'ERR_LODE_UNSUPPORTED_SETTING')
    assert.match(failed.stderr, /dedupeDirectDeps and disallowWorkspaceCycles in \S+pnpm-workspace\.yaml are not supported by lode yet\./)
    assert.equal(fs.existsSync(path.join(refused.dir, 'node_modules')), false)

    const { lodeProject, pnpmProject } = twoProjects(manifest, {
      'pnpm-workspace.yaml': 'dedupeDirectDeps: false\nshellEmulator: true\nverifyDepsBeforeRun: false\ngitChecks: false\nnotASetting: 1\n',
    })
    const [byLode, byPnpm] = await Promise.all([lode(lodeProject, ['install']), pnpm(pnpmProject, ['install'])])
    assert.equal(byLode.code, 0, output(byLode))
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
    // Both warn about the key neither knows, and go on.
    assert.match(byLode.stdout, /\[WARN\] The following settings in pnpm-workspace\.yaml are not recognized by pnpm 11 or lode and were ignored: "notASetting"/)
    assert.match(output(byPnpm), /not recognized by this version of pnpm and were ignored: "notASetting"/)
  })

  test('.npmrc: a pnpm setting there is not read by either (lode says so); a client certificate is refused, changing nothing', async () => {
    const { lodeProject, pnpmProject } = twoProjects({ name: 'p', version: '1.0.0', dependencies: { plugin: '1.0.0' } }, { '.npmrc': 'auto-install-peers=false\n' })
    const byLode = await lode(lodeProject, ['install'])
    await pnpm(pnpmProject, ['install'])
    assert.equal(byLode.code, 0, output(byLode))
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
    assert.ok(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'peer-host@1.0.0')), 'the peer was installed: auto-install-peers=false was not read')
    assert.match(byLode.stdout, /\.npmrc sets auto-install-peers, which pnpm 11 and lode do not read from \.npmrc .* as autoInstallPeers\./)

    const host = new URL(registry.url).host
    const certified = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { leaf: '^1.0.0' } }, { '.npmrc': `//${host}/:certfile=client.pem\n` })
    const failed = await lodeFailsChangingNothing(certified, ['install'], 'ERR_LODE_UNSUPPORTED_SETTING')
    assert.ok(failed.stderr.includes(path.join(certified.dir, '.npmrc')), failed.stderr)
  })

  test('PNPM_SETTINGS says what lode does with every setting the pnpm 11 beside it knows', () => {
    const bundle = fs.readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('pnpm')), 'dist', 'pnpm.mjs'), 'utf8')
    const block = (start: RegExp): string => {
      const from = bundle.search(start)
      assert.ok(from !== -1, `pnpm's bundle has ${String(start)}`)
      const ends = ['\n    };', '\n    ];'].map((end) => bundle.indexOf(end, from)).filter((at) => at !== -1)
      return bundle.slice(from, Math.min(...ends))
    }
    const camel = (key: string): string => key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
    const objectKeys = (text: string): string[] => [...text.matchAll(/^ {6}(?:"([^"]+)"|([A-Za-z_$][\w$]*)):/gm)].map((m) => camel(m[1] ?? m[2]!))
    const listed = (text: string): string[] => [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]!)
    const known = new Set([
      ...objectKeys(block(/\n {4}npmConfigTypes = \{/)),
      ...objectKeys(block(/\n {4}pnpmTypes = \{/)),
      ...listed(block(/\n {4}TYPED_WORKSPACE_MANIFEST_KEYS = \[/)),
      ...listed(block(/\n {4}CONFIG_ONLY_SETTING_KEYS = \[/)),
      ...listed(block(/\n {4}UNTYPED_WORKSPACE_SETTING_KEYS = \[/)),
    ])
    assert.ok(known.size > 250, `${known.size} settings read from pnpm's bundle`)
    assert.deepEqual([...known].filter((key) => !PNPM_SETTINGS.has(key) && !PROJECT_REFUSED_KEYS.has(key)).sort(), [])
  })
})

describe('packageManager', () => {
  test('another package manager: pnpm and lode fail, changing nothing; pmOnFail: warn makes it a warning in both', async () => {
    const yarn = twoProjects({ name: 'p', version: '1.0.0', packageManager: 'yarn@4.1.0', dependencies: { leaf: '^1.0.0' } })
    const failed = await lodeFailsChangingNothing(yarn.lodeProject, ['install'], 'ERR_LODE_OTHER_PM_EXPECTED')
    assert.match(failed.stderr, /This project is configured to use yarn/)
    assert.match(output(await pnpm(yarn.pnpmProject, ['install'], true)), /This project is configured to use yarn/)

    for (const [manifest, workspace] of [
      [{ packageManager: 'yarn@4.1.0' }, 'pmOnFail: warn\n'],
      [{ devEngines: { packageManager: { name: 'npm', onFail: 'warn' } } }, ''],
    ] as const) {
      const warned = twoProjects({ name: 'p', version: '1.0.0', ...manifest, dependencies: { leaf: '^1.0.0' } }, workspace === '' ? {} : { 'pnpm-workspace.yaml': workspace })
      const byLode = await lode(warned.lodeProject, ['install'])
      const byPnpm = await pnpm(warned.pnpmProject, ['install'])
      assert.equal(byLode.code, 0, output(byLode))
      const name = 'packageManager' in manifest ? 'yarn' : 'npm'
      assert.match(byLode.stdout, new RegExp(`\\[WARN\\] This project is configured to use ${name}`))
      assert.match(output(byPnpm), new RegExp(`This project is configured to use ${name}`))
      assert.equal(readLockfileText(warned.lodeProject), readLockfileText(warned.pnpmProject))
    }
  })

  test('pnpm@<any version> does not stop lode, which stands in for pnpm (pnpm itself would switch to that version)', async () => {
    for (const packageManager of ['pnpm@9.15.0', 'pnpm@11.28.11+sha512.abc', 'lode@0.1.0']) {
      const project = makeProject(registry, { name: 'p', version: '1.0.0', packageManager, dependencies: { leaf: '^1.0.0' } })
      const result = await lode(project, ['install'])
      assert.equal(result.code, 0, output(result))
      assert.doesNotMatch(result.stdout, /configured to use/)
    }
  })
})

describe('lockfile: false', () => {
  test('pnpm-lock.yaml is neither read nor written, node_modules\' own lockfile stands in; as pnpm', async () => {
    const { lodeProject, pnpmProject } = twoProjects({ name: 'p', version: '1.0.0', dependencies: { 'lf-leaf': '^1.0.0', leaf: '^1.0.0' } }, { 'pnpm-workspace.yaml': 'lockfile: false\n' })
    const projects = [lodeProject, pnpmProject]
    const run = async (args: string[], expectFailure = false): Promise<[RunResult, RunResult]> => {
      const byLode = await lode(lodeProject, args)
      assert.equal(byLode.code === 0, !expectFailure, output(byLode))
      return [byLode, await pnpm(pnpmProject, args, expectFailure)]
    }
    await run(['install'])
    for (const project of projects) assert.equal(fs.existsSync(path.join(project.dir, 'pnpm-lock.yaml')), false)
    assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
    const installed = (project: Project): string => fs.readFileSync(path.join(project.dir, 'node_modules', '.pnpm', 'lock.yaml'), 'utf8')
    assert.equal(installed(lodeProject), installed(pnpmProject))

    // A newer version: both keep what node_modules has.
    await registry.publish({ name: 'lf-leaf', version: '1.1.0', publishedAt: '2025-06-01T00:00:00.000Z' })
    await run(['install'])
    for (const project of projects) assert.ok(fs.existsSync(path.join(project.dir, 'node_modules', '.pnpm', 'lf-leaf@1.0.0')))
    assert.equal(installed(lodeProject), installed(pnpmProject))

    // A pnpm-lock.yaml is left alone, with a warning (lode's up-to-date check does not look for it: a manifest changes too).
    for (const project of projects) {
      fs.writeFileSync(path.join(project.dir, 'pnpm-lock.yaml'), installed(project).replace('lf-leaf@1.0.0', 'lf-leaf@9.9.9'))
      fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { 'lf-leaf': '^1.0.0' } }))
    }
    const [byLode, byPnpm] = await run(['install'])
    for (const result of [byLode, byPnpm]) assert.match(output(result), /\[WARN\] A pnpm-lock\.yaml file exists\. The current configuration prohibits to read or write a lockfile/)
    for (const project of projects) assert.match(fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8'), /lf-leaf@9\.9\.9/)
    for (const project of projects) fs.rmSync(path.join(project.dir, 'pnpm-lock.yaml'))

    const [lockfileOnly, pnpmLockfileOnly] = await run(['install', '--lockfile-only'], true)
    assert.match(lockfileOnly.stderr, /^\[ERR_LODE_CONFIG_CONFLICT_LOCKFILE_ONLY_WITH_NO_LOCKFILE\] Cannot generate a pnpm-lock\.yaml because lockfile is set to false/)
    assert.match(output(pnpmLockfileOnly), /ERR_PNPM_CONFIG_CONFLICT_LOCKFILE_ONLY_WITH_NO_LOCKFILE/)

    // A frozen install has no lockfile to install.
    for (const project of projects) fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
    const [frozen, pnpmFrozen] = await run(['install', '--frozen-lockfile'], true)
    assert.match(frozen.stderr, /^\[ERR_LODE_NO_LOCKFILE\]/)
    assert.match(output(pnpmFrozen), /ERR_PNPM_NO_LOCKFILE/)
    for (const project of projects) assert.equal(fs.existsSync(path.join(project.dir, 'pnpm-lock.yaml')), false)
  })
})

describe('scripts', () => {
  test('`npx only-allow pnpm` is skipped (a project\'s or a dependency\'s), and a check of npm_config_user_agent sees pnpm, as under pnpm', async () => {
    const { lodeProject, pnpmProject } = twoProjects({
      name: 'p',
      version: '1.0.0',
      scripts: { preinstall: 'npx only-allow pnpm', postinstall: 'node check-pm.cjs pnpm', check: 'node check-pm.cjs pnpm run-agent.txt' },
      dependencies: { 'needs-build': '1.0.0' },
    }, { 'check-pm.cjs': CHECK_PM, 'pnpm-workspace.yaml': 'allowBuilds:\n  needs-build: true\n' })
    const byLode = await lode(lodeProject, ['install'])
    await pnpm(pnpmProject, ['install'])
    assert.equal(byLode.code, 0, output(byLode))
    const agent = (project: Project, file: string): string => fs.readFileSync(path.join(project.dir, file), 'utf8')
    const built = path.join('node_modules', '.pnpm', 'needs-build@1.0.0', 'node_modules', 'needs-build', 'built.txt')
    assert.match(agent(pnpmProject, 'user-agent.txt'), /^pnpm\/11\.28\.11 npm\/\? node\//)
    assert.match(agent(lodeProject, 'user-agent.txt'), /^pnpm\/11\.28\.11 lode\/\d+\.\d+\.\d+\S* npm\/\? node\/v\d+\.\d+\.\d+ \S+ \S+$/)
    assert.equal(agent(lodeProject, built), agent(lodeProject, 'user-agent.txt'), 'a dependency\'s build sees the same')
    assert.ok(fs.existsSync(path.join(pnpmProject.dir, built)))
    const run = await lode(lodeProject, ['run', 'check'])
    assert.equal(run.code, 0, output(run))
    assert.match(agent(lodeProject, 'run-agent.txt'), /^pnpm\/11\.28\.11 lode\//)
  })
})

describe('trustPolicy: no-downgrade', () => {
  test('a version that lost its trusted publisher is refused by both; the next best is taken for a range; trustPolicyExclude lets it through', async () => {
    const refused = twoProjects({ name: 'p', version: '1.0.0', dependencies: { tp: '1.1.0' } }, { 'pnpm-workspace.yaml': 'trustPolicy: no-downgrade\n' })
    const failed = await lodeFailsChangingNothing(refused.lodeProject, ['install'], 'ERR_LODE_TRUST_DOWNGRADE')
    assert.match(failed.stderr, /High-risk trust downgrade for "tp@1\.1\.0" \(possible package takeover\)/)
    assert.match(output(await pnpm(refused.pnpmProject, ['install'], true)), /ERR_PNPM_TRUST_DOWNGRADE.*High-risk trust downgrade for "tp@1\.1\.0"/)

    const ranged = twoProjects({ name: 'p', version: '1.0.0', dependencies: { tp: '^1.0.0' } }, { 'pnpm-workspace.yaml': 'trustPolicy: no-downgrade\n' })
    const [byLode, byPnpm] = await Promise.all([lode(ranged.lodeProject, ['install']), pnpm(ranged.pnpmProject, ['install'])])
    assert.equal(byLode.code, 0, output(byLode))
    for (const result of [byLode, byPnpm]) assert.match(output(result), /Skipped trust downgrades rejected by trustPolicy: tp@1\.1\.0\. Resolved tp@1\.0\.0 instead\./)
    assert.equal(readLockfileText(ranged.lodeProject), readLockfileText(ranged.pnpmProject))
    assert.match(readLockfileText(ranged.lodeProject), /tp@1\.0\.0/)

    const excluded = twoProjects({ name: 'p', version: '1.0.0', dependencies: { tp: '1.1.0' } }, { 'pnpm-workspace.yaml': 'trustPolicy: no-downgrade\ntrustPolicyExclude:\n  - tp@1.1.0\n' })
    const accepted = await lode(excluded.lodeProject, ['install'])
    await pnpm(excluded.pnpmProject, ['install'])
    assert.equal(accepted.code, 0, output(accepted))
    assert.equal(readLockfileText(excluded.lodeProject), readLockfileText(excluded.pnpmProject))
    assert.match(readLockfileText(excluded.lodeProject), /tp@1\.1\.0/)
  })
})
