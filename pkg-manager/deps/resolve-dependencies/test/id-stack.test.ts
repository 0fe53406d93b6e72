import assert from 'node:assert/strict'
import { test } from 'node:test'

import { IdStack } from '../src/id-stack.js'

const stackOf = (...ids: string[]): IdStack => {
  const stack = new IdStack()
  for (const id of ids) stack.push(id)
  return stack
}

test('IdStack.containsSequence answers as pnpm\'s parentIdsContainSequence', () => {
  // a > b > a: the list went from a to b (b is after the first a, and not the top).
  assert.equal(stackOf('a', 'b', 'a').containsSequence('a', 'b'), true)
  // The first a is the top: no cycle to read yet.
  assert.equal(stackOf('b', 'a').containsSequence('a', 'b'), false)
  // b is the top (the package asking is not listed): the edge back to it is kept.
  assert.equal(stackOf('a', 'b').containsSequence('a', 'b'), false)
  // b only before the first a.
  assert.equal(stackOf('b', 'a', 'c', 'a').containsSequence('a', 'b'), false)
  // b after the first a, even when not right after it.
  assert.equal(stackOf('a', 'c', 'b', 'd', 'a').containsSequence('a', 'b'), true)
  assert.equal(stackOf().containsSequence('a', 'b'), false)
})

test('IdStack keeps the places of an id as it is pushed and popped', () => {
  const stack = stackOf('a', 'b', 'a')
  assert.deepEqual(stack.placesOf('a'), [0, 2])
  stack.pop('a')
  assert.deepEqual(stack.placesOf('a'), [0])
  assert.equal(stack.length, 2)
  stack.pop('b')
  stack.pop('a')
  assert.equal(stack.has('a'), false)
  assert.deepEqual(stack.placesOf('a'), [])
})
