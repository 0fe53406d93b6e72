import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { fundingJson, fundingOf, fundingTree, normalizeFunding, renderFundingChoice, renderFundingTree } from '../src/index.js'
import type { FundingTree } from '../src/index.js'

test('normalizeFunding: a URL string, an object with its type, a list; nothing without a URL', () => {
  assert.deepEqual(normalizeFunding('https://x'), { url: 'https://x' })
  assert.deepEqual(normalizeFunding({ type: 'github', url: 'https://g', extra: 1 }), { type: 'github', url: 'https://g' })
  assert.deepEqual(normalizeFunding(['https://a', { url: 'https://b' }, { type: 'x' }, 3]), [{ url: 'https://a' }, { url: 'https://b' }])
  for (const none of [undefined, '', {}, [], [{ type: 'x' }], 42]) assert.equal(normalizeFunding(none), undefined)
})

const tree = (): FundingTree => ({
  name: 'app',
  version: '1.0.0',
  funding: undefined,
  dependencies: [
    { name: 'a', version: '1.0.0', funding: { url: 'https://shared' }, dependencies: [{ name: 'b', version: '2.0.0', funding: [{ type: 'github', url: 'https://b' }, { url: 'https://b2' }], dependencies: [] }] },
    { name: 'c', version: '3.0.0', funding: { url: 'https://shared' }, dependencies: [{ name: 'd', version: '4.0.0', funding: { url: 'https://d' }, dependencies: [] }] },
  ],
})

test('renderFundingTree: a node per first URL, later packages of a URL on its line (their own dependencies left out, as npm)', () => {
  assert.equal(renderFundingTree(tree()), 'app@1.0.0\n└─┬ https://shared\n  │ └── a@1.0.0, c@3.0.0\n  └── https://b\n      └── b@2.0.0')
})

test('fundingJson counts every funded package; fundingOf finds one at any depth; renderFundingChoice says one URL or lists them', () => {
  const json = JSON.parse(fundingJson(tree())) as { length: number, dependencies: Record<string, unknown> }
  assert.equal(json.length, 4)
  assert.deepEqual(Object.keys(json.dependencies), ['a', 'c'])
  assert.deepEqual(fundingOf(tree(), 'd'), [{ url: 'https://d' }])
  assert.throws(() => fundingOf(tree(), 'app'), { code: 'ERR_LODE_NO_FUNDING' })
  assert.deepEqual(renderFundingChoice('b', fundingOf(tree(), 'b'), 1), { text: 'github funding available at the following URL:\nhttps://b', url: 'https://b' })
  assert.equal(renderFundingChoice('b', fundingOf(tree(), 'b'), undefined).url, undefined)
  assert.match(renderFundingChoice('b', fundingOf(tree(), 'b'), 0).text, /^--which=0 is not a valid index\n1: github funding/)
})

test('fundingTree reads no package.json for a lockfile name that is no package name (a path out of node_modules)', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-fund-'))
  const project = path.join(root, 'project')
  fs.mkdirSync(project)
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }))
  fs.writeFileSync(path.join(project, 'pnpm-lock.yaml'), [
    "lockfileVersion: '9.0'",
    'importers:',
    '  .:',
    '    dependencies:',
    '      ../../../outside:',
    '        specifier: 1.0.0',
    '        version: 1.0.0',
    'packages:',
    '  ../../../outside@1.0.0:',
    '    resolution: {integrity: sha512-x}',
    'snapshots:',
    '  ../../../outside@1.0.0: {}',
    '',
  ].join('\n'))
  // What the name reaches when joined to its virtual store directory (node_modules/.pnpm/<dir>/node_modules/../../../outside).
  fs.mkdirSync(path.join(project, 'node_modules', 'outside'), { recursive: true })
  fs.writeFileSync(path.join(project, 'node_modules', 'outside', 'package.json'), JSON.stringify({ name: 'outside', funding: 'https://read-it' }))
  const tree = await fundingTree(project, project)
  assert.deepEqual(tree.dependencies, [])
})
