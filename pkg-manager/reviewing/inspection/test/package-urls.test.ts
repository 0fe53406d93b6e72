import assert from 'node:assert/strict'
import { test } from 'node:test'

import { bugsUrl, docsUrl, repositoryUrl } from '../src/index.js'

test('bugsUrl: an http(s) bugs URL, else the repository host\'s issues page, else the repository URL\'s /issues', () => {
  assert.equal(bugsUrl({ bugs: { url: 'https://tracker.example.test/x' } }), 'https://tracker.example.test/x')
  assert.equal(bugsUrl({ bugs: 'mailto:x@example.test', repository: 'github:owner/project' }), 'https://github.com/owner/project/issues')
  assert.equal(bugsUrl({ repository: { type: 'git', url: 'git+https://gitlab.com/group/project.git' } }), 'https://gitlab.com/group/project/issues')
  assert.equal(bugsUrl({ repository: 'git+https://git.example.test/team/repo.git/?x=1#y' }), 'https://git.example.test/team/repo/issues')
  assert.equal(bugsUrl({ repository: 'ssh://git@git.example.test/team/repo.git' }), undefined)
  assert.equal(bugsUrl({}), undefined)
})

test('repositoryUrl: the host\'s page (a directory\'s tree), else the repository URL as a web page; docsUrl: homepage, else the package page', () => {
  assert.equal(repositoryUrl({ repository: 'github:owner/project' }), 'https://github.com/owner/project')
  assert.equal(repositoryUrl({ repository: { url: 'https://github.com/owner/mono.git', directory: 'packages/a' } }), 'https://github.com/owner/mono/tree/HEAD/packages/a')
  assert.equal(repositoryUrl({ repository: { url: 'https://git.example.test/team/repo.git', directory: '/sub' } }), 'https://git.example.test/team/repo/tree/HEAD/sub')
  assert.equal(repositoryUrl({ repository: 'file:../elsewhere' }), undefined)
  assert.equal(docsUrl({ name: 'tool', homepage: 'https://tool.example.test/docs' }), 'https://tool.example.test/docs')
  assert.equal(docsUrl({ name: '@scope/tool', homepage: 'javascript:alert(1)' }), 'https://npmx.dev/package/@scope/tool')
})
