import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// pnpm 11 checks every lockfile entry against the supply-chain policies (minimumReleaseAge,
// trustPolicy) before an install uses the lockfile, frozen or not, and caches the verdict per
// lockfile. lode refuses the lockfiles pnpm refuses, with the same entries named, and accepts the
// ones pnpm accepts.

const hoursAgo = (hours: number): string => new Date(Date.now() - hours * 3_600_000).toISOString()
const PROVENANCE = { provenance: { predicateType: 'https://slsa.dev/provenance/v1' } }

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'old', version: '1.0.0', dependencies: { young: '^1.0.0' } },
    { name: 'young', version: '1.0.0', publishedAt: hoursAgo(1) },
    { name: 'gone', version: '1.0.0' },
    { name: 'gone', version: '2.0.0' },
    { name: 'trusted', version: '1.0.0', publishedAt: '2025-01-01T00:00:00.000Z', attestations: PROVENANCE },
    { name: 'trusted', version: '1.1.0', publishedAt: '2025-02-01T00:00:00.000Z' },
    { name: 'plain', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

/** A project whose lockfile lode resolved with no minimumReleaseAge, then given `settings` in pnpm-workspace.yaml. */
async function lockedProject (dependencies: Record<string, string>, settings: string): Promise<Project> {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies }, { 'pnpm-workspace.yaml': 'minimumReleaseAge: 0\n' })
  const resolved = await lode(project, ['install', '--lockfile-only'])
  assert.equal(resolved.code, 0, resolved.stderr)
  fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), settings)
  return project
}

