import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { Fault } from '@lode/__utils__.test-fixtures'

import { changesOutside, lode, makeProject, pnpm, snapshot } from './helpers.js'
import type { Project } from './helpers.js'

/*
 * A failed command changes nothing: an install whose download fails leaves the project (package.json,
 * pnpm-lock.yaml, node_modules and its state files) byte for byte as it was. And installs that run at
 * once, in one project or on one store, all succeed.
 */

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'a', version: '1.0.0', bin: { 'a-cli': 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\n' } },
    { name: 'b', version: '1.0.0', dependencies: { c: '1.0.0' } },
    { name: 'c', version: '1.0.0' },
    ...Array.from({ length: 12 }, (_, i) => ({ name: `many-${i}`, version: '1.0.0', dependencies: { c: '1.0.0' }, files: { [`lib/${i}.js`]: `module.exports = ${i}` } })),
  ])
})
after(async () => { await registry.close() })

/** Quick retries, in pnpm's global config file (as pnpm 11, lode reads only registry and auth settings from .npmrc). */
function fastRetries (project: Project): void {
  const file = path.join(project.home, '.config', 'pnpm', 'config.yaml')
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.appendFileSync(file, 'fetchRetries: 1\nfetchRetryMintimeout: 10\nfetchRetryMaxtimeout: 10\n')
}

/** A project installed with `a`, then given `b` (which depends on `c`) in package.json, with quick retries. */
async function installedThenEdited (): Promise<Project> {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0' } })
  fastRetries(project)
  const first = await lode(project, ['install'])
  assert.equal(first.code, 0, first.stderr)
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', b: '1.0.0' } }))
  return project
}

const FAULTS: Array<{ name: string, faults: Fault[], code: RegExp }> = [
  { name: 'HTTP 500', faults: Array.from({ length: 4 }, () => ({ status: 500 })), code: /^\[ERR_LODE_FETCH_500\]/ },
  { name: 'HTTP 404', faults: [{ status: 404 }], code: /^\[ERR_LODE_NOT_FOUND\]/ },
  { name: 'a connection reset', faults: Array.from({ length: 4 }, () => ({ reset: true as const })), code: /^\[ERR_LODE_FETCH_FAILED\]/ },
  { name: 'a reset mid-body', faults: Array.from({ length: 4 }, () => ({ resetMidBody: true as const })), code: /^\[ERR_LODE_FETCH_FAILED\]/ },
  { name: 'a truncated body', faults: Array.from({ length: 4 }, () => ({ truncate: true as const })), code: /^\[ERR_LODE_FETCH_FAILED\]/ },
]

test('a tarball download that fails (500, 404, reset, reset mid-body, truncated) leaves the project exactly as it was', async () => {
  for (const { name, faults, code } of FAULTS) {
    const project = await installedThenEdited()
    const before = snapshot(project.dir)
    registry.injectFaults('/c/-/c-1.0.0.tgz', faults)
    const result = await lode(project, ['install'])
    assert.equal(result.code, 1, `${name}: expected a failure:\n${result.stdout}`)
    assert.match(result.stderr, code, name)
    assert.match(result.stderr, /\bc@1\.0\.0\b|\/c\/-\/c-1\.0\.0\.tgz/, `${name}: the error names the package`)
    assert.deepEqual([...snapshot(project.dir)].filter(([rel, what]) => before.get(rel) !== what), [], `${name}: nothing in the project changed`)
    assert.deepEqual([...before.keys()].filter((rel) => !fs.existsSync(path.join(project.dir, rel)) && fs.lstatSync(path.join(project.dir, rel), { throwIfNoEntry: false }) === undefined), [], `${name}: nothing was removed`)
    // The faults used up or not, the next install completes.
    registry.injectFaults('/c/-/c-1.0.0.tgz', [])
    await clearFaults('/c/-/c-1.0.0.tgz', project)
  }
})

