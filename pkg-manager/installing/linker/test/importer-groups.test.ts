import assert from 'node:assert/strict'
import { test } from 'node:test'

import { includesImporterGroup } from '../src/importer-groups.js'

test('includesImporterGroup: a project\'s optional dependencies go with its dependencies (--dev leaves both out)', () => {
  const all = { dependencies: true, devDependencies: true, optionalDependencies: true }
  const dev = { dependencies: false, devDependencies: true, optionalDependencies: true }
  const noOptional = { dependencies: true, devDependencies: true, optionalDependencies: false }
  assert.deepEqual(['dependencies', 'devDependencies', 'optionalDependencies'].map((group) => includesImporterGroup(all, group as 'dependencies')), [true, true, true])
  assert.deepEqual(['dependencies', 'devDependencies', 'optionalDependencies'].map((group) => includesImporterGroup(dev, group as 'dependencies')), [false, true, false])
  assert.equal(includesImporterGroup(noOptional, 'optionalDependencies'), false)
})
