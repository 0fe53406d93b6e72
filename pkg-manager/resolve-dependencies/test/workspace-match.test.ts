import assert from 'node:assert/strict'
import { test } from 'node:test'

import { linkableFromWorkspace, workspaceMatch } from '../src/workspace-match.js'

const PROJECTS = [
  { name: 'lib', version: '1.2.0', dir: '/w/lib' },
  { name: 'lib', version: '2.0.0-rc.1', dir: '/w/lib-next' },
  { name: 'tool', version: '3.0.0', dir: '/w/tool' },
  { name: undefined, version: undefined, dir: '/w/nameless' },
]

test('workspaceMatch: the highest project version a range takes; `*`, `^`, `~` and tags any, prereleases too', () => {
  assert.equal(workspaceMatch({ type: 'range', name: 'lib', range: '^1.0.0' }, PROJECTS)?.dir, '/w/lib')
  assert.equal(workspaceMatch({ type: 'range', name: 'lib', range: '*' }, PROJECTS)?.dir, '/w/lib-next')
  assert.equal(workspaceMatch({ type: 'tag', name: 'lib', tag: 'latest' }, PROJECTS)?.dir, '/w/lib-next')
  assert.equal(workspaceMatch({ type: 'version', name: 'tool', version: '3.0.0' }, PROJECTS)?.dir, '/w/tool')
  assert.equal(workspaceMatch({ type: 'version', name: 'tool', version: '1.0.0' }, PROJECTS), undefined)
  assert.equal(workspaceMatch({ type: 'range', name: 'other', range: '*' }, PROJECTS), undefined)
})

test('linkableFromWorkspace: a plain version or range, or an npm: alias of one, a project fits; not a tag, a path or workspace:', () => {
  assert.equal(linkableFromWorkspace('lib', '^1.0.0', PROJECTS), true)
  assert.equal(linkableFromWorkspace('alias', 'npm:tool@3.0.0', PROJECTS), true)
  assert.equal(linkableFromWorkspace('tool', '2.0.0', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', 'latest', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', 'workspace:*', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', 'file:../tool', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', 'not a spec\u0000', PROJECTS), false)
})
