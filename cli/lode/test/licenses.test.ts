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
    // No homepage: pnpm's reads make one of the repository on a known git host.
    { name: 'repo-home', version: '1.0.0', manifest: { license: 'MIT', repository: { type: 'git', url: 'git+https://github.com/someone/repo-home.git' } } },
    { name: 'bare-home', version: '1.0.0', manifest: { license: 'MIT', homepage: 'example.com/bare' } },
    // Its package.json says v1.0.0: pnpm's reads clean it to 1.0.0.
    { name: 'v-version', version: '1.0.0', files: { 'package.json': JSON.stringify({ name: 'v-version', version: 'v1.0.0', license: 'MIT' }) } },
    { name: 'with-optional', version: '1.0.0', manifest: { license: 'MIT', optionalDependencies: { 'no-license': '1.0.0' } } },
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

test('lode licenses list in a workspace: the current project unless -r or --filter; dev-only across every project; homepages and versions as pnpm 11 reads them', async () => {
  const json = (value: unknown): string => JSON.stringify(value)
  // dev-tool is a production dependency of app and a dev dependency of web: nowhere "(dev)". with-optional's optional dependency counts with --dev.
  const pnpmProject = makeProject(registry, { name: 'root', version: '1.0.0', private: true, dependencies: { 'mit-pkg': '1.0.0', 'repo-home': '1.0.0' } }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/app/package.json': json({ name: 'app', version: '1.0.0', dependencies: { 'dev-tool': '1.0.0', 'v-version': '1.0.0', web: 'workspace:*' } }),
    'packages/web/package.json': json({ name: 'web', version: '1.0.0', dependencies: { 'bare-home': '1.0.0' }, devDependencies: { 'dev-tool': '1.0.0', 'with-optional': '1.0.0' } }),
  })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const cases = [[], ['--json'], ['-r'], ['-r', '--json'], ['--filter', 'app'], ['--filter', 'app', '--json'], ['--filter', 'web', '--dev'], ['-r', '--prod', '--json']]
  for (const args of cases) {
    const expected = await pnpm(pnpmProject, ['licenses', 'list', ...args])
    const actual = await lode(lodeProject, ['licenses', 'list', ...args])
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(actual.stdout.replaceAll(lodeProject.dir, pnpmProject.dir), expected.stdout, `licenses list ${args.join(' ')}`)
  }
  const root = (await lode(lodeProject, ['licenses', 'list', '--json'])).stdout
  assert.deepEqual(Object.values(JSON.parse(root) as Record<string, Array<{ name: string }>>).flat().map(({ name }) => name).sort(), ['mit-pkg', 'repo-home'])
  assert.match(root, /"homepage": "https:\/\/github\.com\/someone\/repo-home#readme"/)
  const all = (await lode(lodeProject, ['licenses', 'list', '-r'])).stdout
  assert.match(all, /│ dev-tool +│ WTFPL/)
  assert.match((await lode(lodeProject, ['licenses', 'list', '-r', '--json'])).stdout, /"http:\/\/example\.com\/bare"[^]*"name": "v-version",\n\s+"versions": \[\n\s+"1\.0\.0"/)
  assert.match((await lode(lodeProject, ['licenses', 'list', '--filter', 'web', '--dev'])).stdout, /│ no-license \(dev\) +│ Unknown/)
})
