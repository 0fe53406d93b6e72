// Fuzz targets of what the linker reads back from node_modules (run by fuzz.test.ts through
// @lode/__utils__.test-fixtures/fuzz): `.modules.yaml` and `.pnpm/lock.yaml`, which a repository
// can carry forged. Whatever they say, a path lode would remove or write is inside the project's
// node_modules, or the reader refuses with a coded error.

import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import { assertCoded, mutate } from '@lode/__utils__.test-fixtures/fuzz'
import type { FuzzTarget, MutateOptions, Random } from '@lode/__utils__.test-fixtures/fuzz'
import { isInsideDir, joinModulesDir, joinRecorded, parseModulesLocation } from '@lode/core.safe-name'
import { parseLockfile } from '@lode/pkg-manager.lockfile.format'

import { planHoistedLayout } from '../src/hoisted-layout.js'
import { planLayout } from '../src/layout.js'
import { parseModulesManifest } from '../src/modules-manifest.js'

const ROOT = path.join(path.sep, 'work', 'project')
const MODULES = path.join(ROOT, 'node_modules')
const VIRTUAL_STORE = path.join(MODULES, '.pnpm')
const FILE = path.join(MODULES, '.modules.yaml')
const INCLUDE = { dependencies: true, devDependencies: true, optionalDependencies: true }

/** `.modules.yaml` as pnpm 11 writes it, for each linker. */
const MODULES_YAMLS = [
  {
    hoistedDependencies: { 'b@1.0.0': { b: 'private' }, '@s/c@2.0.0': { '@s/c': 'public' } },
    hoistPattern: ['*'],
    included: INCLUDE,
    injectedDeps: { 'packages/a': ['node_modules/.pnpm/a@file+packages+a/node_modules/a'] },
    layoutVersion: 5,
    nodeLinker: 'isolated',
    packageManager: 'pnpm@11.28.11',
    pendingBuilds: [],
    publicHoistPattern: [],
    prunedAt: 'Sat, 28 Nov 2026 23:00:00 GMT',
    skipped: ['win-only@1.0.0'],
    storeDir: '/home/u/.local/share/pnpm/store/v11',
    virtualStoreDir: '.pnpm',
    virtualStoreDirMaxLength: 120,
    allowBuilds: { esbuild: true },
  },
  {
    hoistedDependencies: {},
    hoistPattern: ['*'],
    included: INCLUDE,
    injectedDeps: {},
    ignoredBuilds: ['builder@1.0.0'],
    layoutVersion: 5,
    hoistedLocations: {
      'leaf@1.0.0': ['node_modules/leaf', 'packages/p/node_modules/leaf'],
      'leaf@2.0.0': ['node_modules/uses-leaf2/node_modules/leaf', 'node_modules/@sc/pkg/node_modules/leaf'],
      '@sc/pkg@1.0.0': ['node_modules/@sc/pkg'],
    },
    nodeLinker: 'hoisted',
    packageManager: 'pnpm@11.28.11',
    pendingBuilds: [],
    publicHoistPattern: [],
    prunedAt: 'Sat, 28 Nov 2026 23:00:00 GMT',
    skipped: [],
    storeDir: '/home/u/.local/share/pnpm/store/v11',
    virtualStoreDir: '.pnpm',
    virtualStoreDirMaxLength: 120,
  },
].map((manifest) => JSON.stringify(manifest, null, 2))

const PATHS = ['../', '../../outside/x', '/', '/etc', '\\\\', 'C:\\', 'node_modules/', '/node_modules/', '..', '.', '.bin', '.pnpm', '@s/', '%2e%2e', '\u0000', '__proto__', 'constructor']

const MUTATE_JSON: MutateOptions = {
  tokens: ['"', ':', ',', '{', '}', '[', ']', 'null', 'true', '1', '-1', '1e400', '""', '{}', '[]', '"__proto__"', ...PATHS.map((piece) => JSON.stringify(piece).slice(1, -1))],
  corpus: MODULES_YAMLS,
  keyLine: (key) => `"${key}": "x",`,
  nesting: [['[', ']'], ['{"a": ', '}']],
}

/** A `.modules.yaml`, mutated as text, or with a path piece spliced into a string value. */
function modulesYamlText (random: Random): string {
  const base = random.pick(MODULES_YAMLS)
  if (random.chance(0.5)) return mutate(random, base, MUTATE_JSON)
  // A path-shaped piece into a string: the likely forgery.
  const strings = [...base.matchAll(/"([^"\\]*)"/g)]
  const match = random.pick(strings)
  const at = match.index + 1 + random.int(match[1]!.length + 1)
  return base.slice(0, at) + JSON.stringify(random.pick(PATHS)).slice(1, -1) + base.slice(at)
}


