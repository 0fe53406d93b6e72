import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { cpuMillis } from '@lode/__utils__.test-fixtures'
import { getConfig, readWorkspacePackages, updateWorkspaceYaml } from '@lode/pkg-manager.config.settings'

import { dirs } from './dirs.js'

const noNpm = (): string => { throw new Error('npm must not be asked when a registry is configured') }

test('.npmrc layers: user, then project, then npm_config_* variables, then overrides; pnpm-workspace.yaml settings', () => {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(home, '.npmrc'), 'registry=http://user.test/\n@corp:registry=http://corp.test/npm\n//corp.test/npm/:_authToken=${CORP_TOKEN}\n')
  fs.writeFileSync(path.join(dir, '.npmrc'), 'registry=http://project.test\nstrict-ssl=false\n')
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'minimumReleaseAge: 60\nminimumReleaseAgeExclude: [left-pad]\nautoInstallPeers: false\nfetchRetries: 5\n')
  const config = getConfig({ dir, env: { HOME: home, CORP_TOKEN: 'tok', 'npm_config_//other.test/:_authToken': 'env-tok', npm_config_https_proxy: 'http://proxy.test' }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm })
  assert.equal(config.registry, 'http://project.test/')
  assert.deepEqual(config.scopedRegistries, { '@corp': 'http://corp.test/npm/' })
  assert.equal(config.rawNpmrc['//corp.test/npm/:_authToken'], 'tok')
  assert.equal(config.rawNpmrc['//other.test/:_authToken'], 'env-tok', 'a URL-scoped variable keeps its key as written')
  assert.equal(config.httpsProxy, 'http://proxy.test')
  assert.equal(config.fetchRetries, 5)
  assert.equal(config.strictSsl, false)
  assert.deepEqual(config.warnings, [])
  assert.equal(config.minimumReleaseAge, 60)
  assert.deepEqual(config.minimumReleaseAgeExclude, ['left-pad'])
  assert.equal(config.minimumReleaseAgeStrict, true, 'an explicit minimumReleaseAge is strict')
  assert.equal(config.autoInstallPeers, false)
  assert.equal(config.cacheDir, path.join(home, '.cache', 'lode'))
  assert.ok(Object.isFrozen(config))
  const overridden = getConfig({ dir, env: { HOME: home }, overrides: { registry: 'http://flag.test', cacheDir: 'c' }, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm })
  assert.equal(overridden.registry, 'http://flag.test/')
  assert.equal(overridden.cacheDir, path.join(dir, 'c'))
})

test('pnpm 11 defaults, with the registry asked of npm when nothing names one', () => {
  const { dir, home } = dirs()
  const config = getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: () => 'http://npm-default.test' })
  assert.equal(config.registry, 'http://npm-default.test/')
  assert.equal(config.minimumReleaseAge, 1440)
  assert.equal(config.minimumReleaseAgeStrict, false, 'the default minimumReleaseAge collects young versions into minimumReleaseAgeExclude')
  assert.equal(config.autoInstallPeers, true)
  assert.equal(config.fetchRetries, 2)
  assert.equal(config.fetchRetryFactor, 10)
  assert.equal(config.peersSuffixMaxLength, 1000)
  assert.ok(config.networkConcurrency >= 64 && config.networkConcurrency <= 96)
})

test('a setting of the wrong type and an unreadable pnpm-workspace.yaml name the file', () => {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(home, '.npmrc'), 'registry=http://user.test/\n')
  const file = path.join(dir, 'pnpm-workspace.yaml')
  fs.writeFileSync(file, 'minimumReleaseAge: soon\n')
  assert.throws(() => getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_SETTING')
    assert.ok(err.message.includes('minimumReleaseAge') && err.message.includes(file))
    return true
  })
  fs.writeFileSync(file, 'packages: [\n')
  assert.throws(() => getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }), { code: 'ERR_LODE_INVALID_WORKSPACE_YAML' })
  // No request would ever start at a concurrency of 0 (it was a TypeError of the limiter).
  for (const value of ['0', '2.5', '-4']) {
    fs.writeFileSync(file, `networkConcurrency: ${value}\n`)
    assert.throws(() => getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_INVALID_SETTING')
      assert.ok(err.message.includes('networkConcurrency') && err.message.includes(file))
      return true
    })
  }
  fs.writeFileSync(file, 'networkConcurrency: 3\n')
  assert.equal(getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }).networkConcurrency, 3)
  assert.equal(getConfig({ dir, env: { HOME: home }, overrides: { networkConcurrency: 1 }, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }).networkConcurrency, 1, 'the command line wins')
})

