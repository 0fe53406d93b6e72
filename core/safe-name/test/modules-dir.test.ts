import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { assertOwnModulesDir } from '@lode/core.safe-name/modules-dir'

test('assertOwnModulesDir: a directory, a link inside the project, or one to an empty or laid-out directory passes; a link elsewhere is refused', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-modules-dir-'))
  try {
    const project = path.join(root, 'project')
    const modules = path.join(project, 'node_modules')
    fs.mkdirSync(project)
    assertOwnModulesDir(modules)
    fs.mkdirSync(modules)
    assertOwnModulesDir(modules)
    fs.rmdirSync(modules)
    const point = (target: string): void => {
      fs.rmSync(modules, { force: true })
      fs.mkdirSync(target, { recursive: true })
      fs.symlinkSync(target, modules)
    }
    point(path.join(project, 'nm'))
    fs.writeFileSync(path.join(project, 'nm', 'anything'), '')
    assertOwnModulesDir(modules)
    point(path.join(root, 'empty'))
    fs.writeFileSync(path.join(root, 'empty', '.lode-install.lock'), '1')
    assertOwnModulesDir(modules)
    point(path.join(root, 'laid-out'))
    fs.writeFileSync(path.join(root, 'laid-out', '.modules.yaml'), '{}')
    fs.mkdirSync(path.join(root, 'laid-out', 'a'))
    assertOwnModulesDir(modules)
    point(path.join(root, 'config'))
    fs.mkdirSync(path.join(root, 'config', 'autostart'))
    assert.throws(() => { assertOwnModulesDir(modules) }, { code: 'ERR_LODE_INVALID_MODULES_DIR' })
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})
