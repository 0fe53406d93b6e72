import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { PNPM_SETTINGS, getConfig } from '@lode/pkg-manager.config.settings'
import type { Config, GetConfigOptions } from '@lode/pkg-manager.config.settings'

import { dirs } from './dirs.js'

function project (files: Record<string, string> = {}): { dir: string, home: string } {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(home, '.npmrc'), 'registry=http://user.test/\n')
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(name.startsWith('~/') ? home : dir, name.replace(/^~\//, '')), text)
  return { dir, home }
}

function config (where: { dir: string, home: string }, extra: Partial<GetConfigOptions> = {}): Config {
  return getConfig({ dir: where.dir, env: { HOME: where.home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: () => { throw new Error('npm was asked') }, ...extra })
}

function unsupported (names: string[], file: string) {
  return (err: Error & { code?: string, hint?: string }): boolean => {
    assert.equal(err.code, 'ERR_LODE_UNSUPPORTED_SETTING', err.message)
    for (const name of names) assert.ok(err.message.includes(name), `${name} is named: ${err.message}`)
    assert.ok(err.message.includes(file), err.message)
    assert.ok(err.hint !== undefined && err.hint.length > 0)
    return true
  }
}

test('.npmrc: only registry, auth, TLS and proxy keys are read (as pnpm 11); the pnpm settings there are named in a warning', () => {
  const where = project({
    '.npmrc': 'registry=http://project.test/\nstore-dir=/elsewhere\nauto-install-peers=false\nsave-exact=true\nfetch-retries=0\nfrozen-lockfile=true\nengine-strict=true\nlegacy-peer-deps=true\ngit-tag-version=false\n',
  })
  const read = config(where, { env: { HOME: where.home, npm_config_fetch_retries: '7', npm_config_store_dir: '/env-store' } })
  assert.equal(read.registry, 'http://project.test/')
  assert.equal(read.autoInstallPeers, true)
  assert.equal(read.savePrefix, '^')
  assert.equal(read.fetchRetries, 2, 'neither the file nor npm_config_fetch_retries is read')
  assert.equal(read.frozenLockfile, false)
  assert.equal(read.storeDir, path.join(where.home, '.local', 'share', 'pnpm', 'store'))
  assert.equal(read.rawNpmrc['store-dir'], undefined)
  assert.equal(read.warnings.length, 1, read.warnings.join('\n'))
  const warning = read.warnings[0]!
  assert.ok(warning.startsWith(path.join(where.dir, '.npmrc')), warning)
  // npm's own settings (legacy-peer-deps) are not pnpm settings; lode version's (git-tag-version) is read from pnpm-workspace.yaml, as pnpm 11 reads it.
  assert.match(warning, /sets store-dir, auto-install-peers, save-exact, fetch-retries, frozen-lockfile, engine-strict, git-tag-version, which pnpm 11 and lode do not read from \.npmrc/)
  assert.match(warning, /as storeDir, autoInstallPeers, saveExact, fetchRetries, frozenLockfile, engineStrict, gitTagVersion\.$/)
})

test('.npmrc: client certificates, token helpers and per-registry CAs are refused, naming the file or variable', () => {
  for (const [line, key] of [['//reg.test/:certfile=/x.pem', '//reg.test/:certfile'], ['cert=abc', 'cert'], ['//reg.test/:tokenHelper=/bin/helper', '//reg.test/:tokenHelper']] as const) {
    const where = project({ '~/.npmrc': `registry=http://user.test/\n${line}\n` })
    assert.throws(() => config(where), unsupported([key], path.join(where.home, '.npmrc')))
  }
  const where = project()
  assert.throws(() => config(where, { env: { HOME: where.home, npm_config_local_address: '10.0.0.1' } }), unsupported(['local-address'], 'npm_config_*'))
})

test('pnpm-workspace.yaml: a refused setting fails naming every such setting and the file; pnpm\'s default value is accepted', () => {
  const where = project({ 'pnpm-workspace.yaml': 'dedupeDirectDeps: true\ndisallowWorkspaceCycles: true\nforce: false\nresolutionMode: highest\n' })
  const file = path.join(where.dir, 'pnpm-workspace.yaml')
  assert.throws(() => config(where), (err: Error & { code?: string, hint?: string }) => {
    unsupported(['dedupeDirectDeps', 'disallowWorkspaceCycles'], file)(err)
    assert.equal(err.message, `dedupeDirectDeps and disallowWorkspaceCycles in ${file} are not supported by lode yet.`)
    assert.ok(!err.message.includes('force') && !err.message.includes('resolutionMode'), 'the defaults pass')
    assert.match(err.hint!, /set dedupeDirectDeps to false, disallowWorkspaceCycles to false \(pnpm's default\)/)
    return true
  })
  fs.writeFileSync(file, 'dedupeDirectDeps: false\nforce: false\ndisallowWorkspaceCycles: false\nhoist: true\nsupportedArchitectures: null\n')
  assert.deepEqual(config(where).warnings, [])
  fs.writeFileSync(file, 'resolutionMode: lowest-direct\n')
  assert.throws(() => config(where), unsupported(['resolutionMode'], file))
  // A package whose files are another package's is always refused: pnpm's warning-only mode is not lode's.
  fs.writeFileSync(file, 'strictStorePkgContentCheck: false\n')
  assert.throws(() => config(where), unsupported(['strictStorePkgContentCheck'], file))
  fs.writeFileSync(file, 'strictStorePkgContentCheck: true\n')
  assert.deepEqual(config(where).warnings, [])
})

test('pnpm-workspace.yaml: a setting only add reads fails only that command; update\'s are read', () => {
  const where = project({ 'pnpm-workspace.yaml': 'savePeer: true\nupdateConfig:\n  ignoreDependencies: [react]\n' })
  const file = path.join(where.dir, 'pnpm-workspace.yaml')
  assert.deepEqual(config(where).warnings, [])
  assert.throws(() => config(where, { command: 'add' }), unsupported(['savePeer'], file))
  assert.deepEqual(config(where, { command: 'update' }).updateIgnoreDependencies, ['react'])
  fs.writeFileSync(file, 'update:\n  ignoreDeps: [vue]\nupdateConfig:\n  ignoreDependencies: [react]\n')
  const both = config(where, { command: 'update' })
  assert.deepEqual(both.updateIgnoreDependencies, ['vue'])
  assert.deepEqual(both.warnings, ['Both the "update" and "updateConfig" settings are set. The deprecated "updateConfig" setting is ignored in favor of "update".'])
})

test('pnpm-workspace.yaml: settings of commands lode lacks, of run, and of output are accepted without a word', () => {
  const where = project({
    'pnpm-workspace.yaml': '$schema: https://example.test/schema.json\nverifyDepsBeforeRun: install\nshellEmulator: true\ngitChecks: false\npublishBranch: main\nonlyBuiltDependencies: [esbuild]\nsideEffectsCache: false\ncolor: always\nupdateNotifier: false\naudit: {}\n',
  })
  assert.deepEqual(config(where).warnings, [])
})

test('pnpm-workspace.yaml: keys pnpm 11 ignores are ignored with pnpm\'s warnings (unknown, kebab-case, not a project\'s to set)', () => {
  const where = project({
    'pnpm-workspace.yaml': 'minimumReleaseAges: 5\npackageManagerStrict: true\nauto-install-peers: false\nstateDir: /state\nsomething: null\n"\\e[31mred": 1\n',
  })
  const read = config(where)
  assert.equal(read.autoInstallPeers, true, 'a kebab-case key is not read')
  assert.equal(read.minimumReleaseAge, 1440)
  assert.deepEqual(read.warnings, [
    'The following settings cannot be set in a project\'s pnpm-workspace.yaml and were ignored: "stateDir".',
    'The following settings in pnpm-workspace.yaml are not recognized by pnpm 11 or lode and were ignored: "minimumReleaseAges" (did you mean "minimumReleaseAge"?), "packageManagerStrict", "\\u001b[31mred".',
    'The following settings in pnpm-workspace.yaml were ignored because they are not written in camelCase: "auto-install-peers" (use "autoInstallPeers").',
  ])
})

test('pnpm-workspace.yaml: registry, proxies and strictSsl win over .npmrc; command-line overrides win over both', () => {
  const where = project({
    '.npmrc': 'registry=http://npmrc.test/\nhttps-proxy=http://npmrc-proxy.test\nstrict-ssl=true\n',
    'pnpm-workspace.yaml': 'registry: http://yaml.test\nhttpsProxy: http://yaml-proxy.test\nnoproxy: internal.test\nproxy: http://plain-proxy.test\nstrictSsl: false\n',
  })
  const read = config(where)
  assert.equal(read.registry, 'http://yaml.test/')
  assert.equal(read.httpsProxy, 'http://yaml-proxy.test')
  assert.equal(read.httpProxy, 'http://plain-proxy.test')
  assert.equal(read.noProxy, 'internal.test')
  assert.equal(read.strictSsl, false)
  assert.equal(config(where, { overrides: { registry: 'http://flag.test' } }).registry, 'http://flag.test/')
})

test('pnpm-workspace.yaml: lockfile (else packageLock), saveExact, frozenLockfile, offline, maxTarballUnpackedSize, packumentMaxSize, trustPolicy, pmOnFail', () => {
  const where = project()
  const file = path.join(where.dir, 'pnpm-workspace.yaml')
  const read = (text: string): Config => {
    fs.writeFileSync(file, text)
    return config(where)
  }
  assert.equal(read('').useLockfile, true)
  assert.equal(read('lockfile: false\n').useLockfile, false)
  assert.equal(read('packageLock: false\n').useLockfile, false)
  assert.equal(read('lockfile: true\npackageLock: false\n').useLockfile, true)
  assert.equal(read('saveExact: true\nsavePrefix: "~"\n').savePrefix, '')
  assert.equal(read('savePrefix: "~"\n').savePrefix, '~')
  assert.equal(read('frozenLockfile: true\n').frozenLockfile, true)
  assert.equal(read('offline: true\npreferOffline: true\n').offline, true)
  assert.equal(read('maxTarballUnpackedSize: 1000\n').tarballMaxUnpackedSize, 1000)
  assert.equal(read('maxTarballUnpackedSize: 1000\ntarballMaxUnpackedSize: 2000\n').tarballMaxUnpackedSize, 2000)
  assert.equal(read('').packumentMaxSize, undefined, 'the resolver\'s default')
  assert.equal(read('packumentMaxSize: 300000000\n').packumentMaxSize, 300_000_000)
  assert.throws(() => read('packumentMaxSize: 0\n'), { code: 'ERR_LODE_INVALID_SETTING', message: /^packumentMaxSize in .*pnpm-workspace\.yaml has the wrong type/ })
  const trust = read('trustPolicy: no-downgrade\ntrustPolicyExclude: [chokidar@4.0.3]\ntrustPolicyIgnoreAfter: 1440\n')
  assert.deepEqual([trust.trustPolicy, trust.trustPolicyExclude, trust.trustPolicyIgnoreAfter], ['no-downgrade', ['chokidar@4.0.3'], 1440])
  assert.equal(read('').trustPolicy, 'off')
  assert.equal(read('pmOnFail: warn\n').pmOnFail, 'warn')
  assert.equal(read('').pmOnFail, undefined)
})

test('pnpm\'s global config.yaml: the machine\'s settings under the project\'s; the keys it may not set are ignored with a warning', () => {
  const where = project({ 'pnpm-workspace.yaml': 'storeDir: /project-store\n' })
  const configHome = path.join(where.home, 'xdg-config')
  const globalFile = path.join(configHome, 'pnpm', 'config.yaml')
  fs.mkdirSync(path.dirname(globalFile), { recursive: true })
  fs.writeFileSync(globalFile, 'fetchRetries: 7\nstoreDir: /global-store\nstateDir: /state\noverrides:\n  a: 1.0.0\nfetch-timeout: 5\n')
  const env = { HOME: where.home, XDG_CONFIG_HOME: configHome }
  const read = config(where, { env })
  assert.equal(read.fetchRetries, 7)
  assert.equal(read.storeDir, '/project-store')
  assert.deepEqual(read.overrides, {}, 'overrides are a project\'s')
  assert.deepEqual(read.warnings, [
    `The following settings cannot be set in the global config file ("${globalFile}") and were ignored: "overrides". Move them to a project-level pnpm-workspace.yaml.`,
    `The following settings in the global config file ("${globalFile}") were ignored because they are not written in camelCase: "fetch-timeout" (use "fetchTimeout").`,
  ])
  fs.writeFileSync(globalFile, 'force: true\nnpmrcAuthFile: /auth/.npmrc\n')
  assert.throws(() => config(where, { env }), unsupported(['force', 'npmrcAuthFile'], globalFile))
  // engineStrict is a machine's setting too.
  fs.writeFileSync(globalFile, 'engineStrict: true\n')
  assert.equal(config(where, { env }).engineStrict, true)
  fs.writeFileSync(globalFile, 'fetchRetries: many\n')
  assert.throws(() => config(where, { env }), (err: Error & { code?: string }) => err.code === 'ERR_LODE_INVALID_SETTING' && err.message.startsWith(`fetchRetries in ${globalFile}`))
})

test('a .pnpmfile.cjs or .pnpmfile.mjs in the root is refused (lode runs no pnpmfile hooks); ignorePnpmfile: true installs without it', () => {
  for (const name of ['.pnpmfile.cjs', '.pnpmfile.mjs']) {
    const where = project({ [name]: 'module.exports = { hooks: {} }\n' })
    assert.throws(() => config(where), (err: Error & { code?: string }) => err.code === 'ERR_LODE_UNSUPPORTED_PNPMFILE' && err.message.includes(path.join(where.dir, name)))
    fs.writeFileSync(path.join(where.dir, 'pnpm-workspace.yaml'), 'ignorePnpmfile: true\n')
    assert.deepEqual(config(where).warnings, [])
  }
})

test('every setting the table calls implemented is read (a value of the wrong type is ERR_LODE_INVALID_SETTING naming it)', () => {
  const where = project()
  const file = path.join(where.dir, 'pnpm-workspace.yaml')
  const implemented = [...PNPM_SETTINGS].filter(([, entry]) => entry.status === 'implemented').map(([name]) => name)
  assert.ok(implemented.length > 50)
  for (const name of implemented) {
    // A map of settings (update) may hold keys lode does not read: the wrong type for it is a scalar.
    fs.writeFileSync(file, ['update', 'updateConfig'].includes(name) ? `${name}: 5\n` : `${name}:\n  wrong: [{ type: 1 }]\n`)
    assert.throws(() => config(where), (err: Error & { code?: string }) => err.code === 'ERR_LODE_INVALID_SETTING' && err.message.startsWith(`${name} in ${file}`), name)
  }
})

test('the README\'s table lists every setting of PNPM_SETTINGS once, with its status', () => {
  const readme = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'README.md'), 'utf8')
  const listed = new Map<string, string>()
  for (const row of readme.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| setting'))) {
    const [names, , status] = row.split(' | ').map((cell) => cell.replace(/^\| |\|$/g, '').trim())
    if (names === undefined || status === undefined) continue
    for (const [, name] of names.matchAll(/`([A-Za-z]+)`/g)) {
      assert.ok(!listed.has(name!), `${name} is listed twice`)
      listed.set(name!, status.split(/[ :(]/)[0]!)
    }
  }
  for (const [name, entry] of PNPM_SETTINGS) assert.equal(listed.get(name), entry.status, `${name} in the README`)
  assert.deepEqual([...listed.keys()].filter((name) => !PNPM_SETTINGS.has(name)), [])
})
