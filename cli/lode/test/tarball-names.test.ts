import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry, buildTarball } from '@lode/__utils__.test-fixtures'

import { cloneProject, listing, lode, makeProject, pnpm } from './helpers.js'
import type { Project } from './helpers.js'

// Entry names holding a backslash, as a tarball packed on Windows (or made to confuse a reader) has them.
const ENTRIES = ['package\\first.js', '\\lead.js', 'package/lib/a', 'package/lib/a\\b.js', 'package/.\\dot.js', 'package/c\\.\\z.js']

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start()
  const manifest = { name: 'backslashes', version: '1.0.0' }
  const { tarball } = await buildTarball([{ name: 'package/package.json', content: JSON.stringify(manifest) }, ...ENTRIES.map((name) => ({ name, content: name }))])
  registry.publishPacked(manifest, tarball)
})
after(async () => { await registry.close() })

test('a tarball\'s entry names with backslashes install as pnpm 11 installs them', async () => {
  const pnpmProject = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { backslashes: '1.0.0' } })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  const installed = await lode(lodeProject, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
  const files = (project: Project): string[] => listing(path.join(project.dir, 'node_modules', 'backslashes'))
  assert.deepEqual(files(lodeProject), files(pnpmProject))
  // On POSIX: `a\b.js` is a file beside `a`; the package's directory ended by `\` is stripped; `.\` separates.
  assert.deepEqual(files(lodeProject), ['c/z.js', 'dot.js', 'first.js', 'lead.js', 'lib/a', 'lib/a\\b.js', 'package.json'])
})
