import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { after, before, test } from 'node:test'
import { pathToFileURL } from 'node:url'

import { TestRegistry, buildPackageTarball } from '@lode/__utils__.test-fixtures'

import { defaultStoreDir, isolatedEnv, lode, lodeBin, makeProject, pnpm, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

/*
 * What comes into the store is checked, and a store that cannot be written fails cleanly:
 * - a store lode cannot write (a read-only directory, a full disk) ends the install with the coded
 *   error (ERR_LODE_EACCES, ERR_LODE_ENOSPC) naming the file, not a stack from the thread that
 *   wrote it; the project stays as it was and the store indexes nothing it did not write whole;
 * - a tarball whose package.json names another package than the one the registry says it is, is
 *   refused (pnpm refuses it from its store only, ERR_PNPM_UNEXPECTED_PKG_CONTENT_IN_STORE), and
 *   a store row that holds one too; what pnpm allows (an alias, a tarball URL's own name, `v1.0.0`
 *   for `1.0.0`) installs.
 */

let registry: TestRegistry
/** A tarball URL outside the registry's layout (not read as a registry package), whose package.json says `real-name@2.0.0`. */
let urlTarball: string
before(async () => {
  registry = await TestRegistry.start([
    { name: 'a', version: '1.0.0', files: { 'lib/a.js': 'module.exports = "a"\n' } },
    { name: 'b', version: '1.0.0', files: { 'lib/b.js': 'module.exports = "b: new content for the store"\n' } },
    { name: 'honest', version: '1.0.0' },
  ])
  registry.publishPacked({ name: 'claims-other', version: '1.0.0' }, (await buildPackageTarball({ name: 'totally-different', version: '6.6.6' })).tarball)
  registry.publishPacked({ name: 'vpkg', version: '1.0.0' }, (await buildPackageTarball({ name: 'VPkg', version: 'v1.0.0' })).tarball)
  const hosted = registry.publishPacked({ name: 'url-host', version: '1.0.0' }, (await buildPackageTarball({ name: 'real-name', version: '2.0.0' })).tarball)
  hosted.tarballUrl = urlTarball = `${registry.url}url-host/-/download.tgz`
})
after(async () => { await registry.close() })

function writeManifest (project: Project, dependencies: Record<string, string>): void {
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies }))
}

/** A project installed with `a`, its package.json then given more `dependencies`. */
async function installedThenEdited (dependencies: Record<string, string>): Promise<Project> {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0' } })
  const first = await lode(project, ['install'])
  assert.equal(first.code, 0, first.stderr)
  writeManifest(project, { a: '1.0.0', ...dependencies })
  return project
}

/** Another project in `project`'s home: the same store (and metadata cache). */
function sameHome (project: Project, dependencies: Record<string, string>): Project {
  const other = { dir: path.join(path.dirname(project.dir), `project-${fs.readdirSync(path.dirname(project.dir)).length}`), home: project.home }
  fs.mkdirSync(other.dir)
  writeManifest(other, dependencies)
  return other
}

/** The failed command printed a coded error, not a stack, and left the project exactly as it was. */
function assertFailedCleanly (result: RunResult, project: Project, before: Map<string, string>): void {
  assert.equal(result.code, 1, `expected a failure:\n${result.stdout}\n${result.stderr}`)
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace')
  assert.deepEqual([...snapshot(project.dir)].filter(([rel, what]) => before.get(rel) !== what), [], 'nothing in the project changed')
  assert.equal(snapshot(project.dir).size, before.size, 'nothing was added to the project')
}

/** The store index's keys (`<integrity>\t<name>@<version>`). */
function indexKeys (project: Project): string[] {
  const db = new DatabaseSync(path.join(defaultStoreDir(project), 'v11', 'index.db'), { readOnly: true })
  try {
    return db.prepare('SELECT key FROM package_index').all().map((row) => String(row['key']))
  } finally {
    db.close()
  }
}

function required (project: Project, name: string): unknown {
  return createRequire(path.join(project.dir, 'package.json'))(name)
}

/**
 * lode as a user whom permission bits stop: as root, without the capabilities that let root write
 * anywhere (util-linux's setpriv), so that a read-only directory is EACCES as it is for anyone else.
 */