/** Lets the registry answer again (spending what faults are left) and checks the project then installs. */
async function clearFaults (url: string, project: Project): Promise<void> {
  for (let attempt = 0; attempt < 6; attempt++) {
    const result = await lode(project, ['install'])
    if (result.code === 0) {
      assert.equal((createRequire(path.join(project.dir, 'package.json'))('b') as { name: string }).name, 'b')
      return
    }
  }
  assert.fail(`the project did not install once the faults on ${url} were spent`)
}

test('a tarball that fails its integrity check leaves the project as it was', async () => {
  const corrupt = await TestRegistry.start([{ name: 'a', version: '1.0.0' }, { name: 'bad', version: '1.0.0' }])
  try {
    const project = makeProject(corrupt, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0' } })
    fastRetries(project)
    assert.equal((await lode(project, ['install'])).code, 0)
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', bad: '1.0.0' } }))
    // The registry serves other bytes than the packument's integrity promises.
    const published = corrupt.packages.get('bad')![0]!
    published.tarball = Buffer.from(published.tarball).reverse()
    const before = snapshot(project.dir)
    const result = await lode(project, ['install'])
    assert.equal(result.code, 1)
    assert.match(result.stderr, /^\[ERR_LODE_TARBALL_INTEGRITY\] The tarball of bad@1\.0\.0/)
    assert.deepEqual([...snapshot(project.dir)].filter(([rel, what]) => before.get(rel) !== what), [])
    assert.equal(before.size, snapshot(project.dir).size)
  } finally {
    await corrupt.close()
  }
})

test('a first install that fails leaves no node_modules and no lockfile', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', b: '1.0.0' } })
  fastRetries(project)
  registry.injectFaults('/c/-/c-1.0.0.tgz', [{ status: 404 }])
  const result = await lode(project, ['install'])
  assert.equal(result.code, 1, result.stdout)
  assert.deepEqual(fs.readdirSync(project.dir), ['package.json'])
})

test('two installs at once in one project both succeed: the second waits for the first, then finds it done', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', b: '1.0.0', ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`many-${i}`, '1.0.0'])) } })
  const results = await Promise.all([lode(project, ['install']), lode(project, ['install'])])
  for (const result of results) assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
  const projectRequire = createRequire(path.join(project.dir, 'package.json'))
  assert.equal((projectRequire('b') as { name: string }).name, 'b')
  for (let i = 0; i < 12; i++) assert.equal(projectRequire(`many-${i}/lib/${i}.js`), i)
  assert.ok(fs.existsSync(path.join(project.dir, 'node_modules', '.bin', 'a-cli')))
  assert.deepEqual(fs.readdirSync(path.join(project.dir, 'node_modules')).filter((entry) => entry.startsWith('.lode-install')), [], 'the lock is released')
  // And again, over an existing node_modules with a changed package.json.
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { b: '1.0.0', 'many-3': '1.0.0' } }))
  const again = await Promise.all([lode(project, ['install']), lode(project, ['install']), lode(project, ['install'])])
  for (const result of again) assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
  assert.equal(fs.existsSync(path.join(project.dir, 'node_modules', 'a')), false)
  assert.equal(createRequire(path.join(project.dir, 'package.json'))('many-3/lib/3.js'), 3)
})

