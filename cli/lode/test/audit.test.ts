import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { Advisory } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode audit` beside pnpm 11's, on a registry that serves the bulk advisory endpoint: the report
// (tables, paths, counts, JSON), levels and dependency groups, `--fix` and `--ignore` writing
// pnpm-workspace.yaml, and the endpoint's failures.

const ADVISORIES: Record<string, Advisory[]> = {
  'vuln-a': [
    { id: 1001, url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc', title: 'Prototype pollution in vuln-a when parsing a very long and carefully crafted input string', severity: 'high', vulnerable_versions: '<1.0.1', cwe: ['CWE-1321', 'CWE-20'] },
    { id: 1002, url: 'https://github.com/advisories/GHSA-dddd-eeee-ffff', title: 'ReDoS in vuln-a', severity: 'moderate', vulnerable_versions: '>=1.0.0 <1.1.0' },
    // Subsumed by 1002's override (a narrower range, a lower fix): --fix writes no override for it.
    { id: 1006, url: 'https://github.com/advisories/ghsa-mmmm-nnnn-oooo', title: 'Narrow bug', severity: 'low', vulnerable_versions: '>=1.0.0 <1.0.1' },
  ],
  // `<=1.2.0` guesses 1.2.1 as the fix; 1.2.1 is deprecated, so the fix is 1.3.0.
  'vuln-b': [{ id: 1003, url: 'https://github.com/advisories/GHSA-gggg-hhhh-iiii', title: 'Command injection', severity: 'critical', vulnerable_versions: '<=1.2.0' }],
  // No fixed version is published.
  'vuln-c': [{ id: 1004, url: 'https://github.com/advisories/GHSA-jjjj-kkkk-llll', title: 'Unfixed thing', severity: 'low', vulnerable_versions: '<0.6.0' }],
  // No GHSA, no fix to be told from the range.
  'vuln-d': [{ id: 1005, url: 'https://example.com/no-ghsa', title: 'Info only', severity: 'info', vulnerable_versions: '*' }],
  // An advisory for a version nobody installs.
  safe: [{ id: 1007, url: 'https://github.com/advisories/GHSA-pppp-qqqq-rrrr', title: 'Old', severity: 'high', vulnerable_versions: '<1.0.0' }],
}

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'vuln-a', version: '1.0.0' },
    { name: 'vuln-a', version: '1.0.1' },
    { name: 'vuln-a', version: '1.1.0' },
    { name: 'vuln-a', version: '2.0.0' },
    { name: 'vuln-b', version: '1.0.0' },
    { name: 'vuln-b', version: '1.2.1', deprecated: 'broken' },
    // Published now: --fix adds it to minimumReleaseAgeExclude.
    { name: 'vuln-b', version: '1.3.0', publishedAt: new Date().toISOString() },
    { name: 'vuln-c', version: '0.5.0' },
    { name: 'vuln-d', version: '3.0.0' },
    { name: 'mid', version: '1.0.0', dependencies: { 'vuln-a': '1.0.0', 'vuln-d': '3.0.0' } },
    { name: 'mid2', version: '1.0.0', dependencies: { 'vuln-a': '1.0.0' } },
    { name: 'mid3', version: '1.0.0', dependencies: { 'vuln-a': '1.0.0', mid2: '1.0.0' } },
    { name: 'dev-tool', version: '1.0.0', dependencies: { 'vuln-b': '1.0.0', mid: '1.0.0' } },
    { name: 'safe', version: '1.0.0' },
  ])
  registry.advisories = new Map(Object.entries(ADVISORIES))
})
after(async () => { await registry.close() })

const MANIFEST = {
  name: 'aud',
  version: '1.0.0',
  dependencies: { mid: '1.0.0', 'vuln-a': '1.0.0', safe: '1.0.0', mid3: '1.0.0' },
  optionalDependencies: { 'vuln-c': '0.5.0' },
  devDependencies: { 'dev-tool': '1.0.0' },
}

/** The bodies of the audit requests since `from`, parsed, names sorted. */
function auditBodies (from: number): Array<Record<string, string[]>> {
  return registry.recorded.slice(from).filter((request) => request.body !== undefined).map((request) => {
    const body = JSON.parse(request.body!) as Record<string, string[]>
    return Object.fromEntries(Object.entries(body).sort(([a], [b]) => a < b ? -1 : 1))
  })
}

/** pnpm's output as lode words it: its name in hints and error codes. */
function asLode (result: RunResult, pnpmDir: string, lodeDir: string): string {
  return result.stdout.replaceAll('pnpm why', 'lode why').replaceAll('"pnpm install"', '"lode install"').replaceAll(pnpmDir, lodeDir)
}

function workspaceYaml (project: Project): string | undefined {
  const file = path.join(project.dir, 'pnpm-workspace.yaml')
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined
}

test('lode audit prints what pnpm 11 prints: tables, paths, counts, --json, levels and groups', async () => {
  const pnpmProject = makeProject(registry, MANIFEST)
  const lodeProject = cloneProject(pnpmProject)
  const none = await lode(lodeProject, ['audit'])
  assert.equal(none.code, 1)
  assert.match(none.stderr, /^\[ERR_LODE_AUDIT_NO_LOCKFILE\] No pnpm-lock.yaml found: Cannot audit a project without a lockfile/)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const argSets = [[], ['--json'], ['--audit-level', 'high'], ['--audit-level=info'], ['--prod'], ['--dev'], ['--no-optional'], ['--audit-level=critical', '--json'], ['--prod', '--json']]
  for (const args of argSets) {
    const from = registry.recorded.length
    const expected = await pnpm(pnpmProject, ['audit', ...args], true)
    const middle = registry.recorded.length
    const actual = await lode(lodeProject, ['audit', ...args])
    assert.equal(actual.stdout, asLode(expected, pnpmProject.dir, lodeProject.dir), `audit ${args.join(' ')}`)
    assert.equal(actual.code, expected.code, `audit ${args.join(' ')}: exit code`)
    assert.deepEqual(auditBodies(middle), auditBodies(from).slice(0, 1), `audit ${args.join(' ')}: the request`)
  }
  const table = (await lode(lodeProject, ['audit'])).stdout
  assert.match(table, /│ Patched versions {4}│ >=1\.3\.0 /, 'the deprecated 1.2.1 is passed over')
  assert.match(table, /│ Patched versions {4}│ None /)
  assert.match(table, /\.\.\. Found 5 paths, run `lode why vuln-a` for more/)
  assert.doesNotMatch(table, /Info only/, 'info is below the default level')
})

test('lode audit --fix and --ignore write pnpm-workspace.yaml as pnpm 11 does', async () => {
  const pnpmProject = makeProject(registry, MANIFEST, { 'pnpm-workspace.yaml': 'overrides:\n  safe: 1.0.0\n' })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const steps: Array<{ args: string[], fails?: boolean }> = [
    { args: ['--fix', '--audit-level', 'moderate'] },
    { args: ['--fix'] },
    { args: ['--ignore', 'ghsa-DDDD-eeee-ffff', '--ignore', 'GHSA-aaaa-bbbb-cccc'], fails: true },
    { args: ['--ignore', 'GHSA-aaaa-bbbb-cccc'], fails: true },
    { args: [], fails: true },
    { args: ['--json'], fails: true },
    { args: ['--ignore-unfixable'], fails: true },
    { args: ['--fix', 'override'] },
  ]
  for (const { args, fails } of steps) {
    const expected = await pnpm(pnpmProject, ['audit', ...args], fails === true)
    const actual = await lode(lodeProject, ['audit', ...args])
    const label = `audit ${args.join(' ')}`
    assert.equal(actual.stdout + actual.stderr.replace(/^\[ERR_LODE_/, '[ERR_PNPM_'), asLode(expected, pnpmProject.dir, lodeProject.dir), label)
    assert.equal(actual.code, expected.code, `${label}: exit code`)
    assert.equal(workspaceYaml(lodeProject), workspaceYaml(pnpmProject), `${label}: pnpm-workspace.yaml`)
  }
  const yaml = workspaceYaml(lodeProject)!
  assert.match(yaml, /vuln-b@<=1\.2\.0: \^1\.3\.0/)
  assert.match(yaml, /minimumReleaseAgeExclude:\n {2}- vuln-b@1\.3\.0/)
  assert.doesNotMatch(yaml, /Narrow/)
  // The fixes install: no vulnerable vuln-a or vuln-b is left.
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const after = await lode(lodeProject, ['audit', '--audit-level', 'moderate'])
  assert.equal(after.code, 0, after.stdout)
})

test('lode audit in a workspace: paths from each project, --filter, the newer audit.ignore setting', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\naudit:\n  ignore:\n    - GHSA-gggg-hhhh-iiii\n',
    'packages/p1/package.json': JSON.stringify({ name: 'p1', version: '1.0.0', dependencies: { mid: '1.0.0', p2: 'workspace:*' } }),
    'packages/p2/package.json': JSON.stringify({ name: 'p2', version: '1.0.0', devDependencies: { 'dev-tool': '1.0.0' } }),
  }
  const pnpmProject = makeProject(registry, { name: 'root', version: '1.0.0', dependencies: { 'vuln-c': '0.5.0' } }, files)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  for (const args of [[], ['--json'], ['--filter', 'p2'], ['--filter', 'p1', '--prod'], ['--ignore', 'GHSA-jjjj-kkkk-llll']]) {
    const expected = await pnpm(pnpmProject, ['audit', ...args], true)
    const actual = await lode(lodeProject, ['audit', ...args])
    assert.equal(actual.stdout, asLode(expected, pnpmProject.dir, lodeProject.dir), `audit ${args.join(' ')}`)
    assert.equal(actual.code, expected.code)
    assert.equal(workspaceYaml(lodeProject), workspaceYaml(pnpmProject), `audit ${args.join(' ')}: pnpm-workspace.yaml`)
  }
  assert.match((await lode(lodeProject, ['audit'])).stdout, /packages__p2>dev-tool>mid>vuln-a/)
  // audit.ignorePrune: --fix drops the ignored GHSAs no advisory matches.
  for (const project of [pnpmProject, lodeProject]) {
    fs.appendFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), '  ignorePrune: true\n')
    fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), workspaceYaml(project)!.replace('ignore:\n', 'ignore:\n    - GHSA-zzzz-zzzz-zzzz\n'))
  }
  const expected = await pnpm(pnpmProject, ['audit', '--fix'])
  const actual = await lode(lodeProject, ['audit', '--fix'])
  assert.equal(actual.stdout, asLode(expected, pnpmProject.dir, lodeProject.dir))
  assert.match(actual.stdout, /^Removed 1 unused ignored GHSA: GHSA-zzzz-zzzz-zzzz\n/)
  assert.equal(workspaceYaml(lodeProject), workspaceYaml(pnpmProject))
})

test('lode audit fails as pnpm 11 does when the endpoint does not answer, and writes nothing', async () => {
  const pnpmProject = makeProject(registry, { name: 'e', version: '1.0.0', dependencies: { 'vuln-a': '1.0.0' } })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const url = `${registry.url}-/npm/v1/security/advisories/bulk`
  const faults: Array<{ inject: () => void, code: string, message: string }> = [
    { inject: () => { registry.advisories = undefined }, code: 'AUDIT_ENDPOINT_NOT_EXISTS', message: `The audit endpoint (at ${url}) doesn't exist.` },
    { inject: () => { registry.injectFaults('/-/npm/v1/security/advisories/bulk', [{ status: 400, body: 'bad request' }, { status: 400, body: 'bad request' }]) }, code: 'AUDIT_BAD_RESPONSE', message: `The audit endpoint (at ${url}) responded with 400: bad request` },
    { inject: () => { registry.injectFaults('/-/npm/v1/security/advisories/bulk', [{ status: 200, body: '[1]' }, { status: 200, body: '[1]' }]) }, code: 'AUDIT_BAD_RESPONSE', message: `The audit endpoint (at ${url}) returned an unexpected body. Expected an object keyed by package name; got: [1]` },
  ]
  try {
    for (const fault of faults) {
      fault.inject()
      const expected = await pnpm(pnpmProject, ['audit'], true)
      assert.equal(expected.stdout.split('\n')[0], `[ERR_PNPM_${fault.code}] ${fault.message}`)
      const actual = await lode(lodeProject, ['audit', '--fix'])
      assert.equal(actual.code, 1)
      assert.equal(actual.stderr.split('\n')[0], `[ERR_LODE_${fault.code}] ${fault.message}`)
      assert.equal(workspaceYaml(lodeProject), undefined)
      registry.advisories = undefined
      const ignored = await lode(lodeProject, ['audit', '--ignore-registry-errors'])
      assert.equal(ignored.code, 0)
      assert.equal(ignored.stdout, `The audit endpoint (at ${url}) doesn't exist.\n`)
      registry.advisories = new Map(Object.entries(ADVISORIES))
    }
  } finally {
    registry.advisories = new Map(Object.entries(ADVISORIES))
  }
  // A registry that wants a token: the POST carries the configured one, and says what to set without it.
  registry.requiredAuthorization = 'Bearer s3cret'
  try {
    const refused = await lode(lodeProject, ['audit'])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, new RegExp(`^\\[ERR_LODE_FETCH_401\\] POST ${url.replaceAll('.', '\\.')}: the registry requires authentication \\(401\\)`))
    assert.match(refused.stderr, /_authToken=<token>/)
    fs.appendFileSync(path.join(lodeProject.home, '.npmrc'), `//${new URL(registry.url).host}/:_authToken=s3cret\n`)
    const authorized = await lode(lodeProject, ['audit', '--json'])
    assert.equal(authorized.code, 1, authorized.stderr)
    assert.equal(Object.keys((JSON.parse(authorized.stdout) as { advisories: object }).advisories).length, 3)
  } finally {
    registry.requiredAuthorization = undefined
  }
  for (const [args, error] of [
    [['signatures'], /^\[ERR_LODE_COMMAND_NOT_IMPLEMENTED\] lode audit signatures is not implemented yet\./],
    [['--fix', 'update'], /^\[ERR_LODE_COMMAND_NOT_IMPLEMENTED\] lode audit --fix update is not implemented yet\./],
    [['--fix=later'], /^\[ERR_LODE_INVALID_FIX_OPTION\] Invalid value for --fix: later\. Should be one of "override" or "update"/],
    [['--fix', '--ignore', 'GHSA-x'], /^\[ERR_LODE_AUDIT_FIX_WITH_IGNORE\] "--fix" may not be used with "--ignore"/],
    [['--audit-level', 'severe'], /^\[ERR_LODE_BAD_ARGUMENTS\] Invalid value for --audit-level: severe/],
  ] as const) {
    const result = await lode(lodeProject, ['audit', ...args])
    assert.equal(result.code, 1, args.join(' '))
    assert.match(result.stderr, error)
  }
  assert.equal(workspaceYaml(lodeProject), undefined)
})
