import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, listing, lode, makeProject, pnpm, readLockfileText } from './helpers.js'

// `lode prune` beside pnpm 11: the same node_modules and pnpm-lock.yaml after it.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0' },
    { name: 'top', version: '1.0.0', dependencies: { leaf: '1.0.0' } },
    { name: 'devtool', version: '1.0.0' },
    { name: 'extra', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

test('lode prune takes out what package.json no longer names, and with --prod the dev dependencies, as pnpm prune does', async () => {
  const pnpmProject = makeProject(registry, { name: 'x', version: '1.0.0', dependencies: { top: '1.0.0', extra: '1.0.0' }, devDependencies: { devtool: '1.0.0' } })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const trimmed = JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { top: '1.0.0' }, devDependencies: { devtool: '1.0.0' } })
  for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'package.json'), trimmed)
  for (const args of [['prune'], ['prune', '--prod']]) {
    await pnpm(pnpmProject, args)
    const pruned = await lode(lodeProject, args)
    assert.equal(pruned.code, 0, pruned.stderr)
    assert.deepEqual(listing(path.join(lodeProject.dir, 'node_modules')), listing(path.join(pnpmProject.dir, 'node_modules')), `node_modules after ${args.join(' ')}`)
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject), `pnpm-lock.yaml after ${args.join(' ')}`)
  }
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'extra')), false)
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'devtool')), false)
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'top')), true)
})
