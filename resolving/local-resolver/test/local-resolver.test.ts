import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { buildPackageTarball, buildTarball } from '@lode/__utils__.test-fixtures'
import { packageJsonOfTarball, resolveLocal, resolveTarballUrl } from '@lode/resolving.local-resolver'

function project (): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-local-'))
  fs.mkdirSync(path.join(dir, 'pkg'))
  fs.writeFileSync(path.join(dir, 'pkg', 'package.json'), JSON.stringify({ name: 'real-name', version: '2.0.0', dependencies: { a: '^1.0.0' } }))
  return dir
}

test('file: to a directory reads its manifest; link: and bare paths are links, a missing one only warns', async () => {
  const dir = project()
  const warnings: string[] = []
  const opts = { baseDir: dir, lockfileDir: dir, wantedBy: 'package.json', onWarning: (m: string) => { warnings.push(m) } }
  const pkg = await resolveLocal('alias', { protocol: 'file', path: './pkg/' }, opts)
  assert.equal(pkg.kind, 'package')
  assert.ok(pkg.kind === 'package')
  assert.equal(pkg.id, 'real-name@file:pkg')
  assert.deepEqual(pkg.resolution, { directory: 'pkg', type: 'directory' })
  assert.deepEqual(pkg.meta.dependencies, { a: '^1.0.0' })
  assert.deepEqual(await resolveLocal('x', { protocol: 'path', path: './pkg' }, opts), { kind: 'link', ref: 'link:pkg' })
  assert.deepEqual(await resolveLocal('x', { protocol: 'link', path: '../elsewhere' }, opts), { kind: 'link', ref: 'link:../elsewhere' })
  assert.equal(warnings.length, 1)
  assert.match(warnings[0]!, /non-existent directory: .*elsewhere/)
})

test('a tarball file gets the integrity of its bytes; bad input is a clear error', async () => {
  const dir = project()
  const { tarball, integrity } = await buildPackageTarball({ name: 't', version: '1.0.0' })
  fs.writeFileSync(path.join(dir, 't.tgz'), tarball)
  fs.writeFileSync(path.join(dir, 'bad.tgz'), 'not a tarball')
  const opts = { baseDir: dir, lockfileDir: dir, wantedBy: 'package.json', onWarning: () => {} }
  const pkg = await resolveLocal('t', { protocol: 'file', path: 't.tgz' }, opts)
  assert.ok(pkg.kind === 'package')
  assert.deepEqual(pkg.resolution, { integrity, tarball: 'file:t.tgz' })
  await assert.rejects(resolveLocal('t', { protocol: 'file', path: 'bad.tgz' }, opts), { code: 'ERR_LODE_TARBALL_NOT_TAR' })
  fs.writeFileSync(path.join(dir, 'cut.tgz'), tarball.subarray(0, 20))
  await assert.rejects(resolveLocal('t', { protocol: 'file', path: 'cut.tgz' }, opts), { code: 'ERR_LODE_TARBALL_NOT_GZIP', message: /cut\.tgz/ })
  fs.writeFileSync(path.join(dir, 'empty.tgz'), (await buildTarball([{ name: 'package/index.js', content: '' }])).tarball)
  await assert.rejects(resolveLocal('t', { protocol: 'file', path: 'empty.tgz' }, opts), { code: 'ERR_LODE_TARBALL_BAD_MANIFEST', message: /no package\.json/ })
  await assert.rejects(resolveLocal('t', { protocol: 'file', path: 'missing.tgz' }, opts), { code: 'ERR_LODE_LINKED_PKG_DIR_NOT_FOUND', message: /missing\.tgz/ })
  await assert.rejects(resolveLocal('d', { protocol: 'file', path: 'no-dir' }, opts), { code: 'ERR_LODE_LINKED_PKG_DIR_NOT_FOUND', message: /no-dir/ })
  const url = await resolveTarballUrl('http://HOST.example/./t.tgz', async () => await Promise.resolve(tarball))
  assert.ok(url.kind === 'package')
  assert.equal(url.id, 't@http://host.example/t.tgz')
})

test('packageJsonOfTarball reads package.json from a directory below the top one, whatever that is called', async () => {
  const { tarball } = await buildTarball([
    { name: 'repo-0123abc/package.json', content: '{"name":"root"}' },
    { name: 'repo-0123abc/packages/a/package.json', content: '{"name":"a"}' },
    { name: 'repo-0123abc/packages/b/index.js', content: '' },
  ])
  assert.equal(await packageJsonOfTarball(tarball, 'archive'), '{"name":"root"}')
  assert.equal(await packageJsonOfTarball(tarball, 'archive', 'packages/a'), '{"name":"a"}')
  assert.equal(await packageJsonOfTarball(tarball, 'archive', 'packages/b'), undefined)
  await assert.rejects(packageJsonOfTarball(Buffer.from([0x1f, 0x8b, 1, 2]), 'archive'), { code: 'ERR_LODE_TARBALL_NOT_GZIP', message: /archive/ })
})