/** parseModulesManifest: a coded error, or fields of their types whose places are all inside the project's node_modules trees. */
export const modulesManifest: FuzzTarget = {
  generate: modulesYamlText,
  check (input) {
    let value: unknown
    try {
      value = JSON.parse(input as string)
    } catch {
      return 'not JSON'
    }
    let manifest
    try {
      manifest = parseModulesManifest(value, FILE)
    } catch (err) {
      return assertCoded(err, FILE)
    }
    for (const places of Object.values(manifest.hoistedLocations ?? {})) {
      for (const place of places) {
        const dir = joinRecorded(ROOT, place)
        assert.ok(dir !== undefined && isInsideDir(ROOT, dir) && dir !== ROOT, `a recorded place inside the project: ${JSON.stringify(place)}`)
        assert.ok(parseModulesLocation(place) !== undefined)
        assert.ok(dir.split(path.sep).includes('node_modules'))
      }
    }
    for (const aliases of Object.values(manifest.hoistedDependencies ?? {})) {
      for (const [alias, type] of Object.entries(aliases)) {
        const link = joinModulesDir(MODULES, alias)
        assert.ok(isInsideDir(MODULES, link) && link !== MODULES, `a hoisted alias that is a package name: ${JSON.stringify(alias)}`)
        assert.ok(type === 'private' || type === 'public')
      }
    }
    if (manifest.nodeLinker !== undefined) assert.ok(['isolated', 'hoisted'].includes(manifest.nodeLinker))
    return 'read'
  },
}

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..')
const fixtures = path.join(repo, 'pkg-manager', 'lockfile', 'format', 'test', 'fixtures')
const LOCKFILES = [
  ...fs.readdirSync(fixtures).filter((name) => name.endsWith('.yaml')).map((name) => path.join(fixtures, name)),
  path.join(repo, 'bench', 'fixtures', 'small', 'pnpm-lock.yaml'),
].filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file, 'utf8'))

const MUTATE_YAML: MutateOptions = {
  tokens: [': ', '- ', "'", '"', '{', '}', 'link:', 'file:', ...PATHS, ...PATHS.map((piece) => `link:${piece}`), ...PATHS.map((piece) => `${piece}@1.0.0`)],
  corpus: LOCKFILES,
  keyLine: (key) => `${key}: value`,
  nesting: [['[', ']'], ['{', '}'], ['a:\n  ', '']],
}

/**
 * A forged `.pnpm/lock.yaml` laid out (isolated and hoisted): the reader or the planner refuses
 * with a coded error, or every package directory, link and place is inside node_modules (a `link:`
 * dependency's target may be anywhere: it is only pointed at).
 */
export const installedLayout: FuzzTarget = {
  generate: (random) => mutate(random, random.pick(LOCKFILES), MUTATE_YAML),
  check (input) {
    const file = path.join(VIRTUAL_STORE, 'lock.yaml')
    let lockfile
    try {
      lockfile = parseLockfile(input as string, file).lockfile
    } catch (err) {
      return assertCoded(err, file)
    }
    const importers = [{ id: '.', dir: ROOT }]
    try {
      const layout = planLayout(lockfile, {
        lockfileDir: ROOT, importers, include: INCLUDE, virtualStoreDir: VIRTUAL_STORE, virtualStoreDirMaxLength: 120,
      })
      for (const pkg of layout.packages) {
        assert.ok(isInsideDir(VIRTUAL_STORE, pkg.dir) && pkg.dir !== VIRTUAL_STORE, `a package inside the virtual store: ${pkg.dir}`)
        assert.ok(isInsideDir(VIRTUAL_STORE, pkg.siblingsDir) && isInsideDir(pkg.siblingsDir, pkg.dir))
        for (const link of pkg.links) assert.ok(path.dirname(link.path) === pkg.siblingsDir || path.dirname(path.dirname(link.path)) === pkg.siblingsDir, `a link beside its package: ${link.path}`)
      }
      for (const link of layout.directLinks) assert.ok(isInsideDir(MODULES, link.path) && link.path !== MODULES, `a direct link inside node_modules: ${link.path}`)
      const hoisted = planHoistedLayout(lockfile, { lockfileDir: ROOT, importers, include: INCLUDE, skipped: new Set(), autoInstallPeers: true, hoist: { hoistPattern: ['*'], publicHoistPattern: [] }, hoistWorkspacePackages: true })
      for (const pkg of hoisted.packages) {
        assert.ok(parseModulesLocation(pkg.location) !== undefined, `a hoisted place under node_modules: ${JSON.stringify(pkg.location)}`)
        assert.equal(joinRecorded(ROOT, pkg.location), pkg.dir)
      }
      for (const link of hoisted.importers.flatMap((importer) => importer.links)) {
        assert.ok(isInsideDir(MODULES, link.path) && link.path !== MODULES, `a link inside node_modules: ${link.path}`)
      }
    } catch (err) {
      if (err instanceof assert.AssertionError) throw err
      return assertCoded(err)
    }
    return 'laid out'
  },
}
