import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm } from './helpers.js'

// `lode outdated` beside pnpm 11: the same report (table, list, JSON), the same exit code.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'alpha', version: '1.0.0' }, { name: 'alpha', version: '1.1.0' },
    { name: 'alpha', version: '2.0.0', manifest: { homepage: 'https://alpha.example.com/docs/a-homepage-longer-than-forty-characters' } },
    { name: 'beta', version: '1.0.0' }, { name: 'beta', version: '1.0.1' },
    { name: 'gamma', version: '3.0.0', manifest: { homepage: 'https://gamma.example.com' } },
    { name: '@sc/delta', version: '1.0.0' }, { name: '@sc/delta', version: '1.5.0', manifest: { deprecated: 'use epsilon' } },
    // Below 1.0.0 and prereleases: pnpm calls their change "unknown" and lists them last.
    { name: 'zeta', version: '0.1.0' }, { name: 'zeta', version: '0.2.0' },
    { name: 'eta', version: '1.0.0-rc.1' }, { name: 'eta', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

const MANIFEST = { name: 'x', version: '1.0.0', dependencies: { alpha: '^1.0.0', gamma: '3.0.0', zeta: '^0.1.0', eta: '1.0.0-rc.1' }, devDependencies: { beta: '~1.0.0', '@sc/delta': '^1.0.0' } }

test('lode outdated reports what pnpm 11 reports: installed, wanted and newest versions, by change then name, in every format', async () => {
  // Locked to the oldest versions: pnpm adds them exactly, then the ranges are widened (the lockfile still satisfies them).
  const pnpmProject = makeProject(registry, { name: 'x', version: '1.0.0' })
  await pnpm(pnpmProject, ['add', 'alpha@1.0.0', 'gamma@3.0.0', 'zeta@0.1.0', 'eta@1.0.0-rc.1'])
  await pnpm(pnpmProject, ['add', '-D', 'beta@1.0.0', '@sc/delta@1.0.0'])
  fs.writeFileSync(path.join(pnpmProject.dir, 'package.json'), JSON.stringify(MANIFEST, null, 2))
  const lodeProject = cloneProject(pnpmProject)
  fs.rmSync(path.join(lodeProject.dir, 'node_modules'), { recursive: true, force: true })
  await pnpm(pnpmProject, ['install', '--no-frozen-lockfile'])
  fs.copyFileSync(path.join(pnpmProject.dir, 'pnpm-lock.yaml'), path.join(lodeProject.dir, 'pnpm-lock.yaml'))
  const installed = await lode(lodeProject, ['install', '--frozen-lockfile'])
  assert.equal(installed.code, 0, installed.stderr)
  const cases: string[][] = [
    [], ['--format', 'list'], ['--format', 'json'], ['--prod'], ['--dev', '--format', 'json'], ['alpha', 'be*'], ['--compatible'], ['--compatible', '--format', 'list'],
    ['--long'], ['--long', '--format', 'list'], ['--long', '--format', 'json'],
  ]
  const compare = async (label: string): Promise<void> => {
    for (const args of cases) {
      const expected = await pnpm(pnpmProject, ['outdated', ...args], true)
      const actual = await lode(lodeProject, ['outdated', ...args])
      assert.equal(actual.stderr, '', `lode outdated ${args.join(' ')} ${label}`)
      assert.equal(actual.code, expected.code, `exit code of lode outdated ${args.join(' ')} ${label}`)
      assert.equal(actual.stdout, expected.stdout, `lode outdated ${args.join(' ')} ${label}`)
    }
  }
  await compare('(installed)')
  const table = await lode(lodeProject, ['outdated'])
  assert.match(table.stdout, /^┌─+┬─+┬─+┐\n│ Package {9}│ Current {4}│ Latest {13}│\n/)
  assert.match(table.stdout, /│ @sc\/delta \(dev\) │ 1\.0\.0 {6}│ 1\.5\.0 \(deprecated\) │/)
  assert.match(table.stdout, /│ alpha .*\n.*\n│ eta .*\n.*\n│ zeta /, 'a breaking change, then the "unknown" ones (a prerelease, below 1.0.0)')
  const long = await lode(lodeProject, ['outdated', '--long'])
  assert.match(long.stdout, /│ Details +│\n/)
  assert.match(long.stdout, /│ use epsilon +│/)
  assert.match(long.stdout, /https:\/\/alpha\.example\.com\/docs\/a-homepage-longer-than-forty-characters │/)
  // Before node_modules is installed, what pnpm-lock.yaml wants is "missing".
  for (const project of [pnpmProject, lodeProject]) fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true, force: true })
  await compare('(nothing installed)')
  const missing = await lode(lodeProject, ['outdated', '--format', 'list'])
  assert.match(missing.stdout, /^gamma\nmissing \(wanted 3\.0\.0\) => 3\.0\.0\n\nbeta \(dev\)\nmissing \(wanted 1\.0\.0\) => 1\.0\.1\n/)
})

