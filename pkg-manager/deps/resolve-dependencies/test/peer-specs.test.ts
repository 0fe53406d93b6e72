import assert from 'node:assert/strict'
import { test } from 'node:test'

import { checkPeerSpecs } from '../src/peer-specs.js'

test('checkPeerSpecs: ranges, workspace:, catalog: and protocol specifiers pass; anything else is refused, naming the peer and the project', () => {
  checkPeerSpecs({ name: 'p', peerDependencies: { a: '^1.0.0', b: '*', c: 'workspace:^', d: 'catalog:', e: 'npm:x@1', f: '1 || 2' } }, '/p')
  checkPeerSpecs({ name: 'p' }, '/p')
  assert.throws(() => { checkPeerSpecs({ name: 'root', peerDependencies: { foo: 'bar@1.2.3' } }, '/w') }, {
    code: 'ERR_LODE_INVALID_PEER_DEPENDENCY_SPECIFICATION',
    message: "The peerDependencies field named 'foo' of package 'root' has an invalid value: 'bar@1.2.3'",
  })
  assert.throws(() => { checkPeerSpecs({ peerDependencies: { foo: 1 } }, '/w/p') }, { message: /of package '\/w\/p' has an invalid value: '1'/ })
})