async function lodeUnprivileged (project: Project, args: string[]): Promise<RunResult> {
  const [command, prefix] = process.getuid?.() === 0
    ? ['setpriv', ['--bounding-set', '-dac_override,-dac_read_search', process.execPath]]
    : [process.execPath, []]
  return await new Promise((resolve) => {
    execFile(command, [...prefix, lodeBin, ...args, '--reporter=append-only'], { cwd: project.dir, env: isolatedEnv(project.home) }, (err, stdout, stderr) => {
      if (err !== null && typeof err.code !== 'number') assert.fail(`this test needs ${command} (util-linux's setpriv, as root): ${err.message}`)
      resolve({ code: err === null ? 0 : err.code as number, stdout, stderr })
    })
  })
}

test('a store whose files directories are read-only: exit 1 with ERR_LODE_EACCES naming the CAS file, the project and the store as they were', async () => {
  const project = await installedThenEdited({ b: '1.0.0' })
  const filesDir = path.join(defaultStoreDir(project), 'v11', 'files')
  const prefixes = Array.from({ length: 256 }, (_, i) => path.join(filesDir, i.toString(16).padStart(2, '0')))
  for (const dir of prefixes) {
    fs.mkdirSync(dir, { recursive: true })
    fs.chmodSync(dir, 0o555)
  }
  try {
    const before = snapshot(project.dir)
    const result = await lodeUnprivileged(project, ['install'])
    assertFailedCleanly(result, project, before)
    assert.match(result.stderr, new RegExp(`^\\[ERR_LODE_EACCES\\] Cannot open ${filesDir}/[0-9a-f]{2}/[0-9a-f]{126}: permission denied\\.\\n\\nCheck the permissions`), result.stderr)
    assert.deepEqual(indexKeys(project).filter((key) => key.endsWith('\tb@1.0.0')), [], 'no index row for b')
  } finally {
    for (const dir of prefixes) fs.chmodSync(dir, 0o755)
  }
  // The store writable again, b is downloaded again and installed whole.
  const again = await lode(project, ['install'])
  assert.equal(again.code, 0, again.stderr)
  assert.equal(registry.tarballRequests.filter((url) => url === '/b/-/b-1.0.0.tgz').length, 2)
  assert.deepEqual(required(project, 'b/lib/b.js'), 'b: new content for the store')
})