test('readWorkspacePackages reads only the packages globs: no .npmrc, no npm; a wrong type names the file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-config-'))
  assert.equal(readWorkspacePackages(dir), undefined)
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n  - "!packages/x"\n')
  assert.deepEqual(readWorkspacePackages(dir), ['packages/*', '!packages/x'])
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'packages: packages/*\n')
  assert.throws(() => readWorkspacePackages(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_SETTING')
    assert.ok(err.message.includes(path.join(dir, 'pnpm-workspace.yaml')))
    return true
  })
})

// Found by fuzz.test.ts: each of these crashed (a TypeError, a RangeError, an errno) or gave a value of the wrong type.

test('fuzz finding: a setting of the wrong type that contains itself (a YAML alias) or nests deep is named, not a crash', () => {
  const { dir, home } = dirs()
  for (const text of ['minimumReleaseAgeExclude: &x [*x]\n', 'allowBuilds: &y {a: *y}\n', `overrides: ${'['.repeat(500)}${']'.repeat(500)}\n`]) {
    fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), text)
    assert.throws(() => getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: () => 'http://127.0.0.1:4873/' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_INVALID_SETTING')
      assert.ok(err.message.length < 1000 && err.message.includes(path.join(dir, 'pnpm-workspace.yaml')))
      return true
    }, text.slice(0, 30))
  }
})

test('fuzz finding: childConcurrency must be a whole number (p-limit refuses 2.5 later)', () => {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'childConcurrency: 2.5\n')
  assert.throws(() => getConfig({ dir, env: { HOME: home }, overrides: { registry: 'http://127.0.0.1:4873/' }, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }), { code: 'ERR_LODE_INVALID_SETTING' })
})

test('fuzz finding: a pnpm-workspace.yaml that is a directory is ERR_LODE_EISDIR naming it; so is an unreadable cafile', () => {
  const { dir, home } = dirs()
  const file = path.join(dir, 'pnpm-workspace.yaml')
  fs.mkdirSync(file)
  for (const read of [() => getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }), () => readWorkspacePackages(dir)]) {
    assert.throws(read, (err: Error & { code?: string }) => err.code === 'ERR_LODE_EISDIR' && err.message.includes(file))
  }
  fs.rmdirSync(file)
  fs.writeFileSync(path.join(dir, '.npmrc'), `registry=http://127.0.0.1:4873/\ncafile=${path.join(dir, 'missing.pem')}\n`)
  assert.throws(() => getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_SETTING')
    assert.ok(err.message.includes(path.join(dir, 'missing.pem')) && err.message.includes('ENOENT'))
    return true
  })
})

test('fuzz finding: ${constructor} in .npmrc is no variable, not the source of Object', () => {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(dir, '.npmrc'), 'registry=http://127.0.0.1:4873/\n//127.0.0.1:4873/:_authToken=${constructor}${TOKEN}\n')
  const config = getConfig({ dir, env: { HOME: home, TOKEN: 't' }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm })
  assert.equal(config.rawNpmrc['//127.0.0.1:4873/:_authToken'], 't')
})

