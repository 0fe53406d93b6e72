import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { ProjectSnapshot } from '@lode/pkg-manager.lockfile.format'

import { stalePeerPins } from '../src/stale-peer-pins.js'
import type { ProjectManifest } from '../src/types.js'

const manifest = (fields: Partial<ProjectManifest>): ProjectManifest => ({ name: 'p', version: '1.0.0', ...fields })
const locked = (deps: Record<string, string>): ProjectSnapshot =>
  ({ dependencies: Object.fromEntries(Object.entries(deps).map(([alias, version]) => [alias, { specifier: '*', version }])) })

test('stalePeerPins: an own auto-installed peer whose locked version a project\'s range in its range does not meet is released, with the versions projects name', () => {
  const pins = stalePeerPins([
    { manifest: manifest({ dependencies: { bar: '1.0.0' } }), locked: locked({ bar: '1.0.0' }) },
    { manifest: manifest({ peerDependencies: { bar: '*', baz: '^1.0.0' } }), locked: locked({ bar: '1.0.0(x@1.0.0)', baz: '1.0.0' }) },
    { manifest: manifest({ devDependencies: { bar: 'catalog:' } }), locked: undefined },
  ], { default: { bar: '1.1.0' } })
  assert.deepEqual(pins.map((byAlias) => Object.fromEntries([...byAlias].map(([alias, versions]) => [alias, [...versions].sort()]))), [
    {},
    { bar: ['1.0.0', '1.1.0'] },
    {},
  ])
})

test('stalePeerPins: kept where every overlapping range takes the locked version, where a project lists the peer itself, where it is not locked, or no project has peers', () => {
  const none = (importers: Parameters<typeof stalePeerPins>[0]): void => {
    assert.deepEqual(stalePeerPins(importers, undefined).map((byAlias) => byAlias.size), importers.map(() => 0))
  }
  // ^1.0.0 takes 1.0.0; 2.0.0 is outside the peer's range.
  none([
    { manifest: manifest({ dependencies: { bar: '^1.0.0' } }), locked: undefined },
    { manifest: manifest({ devDependencies: { bar: '2.0.0' } }), locked: undefined },
    { manifest: manifest({ peerDependencies: { bar: '^1.0.0' } }), locked: locked({ bar: '1.0.0' }) },
  ])
  // Listed as a dependency too, not locked, or a peer range that is no semver range.
  none([
    { manifest: manifest({ dependencies: { bar: '1.1.0' } }), locked: undefined },
    { manifest: manifest({ peerDependencies: { bar: '*' }, devDependencies: { bar: '1.0.0' } }), locked: locked({ bar: '1.0.0' }) },
    { manifest: manifest({ peerDependencies: { bar: '*', qux: 'workspace:*' } }), locked: locked({ qux: 'link:../qux' }) },
  ])
  none([
    { manifest: manifest({ dependencies: { bar: '1.1.0' } }), locked: locked({ bar: '1.1.0' }) },
  ])
})

test('stalePeerPins: the specs package.json had before the command\'s edit count, not the edit (an update\'s new spec, an added dependency)', () => {
  const peer = { manifest: manifest({ peerDependencies: { bar: '^1' } }), locked: locked({ bar: '1.0.0' }) }
  // `update bar@1.3.0` at the root over `bar: 1.0.0`, and `add bar@1.1.0` in another project.
  const pins = stalePeerPins([
    { manifest: manifest({ devDependencies: { bar: '1.3.0' } }), replacedSpecs: { bar: '1.0.0' }, locked: locked({ bar: '1.0.0' }) },
    { manifest: manifest({ dependencies: { bar: '1.1.0' } }), addedAliases: ['bar'], locked: undefined },
    peer,
  ], undefined)
  assert.deepEqual(pins.map((byAlias) => byAlias.size), [0, 0, 0])
  // Without the edit, the root's 1.3.0 leaves the peer's lock stale.
  const stale = stalePeerPins([{ manifest: manifest({ devDependencies: { bar: '1.3.0' } }), locked: undefined }, peer], undefined)
  assert.deepEqual([...stale[1]!.get('bar')!].sort(), ['1.0.0', '1.3.0'])
})
