import assert from 'node:assert/strict'
import { test } from 'node:test'

import { hostedRepository } from '@lode/resolving.git-resolver/parse'

test('hostedRepository: normalize-package-data\'s URL and page, and the https clone URL of a user\'s repository; nothing for another host', () => {
  assert.deepEqual(hostedRepository('github:ann/lib'), {
    url: 'git+https://github.com/ann/lib.git',
    page: 'https://github.com/ann/lib#readme',
    https: 'git+https://github.com/ann/lib.git',
  })
  assert.equal(hostedRepository('git@github.com:ann/lib.git')?.https, 'git+https://github.com/ann/lib.git')
  assert.equal(hostedRepository('https://example.test/ann/lib.git'), undefined)
})
