import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { pack } from '@lode/pkg-manager.releasing.pack'

import { isolatedEnv } from './helpers.js'

// The release as a user gets it: scripts/release.sh packs the `lode` package, npm installs the
// tarball into an empty prefix and into a consumer project, from the test registry on 127.0.0.1,
// which serves the release's dependencies packed from this repository's own node_modules (so
// nothing reaches another registry). What is installed must run with no file of this checkout.

const run = promisify(execFile)
const cliDir = path.join(import.meta.dirname, '..', '..')
const repoRoot = path.join(cliDir, '..', '..')
const PLAIN_NODE = /^v?(\d+)/

let registry: TestRegistry
let tmp: string
let tarball: string
let release: Record<string, unknown>

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-release-'))
  const { stdout } = await run('bash', [path.join(repoRoot, 'scripts', 'release.sh'), '--no-build', path.join(tmp, 'release')])
  tarball = stdout.trim().split('\n').at(-1)!
  release = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>
  registry = await TestRegistry.start([{ name: 'is-positive', version: '1.0.0' }])
  await serveDependencies(Object.keys(release['dependencies'] as Record<string, string>))
})
after(async () => { await registry.close() })

/** Packs each package the release depends on, and theirs, from where this repository installed them. */
async function serveDependencies (names: string[]): Promise<void> {
  const dest = path.join(tmp, 'deps')
  const served = new Map<string, Record<string, unknown>>()
  const queue = names.map((name) => ({ name, from: cliDir }))
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const dir = installedDir(next.name, next.from)
    if (dir === undefined) continue // an optional dependency for another platform
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>
    const id = `${String(manifest['name'])}@${String(manifest['version'])}`
    if (served.has(id)) continue
    const packed = await pack({
      dir, workspaceDir: undefined, packDestination: dest, catalogs: {}, workspaceManifests: new Map(), keepScripts: true,
    })
    served.set(id, packed.manifest)
    registry.publishPacked(packed.manifest, fs.readFileSync(path.resolve(dir, packed.filename)))
    const deps = { ...packed.manifest['dependencies'] as Record<string, string>, ...packed.manifest['optionalDependencies'] as Record<string, string> }
    for (const name of Object.keys(deps)) queue.push({ name, from: dir })
  }
  // This registry has only this platform's optional packages: the others are left out of the
  // metadata, as a registry that never had them would (npm would not install them here anyway).
  for (const manifest of served.values()) {
    const optional = manifest['optionalDependencies'] as Record<string, string> | undefined
    if (optional === undefined) continue
    for (const name of Object.keys(optional)) if (!registry.packages.has(name)) delete optional[name]
  }
}

/** The directory a package resolves to from `from` (pnpm's layout: a sibling in .pnpm/<id>/node_modules). */
function installedDir (name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json')
    if (fs.existsSync(candidate)) return fs.realpathSync(path.dirname(candidate))
    if (path.dirname(dir) === dir) return undefined
  }
}

/** npm and what lode runs, isolated from this machine's settings and pointed at the test registry. */
function env (home: string): Record<string, string> {
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(home, '.npmrc'), `registry=${registry.url}\n`)
  return {
    ...isolatedEnv(home),
    npm_config_cache: path.join(tmp, 'npm-cache'),
    npm_config_globalconfig: path.join(home, 'npmrc-global'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  }
}

async function npmInstall (args: string[], cwd: string, home: string): Promise<void> {
  await run('npm', ['install', '--no-package-lock', '--loglevel=error', ...args], { cwd, env: env(home) })
}

function project (name: string): string {
  const dir = path.join(tmp, name)
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', dependencies: { 'is-positive': '1.0.0' } }))
  return dir
}

test('the release tarball holds the command, the bundle and one declaration file, and depends only on registry packages', () => {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n')
  assert.deepEqual(files.filter((file) => !file.startsWith('package/dist/bundle/')).sort(),
    ['package/README.md', 'package/bin/lode', 'package/bin/pnpm', 'package/dist/lode.d.ts', 'package/package.json'])
  assert.ok(files.includes('package/dist/bundle/api.js') && files.includes('package/dist/bundle/index.js'))
  assert.ok(files.includes('package/dist/bundle/worker-extract.js') && files.includes('package/dist/bundle/worker-link.js'))
  assert.equal(release['name'], 'lode')
  assert.equal(release['version'], (JSON.parse(fs.readFileSync(path.join(cliDir, 'package.json'), 'utf8')) as { version: string }).version)
  for (const [name, spec] of Object.entries(release['dependencies'] as Record<string, string>)) {
    assert.ok(!name.startsWith('@lode/') && /^\d+\.\d+\.\d+$/.test(spec), `${name}@${spec}`)
  }
})

