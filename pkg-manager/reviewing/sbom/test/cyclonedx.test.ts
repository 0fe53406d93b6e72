/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- the documents are checked as the JSON they are */
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { cycloneDx } from '../src/cyclonedx.js'
import type { SbomGraph } from '../src/document.js'
import { spdx } from '../src/spdx.js'

const graph: SbomGraph = {
  root: { name: '@team/app', version: '1.0.0', purl: 'pkg:npm/%40team/app@1.0.0', type: 'application', license: 'MIT', repository: 'git+https://example.test/app.git' },
  components: [
    { name: 'a', version: '1.0.0', purl: 'pkg:npm/a@1.0.0', devOnly: false, depPath: 'a@1.0.0', integrity: `sha512-${Buffer.from('digest').toString('base64')}`, tarballUrl: 'https://r.test/a.tgz', license: 'ISC', author: 'Ann', homepage: 'https://a.test' },
    { name: '@s/dev', version: '2.0.0', purl: 'pkg:npm/%40s/dev@2.0.0', devOnly: true, depPath: '@s/dev@2.0.0' },
  ],
  relationships: [{ from: 'pkg:npm/%40team/app@1.0.0', to: 'pkg:npm/a@1.0.0' }, { from: 'pkg:npm/a@1.0.0', to: 'pkg:npm/%40s/dev@2.0.0' }],
}

test('cycloneDx: pnpm 11\'s fields in its order, the development-only scope, hashes in hex, dependencies of each', () => {
  const bom = JSON.parse(cycloneDx(graph, { specVersion: '1.6', tool: { name: 'lode', version: '9.9.9' }, lockfileOnly: true, authors: ['Ann'], supplier: 'Team', compact: true })) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- a document read back
  assert.equal(bom['$schema'], 'http://cyclonedx.org/schema/bom-1.6.schema.json')
  assert.deepEqual(bom['metadata'].lifecycles, [{ phase: 'pre-build' }])
  assert.deepEqual(bom['metadata'].component, {
    type: 'application', name: 'app', version: '1.0.0', purl: 'pkg:npm/%40team/app@1.0.0', 'bom-ref': 'pkg:npm/%40team/app@1.0.0', group: '@team',
    licenses: [{ license: { id: 'MIT' } }], externalReferences: [{ type: 'vcs', url: 'git+https://example.test/app.git' }],
  })
  assert.deepEqual(bom['metadata'].authors, [{ name: 'Ann' }])
  assert.deepEqual(bom['metadata'].supplier, { name: 'Team' })
  assert.deepEqual(Object.keys(bom['components'][0]), ['type', 'name', 'version', 'purl', 'bom-ref', 'authors', 'licenses', 'externalReferences'])
  assert.deepEqual(bom['components'][0].externalReferences[0], { type: 'distribution', url: 'https://r.test/a.tgz', hashes: [{ alg: 'SHA-512', content: Buffer.from('digest').toString('hex') }] })
  assert.deepEqual(bom['components'][1].scope, 'excluded')
  assert.deepEqual(bom['components'][1].properties, [{ name: 'cdx:npm:package:development', value: 'true' }])
  assert.deepEqual(bom['dependencies'], [
    { ref: 'pkg:npm/%40team/app@1.0.0', dependsOn: ['pkg:npm/a@1.0.0'] },
    { ref: 'pkg:npm/a@1.0.0', dependsOn: ['pkg:npm/%40s/dev@2.0.0'] },
    { ref: 'pkg:npm/%40s/dev@2.0.0', dependsOn: [] },
  ])
})

test('spdx: the root package, each package by index, checksums and DEPENDS_ON relationships', () => {
  const doc = JSON.parse(spdx(graph, { tool: 'lode', compact: false })) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- a document read back
  assert.equal(doc['spdxVersion'], 'SPDX-2.3')
  assert.deepEqual(doc['creationInfo'].creators, ['Tool: lode'])
  assert.match(doc['creationInfo'].created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  assert.deepEqual(doc['packages'].map((pkg: { SPDXID: string }) => pkg.SPDXID), ['SPDXRef-RootPackage', 'SPDXRef-Package-a-1.0.0-0', 'SPDXRef-Package--s-dev-2.0.0-1'])
  assert.equal(doc['packages'][0].primaryPackagePurpose, 'APPLICATION')
  assert.equal(doc['packages'][0].homepage, 'git+https://example.test/app.git')
  assert.deepEqual(doc['packages'][1].checksums, [{ algorithm: 'SHA512', checksumValue: Buffer.from('digest').toString('hex') }])
  assert.equal(doc['packages'][1].supplier, 'Person: Ann')
  assert.equal(doc['packages'][2].licenseDeclared, 'NOASSERTION')
  assert.deepEqual(doc['relationships'].map((rel: { relationshipType: string }) => rel.relationshipType), ['DESCRIBES', 'DEPENDS_ON', 'DEPENDS_ON'])
})
