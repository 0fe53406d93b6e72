import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lodeExactly, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

// `lode init` beside `pnpm init`: the same package.json, the same output, the same refusals.

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start([]) })
after(async () => { await registry.close() })

/** An empty directory called `my-app` (in a workspace when `workspace`), with a home whose .npmrc names the test registry. */
function emptyDir (workspace = false): Project {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-init-'))
  const home = path.join(root, 'home')
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(home, '.npmrc'), `registry=${registry.url}\n`)
  if (!workspace) {
    fs.mkdirSync(path.join(root, 'my-app'))
    return { dir: path.join(root, 'my-app'), home }
  }
  fs.mkdirSync(path.join(root, 'ws', 'packages', 'my-app'), { recursive: true })
  fs.writeFileSync(path.join(root, 'ws', 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n')
  return { dir: path.join(root, 'ws', 'packages', 'my-app'), home }
}

const readManifest = (project: Project): string | undefined =>
  fs.existsSync(path.join(project.dir, 'package.json')) ? fs.readFileSync(path.join(project.dir, 'package.json'), 'utf8') : undefined

test('lode init writes the package.json pnpm 11 writes and prints it as pnpm does', async () => {
  for (const [args, workspace] of [
    [[], false],
    [['--bare'], false],
    [['--init-type', 'commonjs', '--no-init-package-manager'], false],
    [['--bare', '--init-package-manager=false'], false],
    [[], true],
  ] as const) {
    const pnpmDir = emptyDir(workspace)
    const lodeDir = emptyDir(workspace)
    const expected = await pnpmExactly(pnpmDir, ['init', ...args])
    const actual = await lodeExactly(lodeDir, ['init', ...args])
    const label = `init ${args.join(' ')}${workspace ? ' in a workspace project' : ''}`
    assert.equal(actual.code, 0, `${label}: ${actual.stderr}`)
    assert.equal(expected.code, 0)
    assert.equal(actual.stdout.replaceAll(lodeDir.dir, '<dir>'), expected.stdout.replaceAll(pnpmDir.dir, '<dir>'), label)
    assert.equal(readManifest(lodeDir), readManifest(pnpmDir), label)
  }
})

test('lode init refuses arguments and an existing package.json, writing nothing, as pnpm 11 does', async () => {
  for (const [args, existing] of [[['foo'], undefined], [[], 'package.json'], [[], 'package.yaml']] as const) {
    const pnpmDir = emptyDir()
    const lodeDir = emptyDir()
    if (existing !== undefined) {
      for (const project of [pnpmDir, lodeDir]) fs.writeFileSync(path.join(project.dir, existing), existing.endsWith('.json') ? '{"name":"x"}' : 'name: x\n')
    }
    const expected = await pnpmExactly(pnpmDir, ['init', ...args])
    const actual = await lodeExactly(lodeDir, ['init', ...args])
    assert.equal(actual.code, 1)
    assert.equal(expected.code, 1)
    // pnpm prints init's errors on stdout; lode prints errors on stderr.
    assert.equal(actual.stderr.split('\n')[0], expected.stdout.split('\n')[0]!.replace('ERR_PNPM_', 'ERR_LODE_'))
    assert.deepEqual(fs.readdirSync(lodeDir.dir), fs.readdirSync(pnpmDir.dir))
  }
  const typo = emptyDir()
  const refused = await lodeExactly(typo, ['init', '--init-type', 'esm'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] --init-type is "esm"\./)
  assert.deepEqual(fs.readdirSync(typo.dir), [])
})