test('npm installs the release into an empty prefix; its lode prints the version and installs a project', async () => {
  const prefix = path.join(tmp, 'prefix')
  const home = path.join(tmp, 'home-cli')
  await npmInstall(['--global', '--prefix', prefix, tarball], tmp, home)
  // Every dependency came from the test registry, the native addon's package among them.
  const sqlite = (release['dependencies'] as Record<string, string>)['better-sqlite3']!
  assert.ok(registry.tarballRequests.includes(`/better-sqlite3/-/better-sqlite3-${sqlite}.tgz`), registry.tarballRequests.join(' '))
  assert.equal(new Set(registry.tarballRequests).size, [...registry.packages.values()].flat().length - 1, 'every package but is-positive')
  const installed = path.join(prefix, 'lib', 'node_modules', 'lode')
  assert.ok(!fs.existsSync(path.join(installed, 'node_modules', '@lode')), 'no internal package is installed')
  const lode = path.join(prefix, 'bin', 'lode')
  assert.equal((await run(lode, ['--version'], { env: env(home) })).stdout, `${String(release['version'])}\n`)

  const dir = project('cli-project')
  const { stdout } = await run(lode, ['install'], { cwd: dir, env: env(home) })
  // The opt-in `pnpm` shim is lode under that name (npm did not put it on PATH).
  assert.ok(!fs.existsSync(path.join(prefix, 'bin', 'pnpm')))
  fs.symlinkSync(path.join(installed, 'bin', 'pnpm'), path.join(tmp, 'pnpm'))
  assert.equal((await run(path.join(tmp, 'pnpm'), ['--version'], { env: env(home) })).stdout, `${String(release['version'])}\n`)
  assert.match(stdout, /\+ is-positive 1\.0\.0/)
  assert.match(fs.readFileSync(path.join(dir, 'pnpm-lock.yaml'), 'utf8'), /is-positive@1\.0\.0:/)
  assert.deepEqual(createRequire(path.join(dir, 'index.js'))('is-positive'), { name: 'is-positive', version: '1.0.0' })
  // The store index (better-sqlite3's addon, as npm installed it) and both worker pools ran.
  const store = (await run(lode, ['store', 'path'], { cwd: dir, env: env(home) })).stdout.trim()
  assert.ok(fs.statSync(path.join(store, 'index.db')).size > 0, store)
  assert.ok(fs.lstatSync(path.join(dir, 'node_modules', '.pnpm', 'is-positive@1.0.0', 'node_modules', 'is-positive', 'package.json')).nlink > 1)
})