test('several lode installs and pnpm 11 on one cold store at once all succeed, and every file in the store matches its name', async () => {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-shared-store-'))
  const manifest = { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', b: '1.0.0', ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`many-${i}`, '1.0.0'])) } }
  const projects = Array.from({ length: 4 }, () => makeProject(registry, manifest))
  const runs = await Promise.all([
    ...projects.slice(0, 3).map(async (project) => await lode(project, ['install', '--store-dir', store])),
    pnpm(projects[3]!, ['install', '--store-dir', store]),
  ])
  for (const result of runs) assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
  for (const project of projects) assert.equal(createRequire(path.join(project.dir, 'package.json'))('many-11/lib/11.js'), 11)
  const files = path.join(store, 'v11', 'files')
  let checked = 0
  for (const prefix of fs.readdirSync(files)) {
    for (const name of fs.readdirSync(path.join(files, prefix))) {
      const digest = createHash('sha512').update(fs.readFileSync(path.join(files, prefix, name))).digest('hex')
      assert.equal(`${prefix}${name.replace(/-exec$/, '')}`, digest, `${prefix}/${name} holds what its name says`)
      checked++
    }
  }
  assert.ok(checked > 12, `${checked} store files checked`)
})

test('a lockfile missing a packages entry is resolved again, as pnpm does; --frozen-lockfile refuses it naming the entry', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { b: '1.0.0' } })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  const lockfileFile = path.join(project.dir, 'pnpm-lock.yaml')
  const whole = fs.readFileSync(lockfileFile, 'utf8')
  const broken = whole.replace(/\n {2}c@1\.0\.0:\n {4}resolution: \{[^}]*\}\n/, '\n')
  assert.notEqual(broken, whole)
  fs.writeFileSync(lockfileFile, broken)
  const frozen = await lode(project, ['install', '--frozen-lockfile'])
  assert.equal(frozen.code, 1)
  assert.match(frozen.stderr, /^\[ERR_LODE_OUTDATED_LOCKFILE\] .*no packages entry for c@1\.0\.0/)
  assert.equal(fs.readFileSync(lockfileFile, 'utf8'), broken)
  assert.equal(fs.existsSync(path.join(project.dir, 'node_modules')), false)
  const repaired = await lode(project, ['install'])
  assert.equal(repaired.code, 0, repaired.stderr)
  assert.equal(fs.readFileSync(lockfileFile, 'utf8'), whole)
  assert.equal((createRequire(fs.realpathSync(path.join(project.dir, 'node_modules', 'b', 'package.json')))('c') as { name: string }).name, 'c')
})

test('a tarball damaged once on its way is downloaded again, as pnpm does, and the install succeeds', async () => {
  const flaky = await TestRegistry.start([{ name: 'a', version: '1.0.0' }, { name: 'flaky', version: '1.0.0' }])
  try {
    const project = makeProject(flaky, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', flaky: '1.0.0' } })
    const published = flaky.packages.get('flaky')![0]!
    const good = published.tarball
    published.tarball = Buffer.from(good).reverse()
    // The first download gets damaged bytes; the registry serves the right ones from the second on.
    flaky.responseDelay = (url) => {
      if (url.endsWith('/flaky-1.0.0.tgz')) setImmediate(() => { published.tarball = good })
      return 0
    }
    const result = await lode(project, ['install'])
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
    assert.match(result.stdout, /The tarball of flaky@1\.0\.0 does not match its integrity.*Downloading it again \(2 retries left\)/)
    assert.equal(flaky.tarballRequests.filter((url) => url.endsWith('/flaky-1.0.0.tgz')).length, 2)
    assert.equal((createRequire(path.join(project.dir, 'package.json'))('flaky') as { name: string }).name, 'flaky')
  } finally {
    await flaky.close()
  }
})

test('a damaged store index stops the install with ERR_LODE_STORE_INDEX_CORRUPT, not a stack trace, and changes nothing', async () => {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-corrupt-store-'))
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0' } })
  assert.equal((await lode(project, ['install', '--store-dir', store])).code, 0)
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', b: '1.0.0' } }))
  const indexFile = path.join(store, 'v11', 'index.db')
  fs.writeFileSync(indexFile, Buffer.alloc(fs.statSync(indexFile).size, 0x5a))
  for (const args of [['install'], ['install', '--frozen-lockfile']]) {
    if (args.includes('--frozen-lockfile')) fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
    const before = snapshot(project.dir)
    const result = await lode(project, [...args, '--store-dir', store])
    assert.equal(result.code, 1, result.stdout)
    assert.ok(result.stderr.startsWith(`[ERR_LODE_STORE_INDEX_CORRUPT] The store index ${indexFile} is damaged`), result.stderr)
    assert.deepEqual([...snapshot(project.dir)].filter(([rel, what]) => before.get(rel) !== what), [])
    assert.equal(snapshot(project.dir).size, before.size)
    // The frozen run installs pnpm-lock.yaml as the first run left it (a only).
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { a: '1.0.0' } }))
  }
})

