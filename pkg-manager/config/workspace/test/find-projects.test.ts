import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { findWorkspaceManifests, findWorkspaceProjects } from '@lode/pkg-manager.config.workspace'

function tree (files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-ws-'))
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), content)
  }
  return root
}

const pkg = (name: string): string => JSON.stringify({ name, version: '1.0.0' })

test('projects are found by the packages globs, negations excluded, node_modules never searched, the root first', async () => {
  const root = tree({
    'package.json': pkg('root'),
    'packages/a/package.json': pkg('a'),
    'packages/b/package.json': pkg('b'),
    'packages/b/node_modules/dep/package.json': pkg('dep'),
    'packages/private/package.json': pkg('private'),
    'apps/web/package.json': pkg('web'),
    'apps/web/nested/deep/package.json': pkg('deep'),
    'tools/readme.md': 'no package here',
  })
  const projects = await findWorkspaceProjects(root, ['packages/*', '!packages/private', 'apps/**'])
  assert.deepEqual(projects.map((project) => project.id), ['.', 'apps/web', 'apps/web/nested/deep', 'packages/a', 'packages/b'])
  assert.equal(projects[1]!.dir, path.join(root, 'apps', 'web'))
  assert.equal(projects[3]!.manifest['name'], 'a')
})

test('an invalid package.json in a project names the file', async () => {
  const root = tree({ 'package.json': pkg('root'), 'packages/bad/package.json': '{ "name": ' })
  await assert.rejects(findWorkspaceProjects(root, ['packages/*']), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_PACKAGE_JSON')
    assert.ok(err.message.includes(path.join(root, 'packages', 'bad', 'package.json')))
    return true
  })
})

test('a project whose dependencies are not a map of version strings names the group and the file', async () => {
  const root = tree({ 'package.json': pkg('root'), 'packages/odd/package.json': JSON.stringify({ name: 'odd', devDependencies: ['a', 'b'] }) })
  await assert.rejects(findWorkspaceProjects(root, ['packages/*']), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_PACKAGE_JSON')
    assert.ok(err.message.startsWith(`"devDependencies" in ${path.join(root, 'packages', 'odd', 'package.json')} must map`))
    return true
  })
})

test('plain directories and their children are listed as the glob would find them', async () => {
  const root = tree({
    'package.json': pkg('root'),
    'packages/a/package.json': pkg('a'),
    'packages/.hidden/package.json': pkg('hidden'),
    'packages/node_modules/dep/package.json': pkg('dep'),
    'packages/no-manifest/index.js': '',
    'packages/not-a-dir': '',
    'packages/odd/package.json/index.js': 'a directory named package.json',
    'elsewhere/linked/package.json': pkg('linked'),
    'apps/web/package.json': pkg('web'),
    'apps/web/nested/package.json': pkg('nested'),
  })
  fs.symlinkSync(path.join(root, 'elsewhere', 'linked'), path.join(root, 'packages', 'linked'))
  const expected = ['apps/web/package.json', 'package.json', 'packages/a/package.json', 'packages/linked/package.json']
  // The plain patterns are listed; `nothing/**` (which matches nothing) makes them go through the glob.
  for (const patterns of [['packages/*', 'apps/web/', 'missing/*', '.'], ['packages/*', 'apps/web/', 'missing/*', '.', 'nothing/**']]) {
    assert.deepEqual(await findWorkspaceManifests(root, patterns), expected, patterns.join(' '))
  }
  assert.deepEqual((await findWorkspaceProjects(root, ['packages/*', 'apps/web'])).map((project) => project.manifest['name']), ['root', 'web', 'a', 'linked'])
})

// Found by fuzz.test.ts.

test('fuzz finding: the root project is listed whatever the patterns exclude (`!`, `!.`), as pnpm lists it', async () => {
  const root = tree({ 'package.json': pkg('root'), 'packages/a/package.json': pkg('a') })
  for (const patterns of [['!'], ['packages/*', '!.'], ['!**', 'packages/*']]) {
    assert.equal((await findWorkspaceProjects(root, patterns))[0]?.id, '.', JSON.stringify(patterns))
  }
})

test('fuzz finding: a pattern the glob library cannot match (thousands of segments, a run of dots, a NUL, over 4096 characters) is ERR_LODE_INVALID_SETTING naming pnpm-workspace.yaml, not an uncaught exception', async () => {
  const root = tree({ 'package.json': pkg('root'), 'packages/a/package.json': pkg('a') })
  for (const pattern of [`x${'*~/'.repeat(3000)}`, `${'.'.repeat(200)}/x`, 'packages/\0', `packages/${'('.repeat(5000)}`]) {
    await assert.rejects(findWorkspaceProjects(root, ['packages/*', pattern]), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_INVALID_SETTING')
      assert.ok(err.message.includes(path.join(root, 'pnpm-workspace.yaml')))
      return true
    }, pattern.slice(0, 20))
  }
})

test('fuzz finding: a directory name too long for the file system matches nothing', async () => {
  const root = tree({ 'package.json': pkg('root') })
  assert.deepEqual((await findWorkspaceProjects(root, [`${'k'.repeat(300)}/*`, 'k'.repeat(300)])).map((project) => project.id), ['.'])
})

test('fuzz finding: a pattern above the root makes the glob walk no more than that pattern needs (`/*` with another pattern hung)', async () => {
  const root = tree({ 'package.json': pkg('root'), 'packages/a/package.json': pkg('a') })
  const start = Date.now()
  const projects = await findWorkspaceProjects(root, ['/*', `packages/${'['.repeat(30)}(`, 'packages/*'])
  assert.ok(Date.now() - start < 5000, `${Date.now() - start} ms`)
  assert.deepEqual(projects.map((project) => project.id), ['.', 'packages/a'])
})

test('fuzz finding: a pattern of hundreds of segments is refused before the glob follows a link back up the tree as deep (two minutes for 1000)', async () => {
  const root = tree({ 'package.json': pkg('root'), 'packages/a/package.json': pkg('a') })
  fs.symlinkSync(root, path.join(root, 'packages', 'loop'))
  const start = Date.now()
  await assert.rejects(findWorkspaceProjects(root, ['**/'.repeat(400) + '***/x', '!packages/b']), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_SETTING')
    assert.match(err.message, /more than 32 path segments/)
    return true
  })
  // 32 segments, through the link as deep: still quick.
  assert.deepEqual((await findWorkspaceProjects(root, ['**/'.repeat(31) + 'a'])).map((project) => project.id).slice(0, 1), ['.'])
  assert.ok(Date.now() - start < 2000, `${Date.now() - start} ms`)
})

test('fuzz finding: a negation above the root (`!/**`) no longer makes the glob walk the file system for the patterns inside it', async () => {
  const root = tree({ 'package.json': pkg('root'), 'packages/a/nested/b/package.json': pkg('b'), 'packages/c/package.json': pkg('c') })
  const start = Date.now()
  const projects = await findWorkspaceProjects(root, ['!/**', '[', 'packages/*/nested/*', '!packages/c', 'packages/*'])
  assert.ok(Date.now() - start < 5000, `${Date.now() - start} ms`)
  assert.deepEqual(projects.map((project) => project.id), ['.', 'packages/a/nested/b'])
})
