import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { installInputs, writeInstallState } from '../src/install-state.js'
import { sandbox } from './helpers.js'

test('installInputs: a patch file of patchedDependencies is an input; an edit of it changes the digest', async () => {
  const box = sandbox()
  fs.mkdirSync(path.join(box.dir, 'patches'))
  fs.writeFileSync(path.join(box.dir, 'patches', 'pat.patch'), 'one')
  const config = { ...box.config, patchedDependencies: { 'pat@1.0.0': 'patches/pat.patch', 'pat@^1': './patches/pat.patch' } }
  const before = (await installInputs({ config }))!
  assert.deepEqual(before.files.filter((file) => file.endsWith('.patch')), [path.join('patches', 'pat.patch')], 'one file, however it is named')
  assert.equal(before.unwatched, undefined)
  fs.writeFileSync(path.join(box.dir, 'patches', 'pat.patch'), 'two')
  assert.notEqual((await installInputs({ config }))!.digest, before.digest)
  fs.rmSync(path.join(box.dir, 'patches', 'pat.patch'))
  assert.equal(await installInputs({ config }), undefined, 'a patch file missing: never up to date (the install says what is missing)')
})

test('installInputs: a patch file outside the project is read, and no quick check is recorded for it', async () => {
  const box = sandbox()
  fs.writeFileSync(path.join(box.outside, 'pat.patch'), 'one')
  const config = { ...box.config, patchedDependencies: { pat: '../outside/pat.patch' } }
  const before = (await installInputs({ config }))!
  assert.equal(before.unwatched, true)
  fs.writeFileSync(path.join(box.outside, 'pat.patch'), 'two')
  assert.notEqual((await installInputs({ config }))!.digest, before.digest)
  await writeInstallState({ config, quickKey: box.quick.key }, before, 0)
  const state = JSON.parse(fs.readFileSync(path.join(box.dir, 'node_modules', '.lode-state.json'), 'utf8')) as Record<string, unknown>
  assert.equal(state['inputs'], before.digest)
  assert.equal(state['quick'], undefined)
})
