import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm } from './helpers.js'
import type { Project } from './helpers.js'

// `lode pack` beside `pnpm pack`: the same files in the tarball (names, modes, bytes), the same
// packed package.json, the same report.

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start([{ name: 'dep', version: '1.2.3' }]) })
after(async () => { await registry.close() })

/** A tarball's entries: path → mode and content (extracted with the system's tar). */
function tarballEntries (file: string): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-unpacked-'))
  execFileSync('tar', ['-xzf', file, '-C', dir])
  const entries: Record<string, string> = {}
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else entries[path.relative(dir, full)] = `${(fs.lstatSync(full).mode & 0o777).toString(8)} ${entry.isSymbolicLink() ? `-> ${fs.readlinkSync(full)}` : fs.readFileSync(full, 'utf8')}`
    }
  }
  walk(dir)
  return entries
}

async function comparePack (pnpmProject: Project, lodeProject: Project, where: string, args: string[], tarball: string): Promise<void> {
  const inDir = (project: Project): Project => ({ dir: path.join(project.dir, where), home: project.home })
  const expected = await pnpm(inDir(pnpmProject), ['pack', ...args])
  const actual = await lode(inDir(lodeProject), ['pack', ...args])
  const label = `pack ${args.join(' ')} in ${where}`
  assert.equal(actual.code, 0, `${label}: ${actual.stderr}`)
  assert.equal(actual.stdout.replaceAll(lodeProject.dir, pnpmProject.dir), expected.stdout, `${label}: stdout`)
  assert.deepEqual(tarballEntries(path.join(lodeProject.dir, tarball)), tarballEntries(path.join(pnpmProject.dir, tarball)), `${label}: the tarball`)
}

test('lode pack packs what pnpm 11 packs: the files field, bins executable, the packed package.json without publish scripts', async () => {
  const pnpmProject = makeProject(registry, {
    name: '@scope/tool',
    version: '1.0.0+build.7',
    description: 'A tool',
    main: './lib/index.js',
    bin: './cli.js',
    files: ['lib', 'cli.js'],
    scripts: { build: 'tsc', prepublishOnly: 'echo no', test: 'node test' },
    packageManager: 'pnpm@11.28.11',
    repository: 'https://example.com/tool.git',
    peerDependenciesMeta: { dep: {} },
    peerDependencies: { dep: '^1.0.0' },
    dependencies: { dep: '^1.2.0' },
  }, {
    'lib/index.js': 'module.exports = 1\n',
    'lib/util.js': 'module.exports = 2\n',
    'lib/.hidden': 'secret\n',
    'cli.js': '#!/usr/bin/env node\nrequire("./lib")\n',
    'README.md': '# tool\n',
    LICENSE: 'MIT\n',
    'src/index.ts': 'export {}\n',
    '.npmrc': 'registry=x\n',
    'test/a.js': '',
  })
  const lodeProject = cloneProject(pnpmProject)
  await comparePack(pnpmProject, lodeProject, '.', [], 'scope-tool-1.0.0.tgz')
  await comparePack(pnpmProject, lodeProject, '.', ['--json', '--pack-destination', 'dist'], 'dist/scope-tool-1.0.0.tgz')
  const packed = JSON.parse(tarballEntries(path.join(lodeProject.dir, 'scope-tool-1.0.0.tgz'))['package/package.json']!.slice(4)) as Record<string, unknown>
  assert.deepEqual(packed['scripts'], { build: 'tsc', test: 'node test' })
  assert.equal(packed['packageManager'], undefined)
  assert.deepEqual(packed['bin'], { tool: './cli.js' })
})

