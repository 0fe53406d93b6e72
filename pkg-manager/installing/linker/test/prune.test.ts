import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { hoistedPath } from '../src/hoist.js'
import { planLayout } from '../src/layout.js'
import type { Layout } from '../src/layout.js'
import { planPrune } from '../src/prune.js'

const INCLUDE = { dependencies: true, devDependencies: true, optionalDependencies: true }
const pkg = (): { resolution: { integrity: string } } => ({ resolution: { integrity: 'sha512-AAAA' } })

/** native → two platform packages, optional; `skipped` left out of the layout. */
const LOCKFILE: Lockfile = {
  lockfileVersion: '9.0',
  importers: { '.': { dependencies: { native: { specifier: '1.0.0', version: '1.0.0' } } } },
  packages: { 'native@1.0.0': pkg(), 'plat-a@1.0.0': pkg(), 'plat-b@1.0.0': pkg() },
  snapshots: {
    'native@1.0.0': { optionalDependencies: { 'plat-a': '1.0.0', 'plat-b': '1.0.0' } },
    'plat-a@1.0.0': { optional: true },
    'plat-b@1.0.0': { optional: true },
  },
}

function layoutOf (root: string, skipped: string[]): Layout {
  return planLayout(LOCKFILE, {
    lockfileDir: root,
    importers: [{ id: '.', dir: root }],
    include: INCLUDE,
    virtualStoreDir: path.join(root, 'node_modules', '.pnpm'),
    virtualStoreDirMaxLength: 120,
    skipped: new Set(skipped),
  })
}

/** The links a layout makes, on disk (the packages' directories too). */
function lay (layout: Layout): void {
  for (const laid of layout.packages) fs.mkdirSync(laid.dir, { recursive: true })
  for (const link of [...layout.directLinks, ...layout.packages.flatMap((laid) => laid.links)]) {
    fs.mkdirSync(path.dirname(link.path), { recursive: true })
    if (!fs.existsSync(link.path)) fs.symlinkSync(link.target, link.path)
  }
}

test('planPrune: a dependency a package lost loses its link and hoisted link; with keepLinksTo (installed as the lockfile is) both stay', async () => {
  for (const keep of [false, true]) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-prune-'))
    const modulesDir = path.join(root, 'node_modules')
    const previous = layoutOf(root, [])
    const next = layoutOf(root, ['plat-b@1.0.0'])
    lay(previous)
    const dirs = { modulesDir, virtualStoreDir: previous.virtualStoreDir }
    const hoistedB = { alias: 'plat-b', depPath: 'plat-b@1.0.0', dir: '', type: 'private' as const }
    fs.mkdirSync(path.join(previous.virtualStoreDir, 'node_modules'), { recursive: true })
    fs.symlinkSync('../plat-b@1.0.0/node_modules/plat-b', hoistedPath(dirs, hoistedB))
    const plan = await planPrune({
      modulesDir,
      previous,
      previousHoisted: { 'plat-b@1.0.0': { 'plat-b': 'private' } },
      next,
      nextHoisted: [],
      pruneVirtualStore: true,
      ...keep ? { keepLinksTo: new Set(['plat-b@1.0.0']) } : {},
    })
    assert.deepEqual(plan.changed, ['native@1.0.0'])
    await plan.remove()
    await plan.removeStaleDirs()
    const nativeLinks = path.join(previous.virtualStoreDir, 'native@1.0.0', 'node_modules')
    assert.deepEqual(fs.readdirSync(nativeLinks).sort(), keep ? ['native', 'plat-a', 'plat-b'] : ['native', 'plat-a'])
    assert.equal(fs.lstatSync(hoistedPath(dirs, hoistedB), { throwIfNoEntry: false }) !== undefined, keep)
    // The package's directory goes when the virtual store is pruned, whatever links stay.
    assert.equal(fs.existsSync(path.join(previous.virtualStoreDir, 'plat-b@1.0.0')), false)
    fs.rmSync(root, { recursive: true })
  }
})

// A filtered install writes the bins of the importers it selects only: the others' .bin must stay.
test('planPrune: each importer\'s .bin goes (its bins are written again), but not an untouched importer\'s', async () => {
  for (const untouched of [false, true]) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-prune-'))
    const layout = layoutOf(root, [])
    lay(layout)
    const { modulesDir } = layout.importers[0]!
    const bin = path.join(modulesDir, '.bin')
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, 'tool'), '')
    const plan = await planPrune({
      modulesDir,
      previous: layout,
      previousHoisted: {},
      next: layout,
      nextHoisted: [],
      pruneVirtualStore: false,
      ...untouched ? { untouchedModulesDirs: new Set([modulesDir]) } : {},
    })
    await plan.remove()
    assert.equal(fs.existsSync(path.join(bin, 'tool')), untouched)
    fs.rmSync(root, { recursive: true })
  }
})
