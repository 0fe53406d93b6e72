import assert from 'node:assert/strict'
import { test } from 'node:test'

import { workspaceCycles } from '../src/cycles.js'

const project = (id: string, dependencies: Record<string, string> = {}, devDependencies: Record<string, string> = {}) =>
  ({ id, dir: `/w/${id}`, manifest: { name: id, version: '1.0.0', dependencies, devDependencies } })

test('each group of projects that depend on each other, through dev dependencies too, in the order given; none without a cycle', () => {
  const projects = [
    project('a', { b: 'workspace:*' }),
    project('b', {}, { a: 'workspace:^' }),
    project('c', { d: 'workspace:*' }),
    project('d', { e: 'workspace:*' }),
    project('e', { c: 'workspace:*' }),
    project('f', { a: 'workspace:*' }),
  ]
  assert.deepEqual(workspaceCycles(projects).map((cycle) => cycle.map(({ id }) => id)), [['a', 'b'], ['c', 'd', 'e']])
  assert.deepEqual(workspaceCycles([project('a', { b: 'workspace:*' }), project('b'), project('self', { self: 'workspace:*' })]), [])
})

test('a chain of 20,000 projects closing on itself is one cycle, walked without deep recursion', () => {
  const projects = Array.from({ length: 20_000 }, (_, i) => project(`p${i}`, { [`p${(i + 1) % 20_000}`]: 'workspace:*' }))
  const cycles = workspaceCycles(projects)
  assert.equal(cycles.length, 1)
  assert.equal(cycles[0]!.length, 20_000)
})
