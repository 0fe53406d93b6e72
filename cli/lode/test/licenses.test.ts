import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm } from './helpers.js'

// `lode licenses list` beside pnpm 11's: the licenses from package.json in its forms, from a license
// file's text, none found; versions and paths grouped; dev-only packages marked.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'mit-pkg', version: '1.0.0', manifest: { license: 'MIT', author: 'Ann <ann@example.com>', homepage: 'https://example.com/mit', description: 'One' } },
    { name: 'mit-pkg', version: '2.0.0', manifest: { license: 'MIT', author: 'Ann', description: 'Two' } },
    { name: 'wrapper', version: '1.0.0', dependencies: { 'mit-pkg': '2.0.0', 'obj-license': '1.0.0' }, manifest: { license: 'ISC' } },
    { name: 'obj-license', version: '1.0.0', manifest: { license: { type: 'ISC' }, author: { name: 'Jane' } } },
    { name: 'array-licenses', version: '1.0.0', manifest: { licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }] } },
    { name: 'file-license', version: '1.0.0', files: { LICENSE: 'The MIT License (MIT)\n\nCopyright ...' } },
    { name: 'see-license', version: '1.0.0', manifest: { license: 'SEE LICENSE IN LICENSE.txt' }, files: { 'LICENSE.txt': 'Licensed under the BSD-3-Clause terms, or the mit license.' } },
    { name: 'no-license', version: '1.0.0' },
    { name: 'dev-tool', version: '1.0.0', dependencies: { 'mit-pkg': '1.0.0' }, manifest: { license: 'WTFPL' } },
  ])
})
after(async () => { await registry.close() })

test('lode licenses list prints what pnpm 11 prints: the table, --json, --prod, --dev', async () => {
  const pnpmProject = makeProject(registry, {
    name: 'lic',
    version: '1.0.0',
    dependencies: { 'mit-pkg': '1.0.0', wrapper: '1.0.0', 'array-licenses': '1.0.0', 'file-license': '1.0.0', 'see-license': '1.0.0', 'no-license': '1.0.0' },
    devDependencies: { 'dev-tool': '1.0.0' },
  })
  const lodeProject = cloneProject(pnpmProject)
  const none = await lode(lodeProject, ['licenses', 'list'])
  assert.equal(none.code, 1)
  assert.match(none.stderr, /^\[ERR_LODE_LICENSES_NO_LOCKFILE\] No lockfile in directory/)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  for (const args of [[], ['--json'], ['--prod'], ['--dev', '--json'], ['--no-optional']]) {
    const expected = await pnpm(pnpmProject, ['licenses', 'list', ...args])
    const actual = await lode(lodeProject, ['licenses', 'list', ...args])
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(actual.stdout.replaceAll(lodeProject.dir, pnpmProject.dir), expected.stdout, `licenses list ${args.join(' ')}`)
  }
  const table = (await lode(lodeProject, ['licenses', 'list'])).stdout
  assert.match(table, /│ dev-tool \(dev\)\s+│ WTFPL\s+│/)
  assert.match(table, /│ file-license\s+│ MIT\s+│/)
  // pnpm finds "BSD" first in "BSD-3-Clause" (its names are tried in order): so does lode.
  assert.match(table, /│ see-license\s+│ BSD OR mit\s+│/)
  assert.match(table, /│ no-license\s+│ Unknown\s+│/)
  const bad = await lode(lodeProject, ['licenses', 'show'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] lode licenses takes a subcommand: list \(not "show"\)/)
})
