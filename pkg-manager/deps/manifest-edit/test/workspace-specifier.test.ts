import assert from 'node:assert/strict'
import { test } from 'node:test'

import { workspaceSpecifier } from '../src/workspace-specifier.js'
import type { SaveWorkspaceProtocol } from '../src/workspace-specifier.js'

const saved = (
  bareSpecifier: string | undefined,
  saveWorkspaceProtocol: SaveWorkspaceProtocol,
  more: { prevSpecifier?: string, version?: string | undefined, alias?: string, savePrefix?: string } = {}
): string =>
  workspaceSpecifier(
    { alias: more.alias ?? 'lib', name: 'lib', version: 'version' in more ? more.version : '1.2.3', bareSpecifier, prevSpecifier: more.prevSpecifier },
    { saveWorkspaceProtocol, savePrefix: more.savePrefix ?? '^' }
  )

test('rolling (the default): workspace:^, ~ or * after what the range asked for pins', () => {
  assert.equal(saved(undefined, 'rolling'), 'workspace:^')
  assert.equal(saved('workspace:*', 'rolling'), 'workspace:*')
  assert.equal(saved('workspace:~1', 'rolling'), 'workspace:~')
  assert.equal(saved('^1.0.0', 'rolling'), 'workspace:^')
  assert.equal(saved('1.2.3', 'rolling'), 'workspace:*')
  // What package.json had before decides first.
  assert.equal(saved('^1.0.0', 'rolling', { prevSpecifier: 'workspace:~' }), 'workspace:~')
  // A project without a version can only be rolling.
  assert.equal(saved(undefined, true, { version: undefined }), 'workspace:^')
})

test('true pins the project\'s version; false saves a plain range unless a workspace: spec was asked for', () => {
  assert.equal(saved(undefined, true), 'workspace:^1.2.3')
  assert.equal(saved('workspace:*', true), 'workspace:^1.2.3')
  assert.equal(saved('workspace:~1', true), 'workspace:~1.2.3')
  assert.equal(saved('1.2.3', true), 'workspace:1.2.3')
  assert.equal(saved(undefined, false), '^1.2.3')
  assert.equal(saved('~1', false), '~1.2.3')
  assert.equal(saved(undefined, false, { savePrefix: '~' }), '~1.2.3')
  assert.equal(saved('workspace:^', false), 'workspace:^1.2.3')
  // Under another name.
  assert.equal(saved(undefined, false, { alias: 'my-lib' }), 'npm:lib@^1.2.3')
  assert.equal(saved(undefined, 'rolling', { alias: 'my-lib' }), 'workspace:lib@^')
  // A prerelease keeps only the style written before.
  assert.equal(saved(undefined, true, { version: '2.0.0-beta.1' }), 'workspace:2.0.0-beta.1')
})

test('update rolls each workspace: range as pnpm 11 does; `^`, `~` or `x` alone pin nothing, so the pinned forms take savePrefix', () => {
  const rolled = (spec: string, protocol: SaveWorkspaceProtocol, savePrefix = '^'): string =>
    saved(spec, protocol, { prevSpecifier: spec, version: '2.0.0', savePrefix })
  const specs = ['workspace:1.0.0', 'workspace:~1.0.0', 'workspace:^1.0.0', 'workspace:1', 'workspace:1.0', 'workspace:*', 'workspace:^', 'workspace:~']
  assert.deepEqual(specs.map((spec) => rolled(spec, 'rolling')),
    ['workspace:*', 'workspace:~', 'workspace:^', 'workspace:^', 'workspace:~', 'workspace:*', 'workspace:^', 'workspace:~'])
  assert.deepEqual(specs.map((spec) => rolled(spec, true)),
    ['workspace:2.0.0', 'workspace:~2.0.0', 'workspace:^2.0.0', 'workspace:^2.0.0', 'workspace:~2.0.0', 'workspace:^2.0.0', 'workspace:^2.0.0', 'workspace:^2.0.0'])
  assert.equal(rolled('workspace:~', false, '~'), 'workspace:~2.0.0')
  assert.equal(rolled('workspace:x', true), 'workspace:^2.0.0')
  assert.equal(rolled('workspace:1.x', true), 'workspace:~2.0.0')
})
