import assert from 'node:assert/strict'
import { test } from 'node:test'

import { renderPeerIssues } from '../src/index.js'
import type { ProjectPeerIssues } from '../src/index.js'

const issues = (): ProjectPeerIssues => ({
  bad: {
    a: [
      { parents: [{ name: 'y', version: '1.0.0' }], optional: false, wantedRange: '^2.0.0', foundVersion: '1.0.0', resolvedFrom: [] },
      { parents: [{ name: 'z', version: '3.0.0' }], optional: false, wantedRange: '>=2 <3', foundVersion: '1.0.0', resolvedFrom: [] },
      { parents: [{ name: 'w', version: '1.0.0' }], optional: false, wantedRange: '^3.0.0', foundVersion: '2.0.0', resolvedFrom: [] },
    ],
  },
  missing: {
    m: [{ parents: [{ name: 'x', version: '1.0.0' }], optional: false, wantedRange: '*' }],
    n: [{ parents: [{ name: 'x', version: '1.0.0' }], optional: false, wantedRange: '^1' }, { parents: [{ name: 'v', version: '1.0.0' }], optional: false, wantedRange: '^2' }],
  },
  conflicts: ['n'],
  intersections: { m: '*' },
})

test('renderPeerIssues: unmet peers by the version found, ranges quoted when they have a space or are *, missing then conflicting', () => {
  assert.equal(renderPeerIssues({ '.': issues() }), [
    '✕ unmet peer a\n  Installed: 1.0.0\n  Wanted:\n    ^2.0.0:\n      y@1.0.0\n    ">=2 <3":\n      z@3.0.0',
    '✕ unmet peer a\n  Installed: 2.0.0\n  Wanted:\n    ^3.0.0:\n      w@1.0.0',
    '✕ missing peer m\n  Wanted:\n    "*":\n      x@1.0.0',
    '✕ conflicting peer n\n  Wanted:\n    ^1:\n      x@1.0.0\n    ^2:\n      v@1.0.0',
  ].join('\n\n'))
})

test('renderPeerIssues in a workspace: each project with issues under its id, in id order, indented', () => {
  const empty: ProjectPeerIssues = { bad: {}, missing: {}, conflicts: [], intersections: {} }
  const one: ProjectPeerIssues = { ...empty, missing: { m: [{ parents: [{ name: 'x', version: '1.0.0' }], optional: false, wantedRange: '^1' }] }, intersections: { m: '^1' } }
  assert.equal(renderPeerIssues({ 'packages/b': one, '.': empty, 'packages/a': one }), [
    'packages/a\n  ✕ missing peer m\n    Wanted:\n      ^1:\n        x@1.0.0',
    'packages/b\n  ✕ missing peer m\n    Wanted:\n      ^1:\n        x@1.0.0',
  ].join('\n\n'))
})
