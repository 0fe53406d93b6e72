import assert from 'node:assert/strict'
import { test } from 'node:test'

import { patchTarget } from '../src/patch-target.js'
import type { InstalledPackage, VersionOption } from '../src/patch-target.js'

const HI_ARCHIVE = `https://codeload.github.com/acme/hi/tar.gz/${'a'.repeat(40)}`
const INSTALLED: InstalledPackage[] = [
  { pkgId: 'hi@0.0.0', version: '0.0.0' },
  { pkgId: `hi@${HI_ARCHIVE}`, version: '1.0.0', gitTarballUrl: HI_ARCHIVE },
  { pkgId: 'is-positive@1.0.0', version: '1.0.0' },
  { pkgId: 'is-positive@2.0.0', version: '2.0.0' },
  { pkgId: 'tarball@https://example.invalid/t.tgz', version: undefined },
]

test('patchTarget: one installed version is patched for every version unless a version is asked for', async () => {
  const only = INSTALLED.filter(({ pkgId }) => pkgId !== 'is-positive@2.0.0')
  assert.deepEqual(await patchTarget('is-positive', '/p', only), {
    name: 'is-positive', version: '1.0.0', pkgId: 'is-positive@1.0.0', applyToAll: true, editDirName: 'is-positive@1.0.0',
  })
  assert.equal((await patchTarget('is-positive@^1', '/p', INSTALLED))?.applyToAll, false)
})

test('patchTarget: several versions are asked about, a git-hosted one by its archive URL; without a question they are named', async () => {
  let offered: VersionOption[] = []
  const target = await patchTarget('hi', '/p', INSTALLED, async (options) => {
    offered = options
    return await Promise.resolve({ version: HI_ARCHIVE, applyToAll: false })
  })
  assert.deepEqual(offered, [{ name: '0.0.0', value: '0.0.0' }, { name: '1.0.0', value: HI_ARCHIVE, description: 'Git Hosted' }])
  assert.deepEqual(target, {
    name: 'hi', version: '1.0.0', pkgId: `hi@${HI_ARCHIVE}`, applyToAll: false, editDirName: `hi@https+codeload.github.com+acme+hi+tar.gz+${'a'.repeat(40)}`,
  })
  assert.equal(await patchTarget('hi', '/p', INSTALLED, async () => await Promise.resolve(undefined)), undefined, 'cancelled')
  await assert.rejects(patchTarget('is-positive', '/p', INSTALLED), /ERR_LODE_PATCH_VERSION_AMBIGUOUS|is installed at 2 versions: 1\.0\.0, 2\.0\.0/)
})

test('patchTarget: a git-hosted package alone is patched for its version only; a version not installed lists those that are', async () => {
  const git = INSTALLED.filter(({ pkgId }) => pkgId !== 'hi@0.0.0')
  assert.equal((await patchTarget('hi', '/p', git))?.applyToAll, false)
  await assert.rejects(patchTarget('is-positive@3', '/p', INSTALLED), { message: 'Can not find is-positive@3 in project /p, you can specify currently installed version: 1.0.0, 2.0.0.' })
  await assert.rejects(patchTarget('missing', '/p', INSTALLED), { message: 'Can not find missing in project /p, did you forget to install missing?' })
})
