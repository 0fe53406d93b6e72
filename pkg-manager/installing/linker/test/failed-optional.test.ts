import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { removeFailedOptionalPackages } from '../src/failed-optional.js'

test('removeFailedOptionalPackages: the package directory goes, with the links in the given node_modules that lead to it; others stay', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-failed-optional-'))
  try {
    const modules = path.join(root, 'node_modules')
    const failed = path.join(modules, '.pnpm', 'fails@1.0.0', 'node_modules', 'fails')
    const kept = path.join(modules, '.pnpm', 'ok@1.0.0', 'node_modules', 'ok')
    for (const dir of [failed, kept]) fs.mkdirSync(dir, { recursive: true })
    const hoisted = path.join(modules, '.pnpm', 'node_modules')
    fs.mkdirSync(path.join(hoisted, '@scope'), { recursive: true })
    fs.symlinkSync(path.relative(hoisted, failed), path.join(hoisted, 'fails'))
    fs.symlinkSync(path.relative(path.join(hoisted, '@scope'), failed), path.join(hoisted, '@scope', 'fails'))
    fs.symlinkSync(path.relative(hoisted, kept), path.join(hoisted, 'ok'))
    fs.symlinkSync(path.relative(modules, failed), path.join(modules, 'fails'))
    // A dependent's link (not in the dirs given) stays, dangling, as pnpm leaves it.
    const dependentLink = path.join(modules, '.pnpm', 'has-fails@1.0.0', 'node_modules', 'fails')
    fs.mkdirSync(path.dirname(dependentLink), { recursive: true })
    fs.symlinkSync(path.relative(path.dirname(dependentLink), failed), dependentLink)

    await removeFailedOptionalPackages([failed], [modules, hoisted, path.join(root, 'missing', 'node_modules')])
    assert.equal(fs.existsSync(failed), false)
    for (const gone of [path.join(hoisted, 'fails'), path.join(hoisted, '@scope', 'fails'), path.join(modules, 'fails')]) {
      assert.throws(() => fs.lstatSync(gone), { code: 'ENOENT' }, gone)
    }
    assert.equal(fs.realpathSync(path.join(hoisted, 'ok')), fs.realpathSync(kept))
    assert.equal(fs.lstatSync(dependentLink).isSymbolicLink(), true)
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})