/** Makes `dir` unwritable for this process: chattr +i as root (whom permission bits do not stop), chmod otherwise. Returns the undo. */
function makeUnwritable (dir: string): () => void {
  if (process.getuid?.() !== 0) {
    fs.chmodSync(dir, 0o555)
    return () => { fs.chmodSync(dir, 0o755) }
  }
  const chattr = spawnSync('chattr', ['+i', dir], { encoding: 'utf8' })
  assert.equal(chattr.status, 0, `this test needs chattr (e2fsprogs) to make a directory unwritable for root: ${chattr.error?.message ?? chattr.stderr}`)
  return () => { spawnSync('chattr', ['-i', dir]) }
}

test('a node_modules that cannot be written is a coded error naming the path, not a stack trace, and changes nothing', async () => {
  const project = await installedThenEdited()
  const modulesDir = path.join(project.dir, 'node_modules')
  const undo = makeUnwritable(modulesDir)
  try {
    const before = snapshot(project.dir)
    const result = await lode(project, ['install'])
    assert.equal(result.code, 1, result.stdout)
    assert.match(result.stderr, /^\[ERR_LODE_(EACCES|EPERM)\] Cannot \w+ \S*node_modules\S*: (permission denied|operation not permitted)\.\n\nCheck the permissions/)
    assert.deepEqual([...snapshot(project.dir)].filter(([rel, what]) => before.get(rel) !== what), [])
  } finally {
    undo()
  }
})

test('a metadata cache file that is a directory is a coded error naming it, not a stack trace', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0' } })
  const cacheFile = path.join(project.home, '.cache', 'lode', 'lode-metadata-v4', new URL(registry.url).host.replace(':', '+'), 'a.mpk')
  fs.mkdirSync(path.join(cacheFile, 'child'), { recursive: true })
  const result = await lode(project, ['install'])
  assert.equal(result.code, 1, result.stdout)
  assert.ok(result.stderr.startsWith('[ERR_LODE_'), result.stderr)
  assert.ok(result.stderr.includes(cacheFile), result.stderr)
  assert.deepEqual(fs.readdirSync(project.dir), ['package.json'])
})

test('credentials written in the registry URL are never printed, in warnings or errors', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', 'no-such-package': '1.0.0' } })
  const withSecret = registry.url.replace('http://', 'http://someone:S3CRET-T0KEN@')
  fs.writeFileSync(path.join(project.home, '.npmrc'), `registry=${withSecret}\n`)
  fastRetries(project)
  registry.injectFaults('/a', [{ status: 503 }])
  const result = await lode(project, ['install'])
  assert.equal(result.code, 1)
  assert.match(result.stderr, /^\[ERR_LODE_NOT_FOUND\] no-such-package/)
  assert.match(result.stdout, /\[WARN\] GET http:\/\/\*\*\*@127\.0\.0\.1:\d+\/a error \(503\)/)
  assert.ok(!`${result.stdout}${result.stderr}`.includes('S3CRET'), `${result.stdout}\n${result.stderr}`)
})

test('a tarball over the configured unpacked size, or holding a path that is both a file and a directory, fails naming the package and changes nothing, every time', async () => {
  const hostile = await TestRegistry.start([
    { name: 'a', version: '1.0.0' },
    { name: 'big', version: '1.0.0', files: { 'blob.bin': Buffer.alloc(3 * 1024 * 1024) } },
    { name: 'clash', version: '1.0.0', files: { lib: 'a file', 'lib/index.js': 'module.exports = 1' } },
  ])
  try {
    for (const [dep, code] of [['big', 'ERR_LODE_TARBALL_TOO_LARGE'], ['clash', 'ERR_LODE_TARBALL_PATH_CONFLICT']] as const) {
      const project = makeProject(hostile, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0' } }, { 'pnpm-workspace.yaml': 'tarballMaxUnpackedSize: 1000000\n' })
      assert.equal((await lode(project, ['install'])).code, 0)
      fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', [dep]: '1.0.0' } }))
      const before = snapshot(project.dir)
      // Twice: nothing of the bad tarball stays in the store index to fail differently the next time.
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await lode(project, ['install'])
        assert.equal(result.code, 1, result.stdout)
        assert.ok(result.stderr.startsWith(`[${code}] `), result.stderr)
        assert.ok(result.stderr.includes(`${dep}@1.0.0`), result.stderr)
        assert.deepEqual([...snapshot(project.dir)].filter(([rel, what]) => before.get(rel) !== what), [])
        assert.equal(snapshot(project.dir).size, before.size)
      }
    }
  } finally {
    await hostile.close()
  }
})