test('lode outdated: nothing outdated exits 0; no lockfile or an unknown format is a coded error', async () => {
  const fresh = makeProject(registry, { name: 'y', version: '1.0.0', dependencies: { gamma: '3.0.0' } })
  const noLockfile = await lode(fresh, ['outdated'])
  assert.equal(noLockfile.code, 1)
  assert.match(noLockfile.stderr, /^\[ERR_LODE_OUTDATED_NO_LOCKFILE\] No lockfile in directory ".*"\. Run `lode install` to generate one\./)
  assert.equal((await lode(fresh, ['install'])).code, 0)
  const upToDate = await lode(fresh, ['outdated'])
  assert.equal(upToDate.code, 0, upToDate.stderr)
  assert.equal(upToDate.stdout, '')
  assert.equal((await lode(fresh, ['outdated', '--format', 'json'])).stdout, '{}\n')
  const badFormat = await lode(fresh, ['outdated', '--format', 'xml'])
  assert.equal(badFormat.code, 1)
  assert.match(badFormat.stderr, /^\[ERR_LODE_BAD_OUTDATED_FORMAT\] Unsupported format: xml/)
})

test('lode outdated -r and --filter report a workspace as pnpm 11 does: a row per package, with its dependents', async () => {
  const pnpmProject = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0' }),
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0' }),
  })
  // A long project name: the Dependents column wraps it as pnpm's table does (after a `-` or `/`).
  const b = '@lode-test/a-project-with-a-long-name'
  await pnpm(pnpmProject, ['--filter', 'a', 'add', 'alpha@1.0.0', 'beta@1.0.0'])
  fs.writeFileSync(path.join(pnpmProject.dir, 'packages/b/package.json'), JSON.stringify({ name: b, version: '1.0.0' }))
  await pnpm(pnpmProject, ['--filter', b, 'add', 'alpha@1.0.0'])
  await pnpm(pnpmProject, ['--filter', b, 'add', '-D', '@sc/delta@1.0.0'])
  fs.writeFileSync(path.join(pnpmProject.dir, 'packages/a/package.json'), JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { alpha: '^1.0.0', beta: '~1.0.0' } }))
  fs.writeFileSync(path.join(pnpmProject.dir, 'packages/b/package.json'), JSON.stringify({ name: b, version: '1.0.0', dependencies: { alpha: '^1.0.0' }, devDependencies: { '@sc/delta': '^1.0.0' } }))
  await pnpm(pnpmProject, ['install', '--no-frozen-lockfile'])
  const lodeProject = cloneProject(pnpmProject)
  fs.rmSync(path.join(lodeProject.dir, 'node_modules'), { recursive: true, force: true })
  for (const dir of ['packages/a', 'packages/b']) fs.rmSync(path.join(lodeProject.dir, dir, 'node_modules'), { recursive: true, force: true })
  const installed = await lode(lodeProject, ['install', '--frozen-lockfile'])
  assert.equal(installed.code, 0, installed.stderr)
  for (const args of [['-r'], ['-r', '--format', 'list'], ['-r', '--format', 'json'], ['--filter', b], ['-r', '--prod'], ['-r', 'alpha'], ['-r', '--long'], ['-r', '--long', '--format', 'list']]) {
    const expected = await pnpm(pnpmProject, ['outdated', ...args], true)
    const actual = await lode(lodeProject, ['outdated', ...args])
    assert.equal(actual.code, expected.code, `exit code of lode outdated ${args.join(' ')}`)
    assert.equal(actual.stdout.replaceAll(lodeProject.dir, pnpmProject.dir), expected.stdout, `lode outdated ${args.join(' ')}`)
  }
  const table = (await lode(lodeProject, ['outdated', '-r'])).stdout
  assert.match(table, /│ alpha +│ 1\.0\.0 +│ 2\.0\.0 +│ @lode-test\/a-project-with-a- +│\n│ +│ +│ +│ long-name, a +│\n/)
})