test('another tool imports the API: an aborted install writes nothing, then an install with a live AbortSignal installs; the README example runs as written', async () => {
  const consumer = path.join(tmp, 'consumer')
  const home = path.join(tmp, 'home-api')
  fs.mkdirSync(consumer)
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }))
  await npmInstall([tarball], consumer, home)
  const dir = project('api-project')
  fs.writeFileSync(path.join(consumer, 'use.mjs'), `
import fs from 'node:fs'
import { LodeError, getConfig, install, isLodeError } from 'lode'
const dir = process.argv[2]
const config = await getConfig({ dir })
const stopped = new AbortController()
stopped.abort(new Error('stopped by the caller'))
const aborted = await install({ config, signal: stopped.signal }).then(() => 'installed', (err) => err.message)
const afterAbort = fs.readdirSync(dir)
const events = new Set()
const result = await install({ config, signal: new AbortController().signal, onEvent: (event) => { events.add(event.type) } })
const refused = await getConfig({ dir: process.argv[3] }).catch((err) => ({ lode: err instanceof LodeError && isLodeError(err), code: err.code }))
console.log(JSON.stringify({ aborted, afterAbort, added: result.added, lockfileChanged: result.lockfileChanged, events: [...events].sort(), refused }))
`)
  const bad = path.join(tmp, 'api-bad')
  fs.mkdirSync(bad)
  fs.writeFileSync(path.join(bad, 'package.json'), '{}')
  fs.writeFileSync(path.join(bad, 'pnpm-workspace.yaml'), 'nodeLinker: pnp\n')
  const { stdout } = await run(process.execPath, ['use.mjs', dir, bad], { cwd: consumer, env: env(home) })
  const out = JSON.parse(stdout) as Record<string, unknown>
  assert.equal(out['aborted'], 'stopped by the caller')
  assert.deepEqual(out['afterAbort'], ['package.json'])
  assert.equal(out['added'], 1)
  assert.equal(out['lockfileChanged'], true)
  assert.ok((out['events'] as string[]).includes('progress'), String(out['events']))
  assert.deepEqual(out['refused'], { lode: true, code: 'ERR_LODE_UNSUPPORTED_SETTING' })
  assert.deepEqual(createRequire(path.join(dir, 'index.js'))('is-positive'), { name: 'is-positive', version: '1.0.0' })

  // The root README's example, as written, in a project of its own.
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8')
  const example = /```js\n(import [^\n]* from 'lode'\n[\s\S]*?)```/.exec(readme)![1]!
  fs.writeFileSync(path.join(consumer, 'readme-example.mjs'), example)
  const readmeProject = project('readme-project')
  const printed = await run(process.execPath, [path.join(consumer, 'readme-example.mjs')], { cwd: readmeProject, env: env(home) })
  assert.equal(printed.stdout, '1 true\n')
  assert.deepEqual(createRequire(path.join(readmeProject, 'index.js'))('is-positive'), { name: 'is-positive', version: '1.0.0' })

  // The declarations, as a consumer under `strict` sees them: right uses compile, wrong ones do not.
  fs.writeFileSync(path.join(consumer, 'typed.ts'), `
import { LodeError, getConfig, install } from 'lode'
import type { Config, InstallEvent, InstallResult } from 'lode'

const config: Config = await getConfig({ dir: '.', overrides: { offline: true } })
const onEvent = (event: InstallEvent): void => { if (event.type === 'warning') console.warn(event.message) }
const result: InstallResult = await install({ config, signal: AbortSignal.timeout(1000), onEvent })
const added: number = result.added
try { await install({ config }) } catch (err) { if (err instanceof LodeError) console.error(err.code, err.hint, added) }
// @ts-expect-error: install needs the config
await install({})
// @ts-expect-error: no such option
await install({ config, frozen: true })
// @ts-expect-error: a result's counts are numbers
const wrong: string = result.packages
export { wrong }
`)
  const tsc = path.join(path.dirname(createRequire(path.join(repoRoot, 'package.json')).resolve('typescript/package.json')), 'bin', 'tsc')
  const typeRoots = path.join(repoRoot, 'node_modules', '@types')
  await run(process.execPath, [tsc, '--noEmit', '--strict', '--exactOptionalPropertyTypes', '--target', 'es2024', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--types', 'node', '--typeRoots', typeRoots, 'typed.ts'], { cwd: consumer })
    .catch((err: { stdout: string }) => { assert.fail(`tsc: ${err.stdout}`) })
})

test('on a Node.js older than 22.13 the command says so in one coded line and the API rejects with a LodeError', async () => {
  const prefix = path.join(tmp, 'prefix')
  const consumer = path.join(tmp, 'consumer')
  assert.ok(fs.existsSync(prefix) && fs.existsSync(consumer), 'the tests above installed the release')
  fs.writeFileSync(path.join(consumer, 'old.mjs'), `
import { LodeError, install } from 'lode'
const err = await install({ config: {} }).then(() => undefined, (err) => err)
console.log(JSON.stringify({ lode: err instanceof LodeError, code: err?.code, message: err?.message }))
`)
  const fake = ['--import', 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"22.12.0"})']
  const olderNodes = (process.env['PATH'] ?? '').split(path.delimiter).map((dir) => path.join(dir, 'node'))
    .filter((node) => fs.existsSync(node) && Number(PLAIN_NODE.exec(execFileSync(node, ['--version'], { encoding: 'utf8' }))?.[1]) < 22)
  const runs = [{ node: process.execPath, args: fake, version: '22.12.0' }, ...olderNodes.slice(0, 1).map((node) => ({
    node, args: [], version: execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim(),
  }))]
  for (const { node, args, version } of runs) {
    const cli = await run(node, [...args, path.join(prefix, 'bin', 'lode'), 'install'], { cwd: consumer }).then(() => undefined, (err: { stderr: string }) => err.stderr)
    assert.equal(cli?.split('\n')[0], `[ERR_LODE_UNSUPPORTED_NODE] lode needs Node.js 22.13 or newer; this is Node.js ${version}.`)
    const api = JSON.parse((await run(node, [...args, 'old.mjs'], { cwd: consumer })).stdout) as Record<string, unknown>
    assert.deepEqual(api, { lode: true, code: 'ERR_LODE_UNSUPPORTED_NODE', message: `lode needs Node.js 22.13 or newer; this is Node.js ${version}.` })
  }
})