/** The error line and the entries it names, with the times of this run masked. */
function violations (result: RunResult, tool: 'pnpm' | 'lode'): string[] {
  const output = `${result.stdout}\n${result.stderr}`
  const start = output.search(new RegExp(`\\[ERR_${tool.toUpperCase()}_`))
  assert.notEqual(start, -1, `${tool} printed no error:\n${output}`)
  const lines = output.slice(start).split('\n')
  const end = lines.indexOf('')
  return lines.slice(0, end === -1 ? undefined : end)
    .map((line) => line.replace(/\[ERR_(?:PNPM|LODE)_/, '[ERR_').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>'))
}

/** Both tools on copies of `project` with `args`: both fail naming the same entries, and lode changes nothing. */
async function bothRefuse (project: Project, args: string[]): Promise<string[]> {
  const pnpmProject = cloneProject(project)
  const refusedByPnpm = await pnpm(pnpmProject, args, true)
  const before = snapshot(project.dir)
  const refusedByLode = await lode(project, args)
  assert.notEqual(refusedByLode.code, 0, refusedByLode.stdout)
  // Entries that fail before any registry is asked are refused without the check's lines, by both.
  if (/Verifying lockfile/.test(refusedByPnpm.stdout)) assert.match(refusedByLode.stdout, /^✗ Lockfile failed supply-chain policy check \(\d+ entr(?:y|ies) in \d+m?s\)$/m)
  else assert.doesNotMatch(refusedByLode.stdout, /supply-chain/)
  assert.deepEqual(snapshot(project.dir), before, 'lode changed nothing')
  const named = violations(refusedByLode, 'lode')
  assert.deepEqual(named, violations(refusedByPnpm, 'pnpm'))
  return named
}

test('an entry younger than minimumReleaseAge: pnpm 11 and lode refuse the lockfile, frozen or not, naming it; lode changes nothing', async () => {
  const project = await lockedProject({ old: '1.0.0' }, '')
  for (const args of [['install', '--frozen-lockfile'], ['install'], ['install', '--frozen-lockfile', '--lockfile-only']]) {
    assert.deepEqual(await bothRefuse(project, args), [
      '[ERR_MINIMUM_RELEASE_AGE_VIOLATION] 1 lockfile entries failed verification:',
      '  young@1.0.0 was published at <time>, within the minimumReleaseAge cutoff (<time>)',
    ])
  }
  // Installed before the policy was set: node_modules (and lode's record of it) stays as it was too.
  const installed = await lockedProject({ old: '1.0.0' }, 'minimumReleaseAge: 0\n')
  assert.equal((await lode(installed, ['install'])).code, 0)
  fs.writeFileSync(path.join(installed.dir, 'pnpm-workspace.yaml'), 'minimumReleaseAge: 600\n')
  const before = snapshot(installed.dir)
  const refused = await lode(installed, ['install', '--frozen-lockfile'])
  assert.deepEqual(violations(refused, 'lode').slice(1), ['  young@1.0.0 was published at <time>, within the minimumReleaseAge cutoff (<time>)'])
  assert.deepEqual(snapshot(installed.dir), before)
})

test('the check runs beside the downloads: packages are fetched while it waits on the registry, and its failure leaves the project as it was', async () => {
  const project = await lockedProject({ old: '1.0.0' }, 'minimumReleaseAge: 600\n')
  const before = snapshot(project.dir)
  const requestsBefore = registry.recorded.length
  // The check's answer for young comes late: the tarballs are asked for meanwhile.
  registry.responseDelay = (url) => url === '/young' ? 1500 : 0
  try {
    const refused = await lode(project, ['install', '--frozen-lockfile'])
    assert.notEqual(refused.code, 0, refused.stdout)
    assert.deepEqual(violations(refused, 'lode'), [
      '[ERR_MINIMUM_RELEASE_AGE_VIOLATION] 1 lockfile entries failed verification:',
      '  young@1.0.0 was published at <time>, within the minimumReleaseAge cutoff (<time>)',
    ])
  } finally {
    registry.responseDelay = undefined
  }
  const tarballs = registry.recorded.slice(requestsBefore).filter((request) => request.url.endsWith('.tgz'))
  assert.deepEqual(tarballs.map((request) => request.url).sort(), ['/old/-/old-1.0.0.tgz', '/young/-/young-1.0.0.tgz'], 'downloaded beside the check')
  assert.deepEqual(snapshot(project.dir), before, 'no node_modules, no lockfile change')
  // The root's own scripts before the install wait for the verdict: a refused lockfile ran none.
  const manifest = JSON.parse(fs.readFileSync(path.join(project.dir, 'package.json'), 'utf8')) as Record<string, unknown>
  const script = 'node -e "require(\'fs\').writeFileSync(\'ran-\' + process.env.npm_lifecycle_event, \'\')"'
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ ...manifest, scripts: { preinstall: script, 'pnpm:devPreinstall': script } }))
  const withScripts = snapshot(project.dir)
  assert.notEqual((await lode(project, ['install', '--frozen-lockfile'])).code, 0)
  assert.deepEqual(snapshot(project.dir), withScripts, 'no script ran')
  fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'minimumReleaseAge: 600\nminimumReleaseAgeExclude: [young]\n')
  assert.equal((await lode(project, ['install', '--frozen-lockfile'])).code, 0)
  assert.deepEqual(['ran-pnpm:devPreinstall', 'ran-preinstall'].map((file) => fs.existsSync(path.join(project.dir, file))), [true, true], 'they run once it passes')
})

