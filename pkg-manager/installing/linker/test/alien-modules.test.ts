import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { hideAlienModules, restoreAlienModules } from '../src/alien-modules.js'

test('hideAlienModules moves another package manager\'s directories at direct dependencies\' places to node_modules/.ignored; restoreAlienModules puts them back', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-alien-'))
  const modulesDir = path.join(dir, 'node_modules')
  const write = (file: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(modulesDir, file)), { recursive: true })
    fs.writeFileSync(path.join(modulesDir, file), text)
  }
  write('npm-made/package.json', 'npm')
  write('@scope/npm-scoped/package.json', 'scoped')
  write('.ignored/npm-made/old.txt', 'an older copy')
  fs.symlinkSync('.pnpm/linked', path.join(modulesDir, 'linked'))
  const warnings: string[] = []
  const importers = [{ id: '.', dir, modulesDir, direct: ['npm-made', '@scope/npm-scoped', 'linked', 'absent'].map((alias) => ({ alias, dir: '' })), hoistedPeers: [] }]
  const moves = await hideAlienModules(importers, (message) => warnings.push(message))
  assert.deepEqual(moves.map(({ to }) => path.relative(modulesDir, to)), [path.join('.ignored', 'npm-made'), path.join('.ignored', '@scope', 'npm-scoped')])
  assert.deepEqual(fs.readdirSync(path.join(modulesDir, '.ignored', 'npm-made')), ['package.json'], 'the older copy replaced')
  assert.equal(fs.existsSync(path.join(modulesDir, 'npm-made')), false)
  assert.ok(fs.lstatSync(path.join(modulesDir, 'linked')).isSymbolicLink(), 'a link is no alien')
  assert.deepEqual(warnings, [
    'Moving npm-made that was installed by a different package manager to "node_modules/.ignored"',
    'Moving @scope/npm-scoped that was installed by a different package manager to "node_modules/.ignored"',
  ])
  // The install then fails after linking there: the directories come back, the links go.
  fs.symlinkSync('.pnpm/npm-made', path.join(modulesDir, 'npm-made'))
  await restoreAlienModules(moves)
  assert.equal(fs.readFileSync(path.join(modulesDir, 'npm-made', 'package.json'), 'utf8'), 'npm')
  assert.equal(fs.readFileSync(path.join(modulesDir, '@scope', 'npm-scoped', 'package.json'), 'utf8'), 'scoped')
  fs.rmSync(dir, { recursive: true, force: true })
})