test('fuzz finding: updateWorkspaceYaml refuses a file nested thousands deep, with an alias to nothing or an anchor it cannot write back (&\\x02) with ERR_LODE_INVALID_WORKSPACE_YAML', async () => {
  const { dir } = dirs()
  for (const text of [`a: ${'- '.repeat(20_000)}b\n`, 'hoistPattern: [*eslint*]\n', 'a: &\x02 b\n', `a:\n${' d:'.repeat(20_000)} e\n`, `a: {b: c${'{'.repeat(40_000)}${'}'.repeat(40_000)}d}\n`]) {
    fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), text)
    await assert.rejects(updateWorkspaceYaml(dir, { allowBuilds: { esbuild: true } }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_INVALID_WORKSPACE_YAML')
      assert.ok(err.message.includes(path.join(dir, 'pnpm-workspace.yaml')))
      return true
    }, text.slice(0, 20))
  }
})

test('fuzz finding: a pnpm-workspace.yaml line of tens of thousands of { } is refused at once, not read for seconds', async () => {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), `packages: [a]\nx: {b: c${'{'.repeat(40_000)}${'}'.repeat(40_000)}d}\n`)
  const ms = await cpuMillis(() => {
    assert.throws(() => getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_INVALID_WORKSPACE_YAML')
      assert.match(err.message, /line 2 has more than 1000 of the characters/)
      return true
    })
  })
  assert.ok(ms < 500, `${ms} ms of CPU`)
})

test('fuzz finding: a pnpm-workspace.yaml map of 20,000 keys reads in linear time (the yaml library\'s duplicate check compared every pair); a duplicate is still refused', async () => {
  const { dir, home } = dirs()
  const file = path.join(dir, 'pnpm-workspace.yaml')
  // The comment leaves the fast parser's subset: the yaml library reads the file.
  fs.writeFileSync(file, `# catalog\ncatalog:\n${Array.from({ length: 20_000 }, (_, i) => `  pkg-${i}: ^1.0.0\n`).join('')}`)
  const ms = await cpuMillis(async () => {
    const config = getConfig({ dir, env: { HOME: home }, overrides: { registry: 'http://127.0.0.1:4873/' }, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm })
    assert.equal(Object.keys(config.catalogs['default']!).length, 20_000)
    await updateWorkspaceYaml(dir, { allowBuilds: { esbuild: true } })
  })
  assert.ok(ms < 2000, `${ms} ms of CPU`)
  fs.writeFileSync(file, '# catalog\ncatalog:\n  a: ^1.0.0\n  a: ^2.0.0\n')
  assert.throws(() => getConfig({ dir, env: { HOME: home }, overrides: { registry: 'http://127.0.0.1:4873/' }, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }), /Map keys must be unique: a/)
  await assert.rejects(updateWorkspaceYaml(dir, { allowBuilds: { esbuild: true } }), { code: 'ERR_LODE_INVALID_WORKSPACE_YAML' })
})

test('fuzz finding: ${ repeated in .npmrc expands in linear time (the variable pattern rescanned the value from each ${)', async () => {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(dir, '.npmrc'), `registry=http://127.0.0.1:4873/\nstore-dir=${'${'.repeat(100_000)}\n`)
  const ms = await cpuMillis(() => getConfig({ dir, env: { HOME: home }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm }))
  assert.ok(ms < 1000, `${ms} ms of CPU`)
})