test('minimumReleaseAgeExclude: both accept the lockfile, and lode installs it', async () => {
  for (const exclude of ['[young]', '[young@1.0.0]', '["young@1.0.0 || 2.0.0"]']) {
    const project = await lockedProject({ old: '1.0.0' }, `minimumReleaseAgeExclude: ${exclude}\n`)
    const pnpmProject = cloneProject(project)
    const byPnpm = await pnpm(pnpmProject, ['install', '--frozen-lockfile'])
    assert.match(byPnpm.stdout, /✓ Lockfile passes supply-chain policies \(2 entries in/)
    const byLode = await lode(project, ['install', '--frozen-lockfile'])
    assert.equal(byLode.code, 0, byLode.stdout + byLode.stderr)
    assert.match(byLode.stdout, /^\? Verifying lockfile against supply-chain policies \(2 entries\)\.\.\.$/m)
    assert.match(byLode.stdout, /^✓ Lockfile passes supply-chain policies \(2 entries in \d+m?s\)$/m)
    assert.equal(fs.existsSync(path.join(project.dir, 'node_modules', '.pnpm', 'young@1.0.0')), true)
  }
})

test('an entry whose version the registry no longer lists: both refuse it', async () => {
  const project = await lockedProject({ gone: '1.0.0' }, '')
  const versions = registry.packages.get('gone')!
  registry.packages.set('gone', versions.filter((pkg) => pkg.version !== '1.0.0'))
  try {
    assert.deepEqual(await bothRefuse(project, ['install', '--frozen-lockfile', '--lockfile-only']), [
      '[ERR_MINIMUM_RELEASE_AGE_VIOLATION] 1 lockfile entries failed verification:',
      '  gone@1.0.0 could not be checked against minimumReleaseAge (version not present in registry manifest)',
    ])
  } finally {
    registry.packages.set('gone', versions)
  }
})

test('trustPolicy: no-downgrade refuses an entry published with weaker trust evidence (ERR_LODE_TRUST_DOWNGRADE); with a young entry too, both kinds are named', async () => {
  const trust = await lockedProject({ trusted: '^1.0.0' }, 'minimumReleaseAge: 0\ntrustPolicy: no-downgrade\n')
  assert.deepEqual(await bothRefuse(trust, ['install', '--frozen-lockfile', '--lockfile-only']), [
    '[ERR_TRUST_DOWNGRADE] 1 lockfile entries failed verification:',
    '  trusted@1.1.0 High-risk trust downgrade for "trusted@1.1.0" (possible package takeover)',
  ])
  const both = await lockedProject({ trusted: '^1.0.0', old: '1.0.0' }, 'trustPolicy: no-downgrade\n')
  assert.deepEqual(await bothRefuse(both, ['install', '--frozen-lockfile', '--lockfile-only']), [
    '[ERR_LOCKFILE_RESOLUTION_VERIFICATION] 2 lockfile entries failed verification:',
    '  trusted@1.1.0 [TRUST_DOWNGRADE] High-risk trust downgrade for "trusted@1.1.0" (possible package takeover)',
    '  young@1.0.0 [MINIMUM_RELEASE_AGE_VIOLATION] was published at <time>, within the minimumReleaseAge cutoff (<time>)',
  ])
  fs.writeFileSync(path.join(trust.dir, 'pnpm-workspace.yaml'), 'minimumReleaseAge: 0\ntrustPolicy: no-downgrade\ntrustPolicyExclude: [trusted@1.1.0]\n')
  await pnpm(cloneProject(trust), ['install', '--frozen-lockfile'])
  const accepted = await lode(trust, ['install', '--frozen-lockfile'])
  assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr)
})

test('trustLockfile: true skips the check: nothing is asked of the registry, the lockfile is installed as it is', async () => {
  const project = await lockedProject({ old: '1.0.0' }, 'trustLockfile: true\n')
  await pnpm(cloneProject(project), ['install', '--frozen-lockfile'])
  const metadataBefore = registry.metadataRequests.length
  const result = await lode(project, ['install', '--frozen-lockfile'])
  assert.equal(result.code, 0, result.stdout + result.stderr)
  assert.doesNotMatch(result.stdout, /supply-chain/)
  assert.equal(registry.metadataRequests.length, metadataBefore)
})

test('the verdict is cached by the lockfile\'s content and policy: the next install of it asks the registry nothing; a stricter policy checks again', async () => {
  const project = await lockedProject({ old: '1.0.0', plain: '1.0.0' }, 'minimumReleaseAge: 30\n')
  const first = await lode(project, ['install', '--frozen-lockfile'])
  assert.equal(first.code, 0, first.stdout + first.stderr)
  assert.match(first.stdout, /^✓ Lockfile passes supply-chain policies \(3 entries in/m)
  // The no-op asks nothing and checks nothing.
  const requestsBefore = registry.requests.length
  const noop = await lode(project, ['install', '--frozen-lockfile'])
  assert.match(noop.stdout, /^Already up to date$/m)
  // Another setting: the install runs again, and the lockfile's verdict is taken from the cache.
  fs.appendFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'networkConcurrency: 8\n')
  const cached = await lode(project, ['install', '--frozen-lockfile'])
  assert.equal(cached.code, 0, cached.stdout + cached.stderr)
  assert.match(cached.stdout, /^✓ Lockfile passes supply-chain policies \(verified \d+(?:ms|s|m) ago\)$/m)
  assert.doesNotMatch(cached.stdout, /Verifying/)
  assert.deepEqual(registry.requests.slice(requestsBefore), [], 'nothing asked of the registry')
  // A weaker policy is covered by the verdict; a stricter one is not.
  fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'minimumReleaseAge: 10\n')
  assert.match((await lode(project, ['install', '--frozen-lockfile'])).stdout, /\(verified \d+(?:ms|s|m) ago\)/)
  fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'minimumReleaseAge: 45\n')
  assert.match((await lode(project, ['install', '--frozen-lockfile'])).stdout, /^\? Verifying lockfile against supply-chain policies \(3 entries\)\.\.\.$/m)
})

