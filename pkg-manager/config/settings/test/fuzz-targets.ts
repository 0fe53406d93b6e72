// Fuzz targets of the settings readers (run by fuzz.test.ts through @lode/__utils__.test-fixtures/fuzz): `.npmrc` and
// `pnpm-workspace.yaml`, read by getConfig, readWorkspacePackages and updateWorkspaceYaml.

import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { assertCoded, mutate } from '@lode/__utils__.test-fixtures/fuzz'
import type { FuzzTarget, MutateOptions, Random } from '@lode/__utils__.test-fixtures/fuzz'

import { getConfig, readWorkspacePackages, updateWorkspaceYaml } from '../src/index.js'
import type { Config } from '../src/index.js'

// One project and home for every input; each check writes its files over the last ones.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-config-fuzz-'))
const dir = path.join(root, 'project')
const home = path.join(root, 'home')
fs.mkdirSync(dir)
fs.mkdirSync(home)
fs.writeFileSync(path.join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n')
const NPMRC = path.join(dir, '.npmrc')
const WORKSPACE = path.join(dir, 'pnpm-workspace.yaml')
const env = { HOME: home, TOKEN: 'secret', XDG_CACHE_HOME: path.join(root, 'cache') }

const NPMRCS = [
  'registry=http://127.0.0.1:4873/\n@corp:registry=http://127.0.0.1:4874/npm\n//127.0.0.1:4874/npm/:_authToken=${TOKEN}\nstrict-ssl=false\nfetch-retries=5\nfetch-timeout=1000\n',
  '; a comment\n# another\nsave-exact=true\nsave-prefix=~\nfrozen-lockfile=true\nnetwork-concurrency=8\n[section]\nkey=value\nlist[]=a\nlist[]=b\n',
  `cafile=${path.join(dir, 'ca.pem')}\nca="-----BEGIN CERTIFICATE-----"\nhttps-proxy=http://127.0.0.1:3128\nno-proxy=localhost\nstore-dir=../store\ncache-dir=~/.cache\n`,
  '//127.0.0.1:4873/:_auth=dXNlcjpwYXNz\n//127.0.0.1:4873/:username=u\n//127.0.0.1:4873/:_password=cGFzcw==\nalways-auth=true\n',
]

const WORKSPACES = [
  'packages:\n  - packages/*\n  - "!packages/x"\nminimumReleaseAge: 60\nminimumReleaseAgeExclude:\n  - left-pad\nautoInstallPeers: false\n',
  'catalog:\n  react: ^18.2.0\ncatalogs:\n  legacy:\n    react: ^16.0.0\nallowBuilds:\n  esbuild: true\n  core-js: false\noverrides:\n  foo: 1.0.0\n  bar>baz: ^2\n',
  'packageExtensions:\n  react-redux@1:\n    peerDependencies:\n      react-dom: "*"\n    peerDependenciesMeta:\n      react-dom:\n        optional: true\npatchedDependencies:\n  foo@1.0.0: patches/foo.patch\n',
  '# settings\nhoistPattern: ["*eslint*"]\npublicHoistPattern: []\nchildConcurrency: 2\nnetworkConcurrency: 16\npackageImportMethod: copy\nlinkWorkspacePackages: deep\nstrictDepBuilds: false\nsavePrefix: "~"\n',
  'ignoredOptionalDependencies: [fsevents]\nallowedDeprecatedVersions:\n  request: "*"\npeersSuffixMaxLength: 100\nmodulesCacheMaxAge: 0\nblockExoticSubdeps: false\nstoreDir: ../store\n',
]

// Settings given a value of another type: what a hand-edited file gets wrong.
const SETTINGS = ['packages', 'catalog', 'catalogs', 'overrides', 'allowBuilds', 'packageExtensions', 'patchedDependencies', 'minimumReleaseAge', 'minimumReleaseAgeExclude',
  'minimumReleaseAgeStrict', 'hoistPattern', 'publicHoistPattern', 'childConcurrency', 'packageImportMethod', 'linkWorkspacePackages', 'storeDir', 'cacheDir', 'savePrefix',
  'ignoredOptionalDependencies', 'allowedDeprecatedVersions', 'peersSuffixMaxLength', 'modulesCacheMaxAge', 'autoInstallPeers', 'strictDepBuilds',
  'nodeLinker', 'shamefullyHoist', 'virtualStoreDir', 'virtualStoreDirMaxLength', 'confirmModulesPurge']
const VALUES = ['5', '0', '-1', '2.5', '1e400', '.inf', '.nan', "'text'", '""', '[a, b]', '[1, 2]', '[]', '{a: b}', '{a: {b: c}}', '{a: [b]}', '{a: 1}', '{a: true}', '{a: null}', '{}', 'true', 'null', '~',
  '&x [*x]', '&y {a: *y}', '2001-01-01', '!!binary aGk=', '!!set {a}', "{__proto__: {polluted: 'yes'}}", '{constructor: x}', `[${'['.repeat(2000)}]`, `${'- '.repeat(3000)}a`]

const workspaceOptions: MutateOptions = {
  tokens: [': ', '- ', '{', '}', '[', ']', ', ', "'", '"', '#', '&a ', '*a', '!!str ', '|', '>', '%YAML 1.1\n---\n', '---\n', '~', 'null', 'true', '1.5'],
  corpus: WORKSPACES,
  keyLine: (key) => `${key}: value`,
  nesting: [['[', ']'], ['{a: ', '}'], ['- ', ''], ['a:\n  ', '']],
}

const npmrcOptions: MutateOptions = {
  tokens: ['=', '[', ']', '[]', '${TOKEN}', '${', '}', '${__proto__}', '${constructor}', ';', '#', '"', "'", '\\', '//', ':_authToken=', '@scope:registry=', 'registry=', 'cafile=', 'cafile=missing.pem', 'true', 'false'],
  corpus: NPMRCS,
  keyLine: (key) => `${key}=value`,
  nesting: [['[', ']'], ['${', '}'], ['[a.', ']']],
}

export const workspaceYaml: FuzzTarget = {
  generate (random: Random) {
    if (random.chance(0.3)) {
      const lines = Array.from({ length: 1 + random.int(3) }, () => `${random.pick(SETTINGS)}: ${random.pick(VALUES)}`)
      return [...new Set(lines)].join('\n') + '\n'
    }
    return mutate(random, random.pick(WORKSPACES), workspaceOptions)
  },
  async check (input) {
    fs.rmSync(NPMRC, { force: true })
    fs.writeFileSync(WORKSPACE, input as string)
    const outcomes = [
      settle(() => { assertConfig(getConfig({ dir, env, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: () => 'http://127.0.0.1:4873/' })) }, WORKSPACE),
      settle(() => {
        const packages = readWorkspacePackages(dir)
        assert.ok(packages === undefined || (Array.isArray(packages) && packages.every((p) => typeof p === 'string')))
      }, WORKSPACE),
    ]
    try {
      await updateWorkspaceYaml(dir, { minimumReleaseAgeExclude: ['left-pad@1.0.0'], allowBuilds: { esbuild: true } })
    } catch (err) {
      outcomes.push(assertCoded(err, path.basename(WORKSPACE)))
    }
    return outcomes.join(', ')
  },
}

export const npmrc: FuzzTarget = {
  generate: (random) => mutate(random, random.pick(NPMRCS), npmrcOptions),
  check (input) {
    fs.rmSync(WORKSPACE, { force: true })
    fs.writeFileSync(NPMRC, input as string)
    return settle(() => {
      const config = getConfig({ dir, env, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: () => 'http://127.0.0.1:4873/' })
      assertConfig(config)
      assert.ok(Object.getPrototypeOf(config.rawNpmrc) === Object.prototype, 'the .npmrc pairs keep their prototype')
      for (const value of Object.values(config.rawNpmrc)) assert.equal(typeof value, 'string')
    }, NPMRC)
  },
}

/** `read` returns, or throws a coded error naming `file`. */
function settle (read: () => void, file: string): string {
  try {
    read()
    return 'read'
  } catch (err) {
    return assertCoded(err, path.basename(file))
  }
}


const isStringMap = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((s) => typeof s === 'string')
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0

/** The values downstream code relies on have the types `Config` declares. */
function assertConfig (config: Config): void {
  assert.equal(typeof config.registry, 'string')
  for (const value of Object.values(config.scopedRegistries)) assert.equal(typeof value, 'string')
  assert.ok(config.workspacePackages === undefined || config.workspacePackages.every((p) => typeof p === 'string'))
  for (const catalog of Object.values(config.catalogs)) assert.ok(isStringMap(catalog), 'catalogs map names to specifiers')
  assert.ok(isStringMap(config.overrides) && isStringMap(config.patchedDependencies) && isStringMap(config.allowedDeprecatedVersions))
  assert.ok(Object.values(config.allowBuilds).every((v) => typeof v === 'boolean'))
  for (const list of [
    config.hoistPattern,
    config.publicHoistPattern,
    config.minimumReleaseAgeExclude,
    config.ignoredOptionalDependencies,
    config.ca,
  ]) {
    assert.ok(list.every((s) => typeof s === 'string'))
  }
  // Concurrencies go to p-limit, which takes whole numbers only.
  assert.ok(isCount(config.childConcurrency), `childConcurrency ${config.childConcurrency} is a whole number`)
  for (const n of [config.minimumReleaseAge, config.peersSuffixMaxLength, config.modulesCacheMaxAge]) assert.ok(typeof n === 'number' && n >= 0 && !Number.isNaN(n))
  assert.ok(['auto', 'hardlink', 'clone', 'copy', 'clone-or-copy'].includes(config.packageImportMethod))
  assert.equal(typeof config.storeDir, 'string')
  assert.equal(typeof config.cacheDir, 'string')
  assert.equal(typeof config.savePrefix, 'string')
  assert.ok(['isolated', 'hoisted'].includes(config.nodeLinker))
  assert.ok(path.isAbsolute(config.virtualStoreDir))
  assert.ok(Number.isInteger(config.virtualStoreDirMaxLength) && config.virtualStoreDirMaxLength > 0)
  assert.equal(typeof config.confirmModulesPurge, 'boolean')
}