test('nodeLinker, shamefullyHoist, virtualStoreDir, virtualStoreDirMaxLength and confirmModulesPurge come from pnpm-workspace.yaml, as pnpm 11 reads them', () => {
  const { dir, home } = dirs()
  const config = (env: Record<string, string> = {}): ReturnType<typeof getConfig> => getConfig({ dir, env: { HOME: home, ...env }, overrides: { registry: 'http://127.0.0.1:4873/' }, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm })
  const defaults = config()
  assert.deepEqual([defaults.nodeLinker, defaults.virtualStoreDir, defaults.virtualStoreDirMaxLength, defaults.confirmModulesPurge, defaults.publicHoistPattern], ['isolated', path.join(dir, 'node_modules', '.pnpm'), 120, true, []])
  assert.equal(config({ CI: 'true' }).confirmModulesPurge, false, 'CI never asks')
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'nodeLinker: hoisted\nshamefullyHoist: true\npublicHoistPattern: [eslint]\nvirtualStoreDir: ../vs\nvirtualStoreDirMaxLength: 60\nconfirmModulesPurge: false\n')
  const set = config()
  assert.deepEqual([set.nodeLinker, set.virtualStoreDir, set.virtualStoreDirMaxLength, set.confirmModulesPurge], ['hoisted', path.join(path.dirname(dir), 'vs'), 60, false])
  assert.deepEqual(set.publicHoistPattern, ['*'], 'shamefullyHoist: true is publicHoistPattern *')
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'shamefullyHoist: false\npublicHoistPattern: [eslint]\n')
  assert.deepEqual(config().publicHoistPattern, [], 'shamefullyHoist: false is the default publicHoistPattern')
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'nodeLinker: flat\n')
  assert.throws(() => config(), { code: 'ERR_LODE_INVALID_SETTING' })
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'nodeLinker: pnp\n')
  assert.throws(() => config(), { code: 'ERR_LODE_UNSUPPORTED_SETTING', message: /nodeLinker: pnp \(in .*pnpm-workspace\.yaml\) is not supported/ })
  // .npmrc does not set them (pnpm 11 reads only auth, registries and network settings there).
  fs.rmSync(path.join(dir, 'pnpm-workspace.yaml'))
  fs.writeFileSync(path.join(dir, '.npmrc'), 'node-linker=hoisted\nshamefully-hoist=true\nvirtual-store-dir=vs\n')
  const npmrc = config()
  assert.deepEqual([npmrc.nodeLinker, npmrc.virtualStoreDir, npmrc.publicHoistPattern], ['isolated', path.join(dir, 'node_modules', '.pnpm'), []])
})

test('enableGlobalVirtualStore and virtualStoreType (which wins), from the files, pnpm_config_* variables and the command line; the links dir', () => {
  const { dir, home } = dirs()
  const config = (env: Record<string, string> = {}, overrides: Record<string, unknown> = {}): ReturnType<typeof getConfig> =>
    getConfig({ dir, env: { HOME: home, ...env }, overrides: { registry: 'http://127.0.0.1:4873/', storeDir: path.join(home, 's'), ...overrides }, lodeVersion: '0.0.0', npmDefaultRegistry: noNpm })
  assert.equal(config().enableGlobalVirtualStore, false, 'off by default')
  assert.equal(config({}, { enableGlobalVirtualStore: true }).virtualStoreDir, path.join(home, 's', 'v11', 'links'))
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'enableGlobalVirtualStore: true\n')
  const on = config({ CI: 'true' })
  assert.deepEqual([on.enableGlobalVirtualStore, on.virtualStoreDir], [true, path.join(home, 's', 'v11', 'links')], 'CI turns off only an unset value')
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'enableGlobalVirtualStore: true\nvirtualStoreDir: ../links\n')
  assert.equal(config().virtualStoreDir, path.join(path.dirname(dir), 'links'), 'a virtualStoreDir set is the links dir')
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'enableGlobalVirtualStore: true\nvirtualStoreType: project\n')
  assert.equal(config().enableGlobalVirtualStore, false, 'virtualStoreType wins')
  assert.equal(config({ PNPM_CONFIG_VIRTUAL_STORE_TYPE: 'global' }).enableGlobalVirtualStore, true, 'a variable wins over the files')
  assert.equal(config({ pnpm_config_enable_global_virtual_store: 'true' }).enableGlobalVirtualStore, true)
  assert.equal(config({ PNPM_CONFIG_VIRTUAL_STORE_TYPE: 'global' }, { virtualStoreType: 'project' }).enableGlobalVirtualStore, false, 'the command line wins')
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'virtualStoreType: shared\n')
  assert.throws(() => config(), { code: 'ERR_LODE_INVALID_SETTING', message: /virtualStoreType.*"shared"/ })
  fs.rmSync(path.join(dir, 'pnpm-workspace.yaml'))
  assert.throws(() => config({}, { virtualStoreType: 'x' }), { code: 'ERR_LODE_INVALID_SETTING' })
})
