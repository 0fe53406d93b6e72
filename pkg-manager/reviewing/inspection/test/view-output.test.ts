import assert from 'node:assert/strict'
import { test } from 'node:test'

import { renderView } from '../src/index.js'

const NOW = Date.parse('2026-06-01T00:00:00.000Z')

const INFO = {
  name: '@scope/tool', version: '1.2.0', license: 'MIT', description: 'Does things', homepage: 'https://tool.example.test',
  bin: './cli.js', dist: { tarball: 'https://registry.example.test/t.tgz', integrity: 'sha512-x', unpackedSize: 123_456 },
  dependencies: { a: '^1.0.0', b: '2' }, maintainers: [{ name: 'ann', email: 'ann@example.test' }, { name: 'bo' }],
  versions: ['1.0.0', '1.2.0'], versionsCount: 2, depsCount: 2, distTags: { latest: '1.2.0' }, time: { '1.2.0': '2026-05-30T12:00:00.000Z' },
}

test('renderView sums a version up in pnpm\'s sections: sizes in decimal units, the time ago, the first maintainer et al.', () => {
  assert.equal(renderView(INFO, [], { json: false, now: NOW }), [
    '@scope/tool@1.2.0 | MIT | deps: 2 | versions: 2', 'Does things', 'https://tool.example.test',
    '', 'bin: tool',
    '', 'dist', '.tarball: https://registry.example.test/t.tgz', '.integrity: sha512-x', '.unpackedSize: 123.46 kB',
    '', 'dependencies:', 'a: ^1.0.0, b: 2',
    '', 'maintainers:', '- ann <ann@example.test>', '- bo',
    '', 'dist-tags:', 'latest: 1.2.0',
    '', 'published 1 day ago by ann <ann@example.test> et al.',
  ].join('\n'))
})

test('renderView prints fields: one as its value, several as assignments, own members only, or JSON', () => {
  assert.equal(renderView(INFO, ['version'], { json: false, now: NOW }), '1.2.0')
  assert.equal(renderView(INFO, ['versions'], { json: false, now: NOW }), '[\n  "1.0.0",\n  "1.2.0"\n]')
  assert.equal(renderView(INFO, ['dist.integrity', 'depsCount', 'dist', 'constructor', '__proto__.x'], { json: false, now: NOW }),
    `dist.integrity = 'sha512-x'\ndepsCount = 2\ndist = ${JSON.stringify(INFO.dist)}\nconstructor = \n__proto__.x = `)
  assert.equal(renderView(INFO, ['version', 'license'], { json: true, now: NOW }), '{\n  "version": "1.2.0",\n  "license": "MIT"\n}')
})
