import assert from 'node:assert/strict'
import { test } from 'node:test'

import { walkDependencies } from '../src/index.js'

test('walkDependencies: depth first in the order given, each visit told the package it was reached from; link: references not followed', () => {
  const below: Record<string, Record<string, string>> = {
    'a@1.0.0': { b: '1.0.0', local: 'link:../local' },
    'b@1.0.0': { c: '1.0.0' },
    'c@1.0.0': {},
    'd@1.0.0': { c: '1.0.0' },
  }
  const visits: Array<[string, string | undefined]> = []
  walkDependencies({ a: '1.0.0', d: '1.0.0', self: 'link:.' }, {
    visit: (depPath, parent) => {
      visits.push([depPath, parent])
      return below[depPath]
    },
  })
  assert.deepEqual(visits, [
    ['a@1.0.0', undefined],
    ['b@1.0.0', 'a@1.0.0'],
    ['c@1.0.0', 'b@1.0.0'],
    ['d@1.0.0', undefined],
    ['c@1.0.0', 'd@1.0.0'],
  ])
})
