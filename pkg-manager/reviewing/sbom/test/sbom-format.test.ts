import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { sbomOutPath, writeSbomFiles } from '../src/sbom-files.js'
import { sbomFormatOf } from '../src/sbom-format.js'

test('sbomFormatOf: the defaults, and pnpm 11\'s refusals', () => {
  assert.deepEqual(sbomFormatOf({ format: 'CycloneDX' }), { format: 'cyclonedx', type: 'library', specVersion: '1.7', authors: [], supplier: undefined })
  assert.deepEqual(sbomFormatOf({ format: 'cyclonedx', specVersion: ' 1.5 ', authors: 'Ann, ,Bo', type: 'application' }).authors, ['Ann', 'Bo'])
  assert.throws(() => sbomFormatOf({}), { code: 'ERR_LODE_SBOM_NO_FORMAT' })
  assert.throws(() => sbomFormatOf({ format: 'xml' }), { code: 'ERR_LODE_SBOM_INVALID_FORMAT' })
  assert.throws(() => sbomFormatOf({ format: 'spdx', specVersion: '1.6' }), { code: 'ERR_LODE_SBOM_SPEC_VERSION_UNSUPPORTED_FORMAT' })
  assert.throws(() => sbomFormatOf({ format: 'cyclonedx', specVersion: '1.4' }), { code: 'ERR_LODE_SBOM_INVALID_SPEC_VERSION' })
  assert.throws(() => sbomFormatOf({ format: 'cyclonedx', type: 'framework' }), { code: 'ERR_LODE_SBOM_INVALID_TYPE' })
})

test('sbomOutPath and writeSbomFiles: safe names, all files or none', async () => {
  assert.equal(sbomOutPath('out/%s-%v.json', '@scope/a', '1.0.0'), 'out/scope-a-1.0.0.json')
  assert.equal(sbomOutPath('%s.json', '..', '1'), '-.json')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-sbom-'))
  const files = await writeSbomFiles([{ name: 'a', version: '1.0.0', text: 'A' }, { name: 'b', version: '2.0.0', text: 'B' }], 'out/%s.json', dir)
  assert.deepEqual(files, ['out/a.json', 'out/b.json'])
  assert.equal(fs.readFileSync(path.join(dir, 'out', 'b.json'), 'utf8'), 'B')
  fs.mkdirSync(path.join(dir, 'blocked', 'b.json'), { recursive: true })
  await assert.rejects(writeSbomFiles([{ name: 'a', version: '1.0.0', text: 'A' }, { name: 'b', version: '2.0.0', text: 'B' }], 'blocked/%s.json', dir), { code: 'ERR_LODE_SBOM_OUT_IS_DIRECTORY' })
  assert.deepEqual(fs.readdirSync(path.join(dir, 'blocked')), ['b.json'])
  await assert.rejects(writeSbomFiles([{ name: 'a', version: '1.0.0', text: 'A' }, { name: 'a', version: '2.0.0', text: 'B' }], 'same/%s.json', dir), { code: 'ERR_LODE_SBOM_OUT_PATH_COLLISION' })
  assert.equal(fs.existsSync(path.join(dir, 'same')), false)
})