test('lode pack without a files field follows .npmignore; a workspace package\'s workspace: and catalog: specifiers and publishConfig are replaced, as pnpm 11 does', async () => {
  const json = (value: unknown): string => JSON.stringify(value, null, 2)
  const pnpmProject = makeProject(registry, { name: 'root', version: '0.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\ncatalog:\n  dep: 1.2.3\n',
    '.gitignore': 'generated/\n',
    'packages/lib/package.json': json({ name: 'lib', version: '2.1.0' }),
    'packages/lib/index.js': '',
    'packages/app/package.json': json({
      name: 'app',
      version: '3.0.0',
      main: 'src/index.js',
      dependencies: { lib: 'workspace:^', dep: 'catalog:' },
      devDependencies: { 'lib-alias': 'workspace:lib@*' },
      peerDependencies: { lib: 'workspace:>=2' },
      publishConfig: { main: 'dist/index.js', access: 'public' },
    }),
    'packages/app/src/index.js': '',
    'packages/app/dist/index.js': '',
    'packages/app/generated/out.js': '',
    'packages/app/notes.txt': '',
    'packages/app/.npmignore': 'notes.txt\n',
    'packages/app/run.sh': '#!/bin/sh\n',
  })
  fs.chmodSync(path.join(pnpmProject.dir, 'packages/app/run.sh'), 0o755)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  await comparePack(pnpmProject, lodeProject, 'packages/app', [], 'packages/app/app-3.0.0.tgz')
  fs.rmSync(path.join(pnpmProject.dir, 'packages/app/.npmignore'))
  fs.rmSync(path.join(lodeProject.dir, 'packages/app/.npmignore'))
  await comparePack(pnpmProject, lodeProject, 'packages/app', ['--out', '../../out/%s@%v.tgz'], 'out/app@3.0.0.tgz')
  const packed = JSON.parse(tarballEntries(path.join(lodeProject.dir, 'out/app@3.0.0.tgz'))['package/package.json']!.slice(4)) as Record<string, unknown>
  assert.deepEqual(packed['dependencies'], { lib: '^2.1.0', dep: '1.2.3' })
  assert.equal(packed['main'], 'dist/index.js')
})

test('lode pack -r packs every project with a name and a version, dependencies first, into the current directory, as pnpm 11 does', async () => {
  const json = (value: unknown): string => JSON.stringify(value, null, 2)
  const pnpmProject = makeProject(registry, { name: 'root', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/lib/package.json': json({ name: 'lib', version: '2.1.0' }),
    'packages/lib/index.js': '',
    'packages/app/package.json': json({ name: 'app', version: '3.0.0', dependencies: { lib: 'workspace:^' } }),
    'packages/app/index.js': '',
    'packages/private/package.json': json({ name: 'private', version: '1.0.0', private: true }),
    'packages/nameless/package.json': json({ version: '1.0.0' }),
    // The root's license files go into a package that packs none of its own (lib has one).
    LICENSE: 'root license\n',
    'LICENCE.md': 'root licence\n',
    'license-notes.txt': '',
    'packages/lib/license.md': 'lib license\n',
  })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  for (const args of [['-r'], ['-r', '--json', '--pack-destination', 'dist'], ['--filter', 'app', '--out', 'out/%s.tgz']]) {
    const expected = await pnpm(pnpmProject, ['pack', ...args])
    const actual = await lode(lodeProject, ['pack', ...args])
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(actual.stdout.replaceAll(lodeProject.dir, pnpmProject.dir), expected.stdout, args.join(' '))
  }
  for (const tarball of ['app-3.0.0.tgz', 'lib-2.1.0.tgz', 'private-1.0.0.tgz', 'dist/app-3.0.0.tgz', 'out/app.tgz']) {
    assert.deepEqual(tarballEntries(path.join(lodeProject.dir, tarball)), tarballEntries(path.join(pnpmProject.dir, tarball)), tarball)
  }
  assert.match((await lode(lodeProject, ['pack', '-r'])).stdout, /^package: lib@2\.1\.0\n[^]*\n\npackage: app@3\.0\.0\n/)
  assert.deepEqual(Object.keys(tarballEntries(path.join(lodeProject.dir, 'app-3.0.0.tgz'))).sort(), ['package/LICENCE.md', 'package/LICENSE', 'package/index.js', 'package/package.json'])
  assert.deepEqual(Object.keys(tarballEntries(path.join(lodeProject.dir, 'lib-2.1.0.tgz'))).sort(), ['package/index.js', 'package/license.md', 'package/package.json'])
})