test('a lockfile lode resolved is recorded as verified, as pnpm records its own', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { plain: '1.0.0' } })
  const resolved = await lode(project, ['install'])
  assert.equal(resolved.code, 0, resolved.stderr)
  assert.doesNotMatch(resolved.stdout, /supply-chain/)
  const metadataBefore = registry.metadataRequests.length
  const frozen = await lode(project, ['install', '--frozen-lockfile', '--lockfile-only'])
  assert.match(frozen.stdout, /^✓ Lockfile passes supply-chain policies \(verified \d+(?:ms|s|m) ago\)$/m)
  assert.equal(registry.metadataRequests.length, metadataBefore)
})

test('a registry-style entry backed by a directory, a tarball URL or integrity that is not the registry\'s, a dependency name that is no package name: both refuse the lockfile', async () => {
  const project = await lockedProject({ plain: '1.0.0' }, '')
  const lockfile = path.join(project.dir, 'pnpm-lock.yaml')
  const text = fs.readFileSync(lockfile, 'utf8')
  fs.writeFileSync(lockfile, text.replace(/resolution: \{integrity: [^}]+\}/, 'resolution: {directory: plain, type: directory}'))
  assert.deepEqual(await bothRefuse(project, ['install', '--frozen-lockfile', '--lockfile-only']), [
    '[ERR_RESOLUTION_SHAPE_MISMATCH] 1 lockfile entries failed verification:',
    '  plain@1.0.0 a registry-style dependency path is backed by a non-registry resolution',
  ])
  // A tarball URL the registry does not publish for the version, and an entry without an integrity.
  const moved = await lockedProject({ plain: '1.0.0' }, 'minimumReleaseAge: 0\n')
  const movedLockfile = path.join(moved.dir, 'pnpm-lock.yaml')
  const elsewhere = `${registry.url}elsewhere/-/plain-1.0.0.tgz`
  fs.writeFileSync(movedLockfile, fs.readFileSync(movedLockfile, 'utf8').replace(/resolution: \{integrity: ([^}]+)\}/, `resolution: {integrity: $1, tarball: '${elsewhere}'}`))
  assert.deepEqual(await bothRefuse(moved, ['install', '--frozen-lockfile', '--lockfile-only']), [
    '[ERR_TARBALL_URL_MISMATCH] 1 lockfile entries failed verification:',
    `  plain@1.0.0 has a tarball URL (${elsewhere}) that does not match the registry's published metadata (${registry.url}plain/-/plain-1.0.0.tgz)`,
  ])
  fs.writeFileSync(movedLockfile, fs.readFileSync(movedLockfile, 'utf8').replace(/resolution: \{integrity: [^,]+, tarball: ([^}]+)\}/, 'resolution: {tarball: $1}'))
  assert.deepEqual(await bothRefuse(moved, ['install', '--frozen-lockfile', '--lockfile-only']), [
    '[ERR_MISSING_TARBALL_INTEGRITY] 1 lockfile entries failed verification:',
    '  plain@1.0.0 has no "integrity" field, so its downloaded tarball cannot be verified',
  ])
  const aliased = await lockedProject({ old: '1.0.0' }, 'minimumReleaseAge: 0\n')
  const aliasedLockfile = path.join(aliased.dir, 'pnpm-lock.yaml')
  fs.writeFileSync(aliasedLockfile, fs.readFileSync(aliasedLockfile, 'utf8').replace(/(\n {2}old@1\.0\.0:\n {4}dependencies:\n {6})young:/, "$1'../young':"))
  assert.deepEqual(await bothRefuse(aliased, ['install', '--frozen-lockfile', '--lockfile-only']), [
    '[ERR_INVALID_DEPENDENCY_NAME] The lockfile contains 1 dependency alias that are not valid package names:',
    '  "../young"',
  ])
})
