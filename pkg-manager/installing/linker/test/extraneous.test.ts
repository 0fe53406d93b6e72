import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { removeExtraneous } from '../src/extraneous.js'

test('removeExtraneous: what is not kept goes (links unfollowed, directories, emptied scopes); dot entries and kept paths stay', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-extraneous-'))
  const modules = path.join(root, 'node_modules')
  const outside = path.join(root, 'outside')
  fs.mkdirSync(path.join(outside, 'keep-me'), { recursive: true })
  for (const dir of ['.pnpm/x', '.bin', 'kept', 'stray-dir/lib', '@scope/kept', '@scope/gone', '@empty/gone']) fs.mkdirSync(path.join(modules, dir), { recursive: true })
  fs.writeFileSync(path.join(modules, '.modules.yaml'), '{}')
  fs.symlinkSync(outside, path.join(modules, 'hand-link'))
  const keep = new Set([path.join(modules, 'kept'), path.join(modules, '@scope', 'kept')])
  const removed = await removeExtraneous([modules], keep)
  assert.deepEqual(removed.map((file) => path.relative(modules, file)).sort(), ['@empty/gone', '@scope/gone', 'hand-link', 'stray-dir'].map((p) => path.normalize(p)))
  assert.deepEqual(fs.readdirSync(modules).sort(), ['.bin', '.modules.yaml', '.pnpm', '@scope', 'kept'])
  assert.deepEqual(fs.readdirSync(path.join(modules, '@scope')), ['kept'])
  assert.ok(fs.existsSync(path.join(outside, 'keep-me')), 'a link is removed, not what it leads to')
  assert.deepEqual(await removeExtraneous([path.join(root, 'missing')], keep), [])
})
