import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { createCasWriter } from '@lode/store.cafs'
import { StoreIndex, createPackageFilesIndex, storeIndexKey } from '@lode/store.index'

import type { Component } from '../src/components.js'
import { storeDetails } from '../src/store-details.js'

const component = (name: string, integrity: string | undefined): Component => ({ name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0`, devOnly: false, depPath: `${name}@1.0.0`, integrity })

test('storeDetails: package.json and the license file read by the store\'s index row; a row naming no hex digest, or no row, leaves the component as it was', async () => {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-sbom-store-'))
  const cas = createCasWriter(storeDir, { now: Date.now })
  const index = new StoreIndex(storeDir)
  const manifest = cas.addFile(Buffer.from(JSON.stringify({ name: 'a', version: '1.0.0', description: 'A', author: 'Ann <ann@example.com>', license: 'SEE LICENSE IN LICENSE', repository: 'github:ann/a' })), 0o644)
  const license = cas.addFile(Buffer.from('The MIT License'), 0o644)
  index.queueWrite(storeIndexKey('sha512-a', 'a@1.0.0'), createPackageFilesIndex(new Map([['package.json', manifest], ['LICENSE', license]]), { name: 'a', version: '1.0.0' }))
  // A crafted row whose "digest" walks out of the store to a package.json beside it.
  const outside = `outside-${path.basename(storeDir)}.json`
  fs.writeFileSync(path.join(path.dirname(storeDir), outside), JSON.stringify({ name: 'crafted', description: 'read from outside the store' }))
  index.queueWrite(storeIndexKey('sha512-crafted', 'crafted@1.0.0'), createPackageFilesIndex(new Map([['package.json', { ...manifest, digest: `../../../${outside}` }]]), { name: 'crafted', version: '1.0.0' }))
  index.flush()
  index.close()

  const [a, crafted, missing, noIntegrity] = await storeDetails(storeDir, [component('a', 'sha512-a'), component('crafted', 'sha512-crafted'), component('missing', 'sha512-m'), component('git', undefined)])
  assert.deepEqual({ ...a, name: a!.name }, {
    ...component('a', 'sha512-a'),
    license: 'MIT',
    description: 'A',
    author: 'Ann',
    homepage: 'https://github.com/ann/a#readme',
    repository: 'git+https://github.com/ann/a.git',
    bugsUrl: 'https://github.com/ann/a/issues',
  })
  assert.deepEqual(crafted, component('crafted', 'sha512-crafted'))
  assert.deepEqual(missing, component('missing', 'sha512-m'))
  assert.deepEqual(noIntegrity, component('git', undefined))
})
