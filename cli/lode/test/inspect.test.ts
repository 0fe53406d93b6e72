import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lode, makeProject, pnpm } from './helpers.js'
import type { Project } from './helpers.js'

// pnpm's commands that inspect a project, beside pnpm 11: what both print, and that they write nothing.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([{ name: 'alpha', version: '1.0.0' }])
})
after(async () => { await registry.close() })

/** The same project, entered in `sub` (its home kept). */
function inDir (project: Project, sub: string): Project {
  return { dir: path.join(project.dir, sub), home: project.home }
}

test('lode root and lode bin print the nearest project\'s node_modules and .bin, as pnpm 11 does', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0' }, { 'src/deep/file.js': '' })
  const outside = path.dirname(project.dir)
  for (const [label, where, args] of [
    ['in the project', project, []],
    ['below it (the nearest package.json up)', inDir(project, 'src/deep'), []],
    ['with --dir, taken as given', project, ['--dir', path.join(project.dir, 'src')]],
    ['with -C outside any project', project, ['-C', outside]],
  ] as const) {
    for (const command of ['root', 'bin']) {
      const expected = await pnpm(where, [command, ...args])
      const actual = await lode(where, [command, ...args])
      assert.equal(actual.code, 0, actual.stderr)
      assert.equal(actual.stdout, expected.stdout, `lode ${command} ${label}`)
    }
  }
  const rootOut = await lode(inDir(project, 'src/deep'), ['root'])
  assert.equal(rootOut.stdout, `${path.join(project.dir, 'node_modules')}\n`)
  assert.deepEqual(fs.readdirSync(project.dir).sort(), ['package.json', 'src'], 'nothing is written')
})

test('lode root -g is refused with a coded error (lode has no global packages); a --dir that does not exist too', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0' })
  const global = await lode(project, ['root', '-g'])
  assert.equal(global.code, 1)
  assert.match(global.stderr, /^\[ERR_LODE_GLOBAL_NOT_SUPPORTED\] .*lode root --global/)
  assert.match(global.stderr, /pnpm root -g/)
  const missing = await lode(project, ['bin', '--dir', 'nowhere'])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^\[ERR_LODE_DIR_NOT_FOUND\] The directory .*nowhere \(--dir\) does not exist\./)
  assert.equal(missing.stdout, '')
})