test('a full disk under the store threads: exit 1 with ERR_LODE_ENOSPC naming the CAS file, the project and the store as they were', async () => {
  assert.ok(fs.existsSync('/dev/full'), 'this test needs /dev/full (Linux) for a real ENOSPC')
  const project = await installedThenEdited({ b: '1.0.0' })
  // In lode's worker threads (not its main thread), every fs.writeSync goes to /dev/full: the
  // kernel's own ENOSPC, as Node reports it, where a full disk would fail the store's writes.
  const preload = path.join(project.home, 'full-disk-in-threads.mjs')
  fs.writeFileSync(preload, [
    "import fs from 'node:fs'",
    "import { isMainThread } from 'node:worker_threads'",
    'if (!isMainThread) {',
    "  const full = fs.openSync('/dev/full', 'w')",
    '  const writeSync = fs.writeSync',
    '  fs.writeSync = (fd, ...rest) => writeSync(full, ...rest)',
    '}',
  ].join('\n'))
  const filesDir = path.join(defaultStoreDir(project), 'v11', 'files')
  const before = snapshot(project.dir)
  const storeBefore = snapshot(filesDir)
  const result = await lode(project, ['install'], { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` })
  assertFailedCleanly(result, project, before)
  assert.match(result.stderr, new RegExp(`^\\[ERR_LODE_ENOSPC\\] Cannot write ${filesDir}/[0-9a-f]{2}/[0-9a-f]{126}: no space left on the device\\.\\n\\nFree some disk space`), result.stderr)
  assert.deepEqual(indexKeys(project).filter((key) => key.endsWith('\tb@1.0.0')), [], 'no index row for b')
  assert.deepEqual([...snapshot(filesDir)].filter(([rel]) => !storeBefore.has(rel) && !/^[0-9a-f]{2}$/.test(rel)), [], 'no file cut short under a digest name')

  const again = await lode(project, ['install'])
  assert.equal(again.code, 0, again.stderr)
  assert.deepEqual(required(project, 'b/lib/b.js'), 'b: new content for the store')
})

const CLAIMS_OTHER_URL = (): string => `${registry.url}claims-other/-/claims-other-1.0.0.tgz`

test('a tarball whose package.json is another package than the registry says is refused, from a cold store: ERR_LODE_UNEXPECTED_PKG_CONTENT; nothing written', async () => {
  const fresh = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { 'claims-other': '1.0.0' } })
  const freshBefore = snapshot(fresh.dir)
  const cold = await lode(fresh, ['install'])
  assertFailedCleanly(cold, fresh, freshBefore)
  assert.equal(cold.stderr.split('\n')[0], `[ERR_LODE_UNEXPECTED_PKG_CONTENT] The tarball of claims-other@1.0.0 from ${CLAIMS_OTHER_URL()} is another package: its package.json says totally-different@6.6.6.`)
  assert.match(cold.stderr, /do not install this version/)
  assert.deepEqual(indexKeys(fresh).filter((key) => /claims-other|totally-different/.test(key)), [], 'no index row for it')

  const project = await installedThenEdited({ 'claims-other': '1.0.0' })
  const before = snapshot(project.dir)
  const result = await lode(project, ['install'])
  assertFailedCleanly(result, project, before)
  assert.match(result.stderr, /^\[ERR_LODE_UNEXPECTED_PKG_CONTENT\] The tarball of claims-other@1\.0\.0 /)
})

test('a store row that holds another package (pnpm put it there from a cold store) is refused as pnpm refuses it: ERR_LODE_UNEXPECTED_PKG_CONTENT_IN_STORE', async () => {
  const poisoner = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { 'claims-other': '1.0.0' } })
  // pnpm 11 checks a package's manifest only when it reads it from its store: from a cold one it installs it.
  await pnpm(poisoner, ['install'])
  assert.ok(indexKeys(poisoner).some((key) => key.endsWith('\tclaims-other@1.0.0')))

  const project = sameHome(poisoner, { 'claims-other': '1.0.0' })
  const before = snapshot(project.dir)
  const result = await lode(project, ['install'])
  assertFailedCleanly(result, project, before)
  assert.equal(result.stderr.split('\n')[0], `[ERR_LODE_UNEXPECTED_PKG_CONTENT_IN_STORE] The store's copy of claims-other@1.0.0 (from ${CLAIMS_OTHER_URL()}) is another package: its package.json says totally-different@6.6.6.`)
  assert.match(result.stderr, /Nothing was installed/)
  // From the lockfile pnpm wrote, too.
  fs.copyFileSync(path.join(poisoner.dir, 'pnpm-lock.yaml'), path.join(project.dir, 'pnpm-lock.yaml'))
  const withLockfile = snapshot(project.dir)
  const frozen = await lode(project, ['install', '--frozen-lockfile'])
  assertFailedCleanly(frozen, project, withLockfile)
  assert.match(frozen.stderr, /^\[ERR_LODE_UNEXPECTED_PKG_CONTENT_IN_STORE\] The store's copy of claims-other@1\.0\.0 /)
  // pnpm, from the same store.
  const pnpmProject = sameHome(poisoner, { 'claims-other': '1.0.0' })
  const refused = await pnpm(pnpmProject, ['install'], true)
  assert.match(refused.stdout, /ERR_PNPM_UNEXPECTED_PKG_CONTENT_IN_STORE/)
})

test('what pnpm allows installs from a cold store and a warm one: an alias, a tarball URL whose package has its own name, a version written v1.0.0, a name in capitals', async () => {
  const dependencies = { 'my-alias': 'npm:honest@1.0.0', vpkg: '1.0.0', 'from-url': urlTarball }
  const cold = makeProject(registry, { name: 'p', version: '1.0.0', dependencies })
  const warm = sameHome(cold, dependencies)
  for (const project of [cold, warm]) {
    const result = await lode(project, ['install'])
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
    assert.deepEqual(required(project, 'my-alias'), { name: 'honest', version: '1.0.0' })
    assert.deepEqual(required(project, 'vpkg'), { name: 'VPkg', version: 'v1.0.0' })
    assert.deepEqual(required(project, 'from-url'), { name: 'real-name', version: '2.0.0' })
  }
  assert.match((await lode(warm, ['install'])).stdout, /Already up to date|reused/)
})