test('an install that fails before linking (an outdated lockfile under --frozen-lockfile, a package the registry does not have) changes nothing', async () => {
  const project = await installedThenEdited()
  const before = snapshot(project.dir)
  const frozen = await lode(project, ['install', '--frozen-lockfile'])
  assert.equal(frozen.code, 1)
  assert.match(frozen.stderr, /^\[ERR_LODE_OUTDATED_LOCKFILE\]/)
  assert.deepEqual(changesOutside(before, snapshot(project.dir), []), [], 'the frozen install changed nothing, its state file included')
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', 'no-such-package': '1.0.0' } }))
  const withMissing = snapshot(project.dir)
  const missing = await lode(project, ['install'])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /no-such-package/)
  assert.deepEqual(changesOutside(withMissing, snapshot(project.dir), []), [], 'the failed resolution changed nothing')
})

test('a dependency build that fails leaves package.json, pnpm-lock.yaml and node_modules as they were', async () => {
  const failing = await TestRegistry.start([
    { name: 'a', version: '1.0.0', bin: { 'a-cli': 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\n' } },
    { name: 'a', version: '2.0.0', bin: { 'a-cli': 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\n' } },
    { name: 'c', version: '1.0.0', dependencies: { a: '^1.0.0' } },
    { name: 'gone', version: '1.0.0' },
    { name: 'breaks', version: '1.0.0', bin: { breaks: 'cli.js' }, dependencies: { a: '2.0.0' }, scripts: { postinstall: 'exit 3' }, files: { 'cli.js': '#!/usr/bin/env node\n' } },
  ])
  try {
    const settings = { 'pnpm-workspace.yaml': 'allowBuilds:\n  breaks: true\n' }
    // Over an earlier install: a dependency added, one changed, one removed, a hoisted one replaced.
    const project = makeProject(failing, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', c: '1.0.0', gone: '1.0.0' } }, settings)
    assert.equal((await lode(project, ['install'])).code, 0)
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { a: '2.0.0', c: '1.0.0', breaks: '1.0.0' } }))
    const before = snapshot(project.dir)
    const result = await lode(project, ['install'])
    assert.equal(result.code, 1)
    assert.match(result.stderr, /breaks@1\.0\.0/)
    assert.deepEqual(changesOutside(before, snapshot(project.dir), []), [], 'the failed build changed nothing')
    // A first install: no node_modules is left behind.
    const fresh = makeProject(failing, { name: 'q', version: '1.0.0', dependencies: { breaks: '1.0.0' } }, settings)
    const first = snapshot(fresh.dir)
    assert.equal((await lode(fresh, ['install'])).code, 1)
    assert.deepEqual(changesOutside(first, snapshot(fresh.dir), []), [])
  } finally {
    await failing.close()
  }
})

test('a project preinstall script that fails changes nothing', async () => {
  const project = await installedThenEdited()
  const manifest = JSON.parse(fs.readFileSync(path.join(project.dir, 'package.json'), 'utf8')) as Record<string, unknown>
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ ...manifest, scripts: { preinstall: 'exit 7' } }))
  const before = snapshot(project.dir)
  const result = await lode(project, ['install'])
  assert.equal(result.code, 1)
  assert.match(result.stderr, /preinstall/)
  assert.deepEqual(changesOutside(before, snapshot(project.dir), []), [])
})
