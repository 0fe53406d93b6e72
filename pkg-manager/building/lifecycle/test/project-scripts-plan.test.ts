import assert from 'node:assert/strict'
import { test } from 'node:test'

import { projectScriptsPlan } from '../src/project-scripts-plan.js'
import type { ProjectMutation } from '../src/project-scripts-plan.js'

const ALL = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare']
const BUILD = ['preinstall', 'install', 'postinstall']

/** Who runs what, as `id: events` (the root's preinstall marked `root:preinstall` when it runs first). */
function plan (
  ids: string[],
  mutations: Record<string, ProjectMutation>,
  more: { selected?: string[], prepare?: boolean, injected?: string[] } = {}
): string[] {
  const result = projectScriptsPlan({
    projects: ids.map((id) => ({ id })),
    selected: more.selected === undefined ? undefined : new Set(more.selected),
    mutations: new Map(Object.entries(mutations)),
    workspace: ids.length > 1,
    prepare: more.prepare ?? true,
    injected: more.injected === undefined ? undefined : new Set(more.injected),
  })
  const runs = result.runs.map(({ project, events }) =>
    `${project.id}: ${events.join(',') === ALL.slice(1).join(',') || events.join(',') === ALL.join(',') ? 'all' : events.join(',') === BUILD.join(',') ? 'build' : events.join(',')}`)
  return result.rootPreinstall ? ['root:preinstall', ...runs] : runs
}

test('a plain install runs every selected project\'s scripts; prepare only with dev dependencies', () => {
  assert.deepEqual(plan(['.'], {}), ['root:preinstall', '.: all'])
  assert.deepEqual(plan(['.', 'a', 'b'], {}, { selected: ['.', 'a'] }), ['root:preinstall', '.: all', 'a: all'])
  assert.deepEqual(plan(['.'], {}, { prepare: false }), ['root:preinstall', '.: install,postinstall'])
})

test('alone: only a bare update runs them; add, named updates and remove do not', () => {
  assert.deepEqual(plan(['.'], { '.': 'install' }), ['root:preinstall', '.: all'])
  assert.deepEqual(plan(['.'], { '.': 'some' }), [])
  assert.deepEqual(plan(['.'], { '.': 'remove' }), [])
})

test('in a workspace: the root as a whole when a command changes others; the only project changed is rebuilt where there are several', () => {
  assert.deepEqual(plan(['.', 'a', 'b'], { a: 'some' }), ['root:preinstall', '.: all', 'a: build'])
  assert.deepEqual(plan(['.', 'a', 'b'], { a: 'install' }), ['root:preinstall', '.: all', 'a: all'])
  assert.deepEqual(plan(['.', 'a'], { a: 'some' }), ['root:preinstall', '.: all'])
  assert.deepEqual(plan(['.', 'a', 'b'], { '.': 'some' }), ['.: build'])
  assert.deepEqual(plan(['.', 'a', 'b'], { '.': 'some', a: 'some', b: 'some' }), [])
  assert.deepEqual(plan(['.', 'a', 'b'], { '.': 'install', a: 'install', b: 'install' }), ['root:preinstall', '.: all', 'a: all', 'b: all'])
  assert.deepEqual(plan(['.', 'a', 'b'], { a: 'remove' }), [])
})

test('a project injected somewhere runs prepare and prepublishOnly (what builds its copies\' files), not preprepare or postprepare', () => {
  assert.deepEqual(plan(['.', 'a', 'b'], {}, { injected: ['a'] }), ['root:preinstall', '.: all', 'a: preinstall,install,postinstall,prepare,prepublishOnly', 'b: all'])
  assert.deepEqual(plan(['.', 'a', 'b'], {}, { injected: ['a'], prepare: false }), ['root:preinstall', '.: install,postinstall', 'a: build', 'b: build'])
})
