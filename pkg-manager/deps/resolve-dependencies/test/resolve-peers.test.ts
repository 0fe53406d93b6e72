import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'

import { extendPath } from '../src/id-path.js'
import { PeerResolver } from '../src/resolve-peers.js'
import type { PeerNode } from '../src/resolve-peers.js'
import type { ChildrenOwner, Edge, ResolvedPackage } from '../src/types.js'
import { pkg } from './packages.js'

// Peers are resolved over a tree as deep as a registry makes it, and a peer suffix waits on its
// peers' suffixes as deep as they go: both walks take any depth (they ran out of stack between
// 1,000 and 2,000 levels when they recursed).
const DEPTH = 10_000
const MAX_SUFFIX = 1000

const edge = (name: string): Edge => ({ alias: name, pkgId: `${name}@1.0.0`, optional: false })

test(`every package of a ${DEPTH}-level chain whose bottom wants a peer the importer has gets the peer's suffix`, () => {
  const packages = new Map<string, ResolvedPackage>()
  const children = new Map<string, Edge[]>()
  for (let i = 0; i < DEPTH; i++) {
    packages.set(`p${i}@1.0.0`, pkg(`p${i}`, i === DEPTH - 1 ? { peer: '^1.0.0' } : {}))
    children.set(`p${i}@1.0.0`, i === DEPTH - 1 ? [] : [edge(`p${i + 1}`)])
  }
  packages.set('peer@1.0.0', pkg('peer'))
  const peers = new PeerResolver({ packages, children, peersSuffixMaxLength: MAX_SUFFIX })
  const roots = peers.resolveImporter([edge('p0'), edge('peer')])
  let node: PeerNode | undefined = roots.get('p0')
  for (let i = 0; i < DEPTH; i++) {
    assert.equal(peers.depPath(node!), `p${i}@1.0.0(peer@1.0.0)`)
    assert.deepEqual(node!.transitivePeerDependencies, i === DEPTH - 1 ? [] : ['peer'])
    node = node!.children.get(`p${i + 1}`)?.node
  }
  assert.equal(node, undefined)
  assert.deepEqual(peers.issues, [])
})

test(`a suffix that waits on ${DEPTH} peers' suffixes in turn is built from the bottom up, hashed past peersSuffixMaxLength`, () => {
  // The importer depends on q0 … q(DEPTH-1); each takes the next as a peer.
  const packages = new Map<string, ResolvedPackage>()
  for (let i = 0; i < DEPTH; i++) packages.set(`q${i}@1.0.0`, pkg(`q${i}`, i === DEPTH - 1 ? {} : { [`q${i + 1}`]: '1.0.0' }))
  const peers = new PeerResolver({ packages, children: new Map(), peersSuffixMaxLength: MAX_SUFFIX })
  const roots = peers.resolveImporter(Array.from({ length: DEPTH }, (_, i) => edge(`q${i}`)))
  const expected: string[] = []
  expected[DEPTH - 1] = `q${DEPTH - 1}@1.0.0`
  for (let i = DEPTH - 2; i >= 0; i--) {
    const suffix = expected[i + 1]!
    expected[i] = `q${i}@1.0.0(${suffix.length > MAX_SUFFIX ? createHash('sha256').update(suffix).digest('hex').slice(0, 32) : suffix})`
  }
  // Asked from the top: each path waits on the one below it.
  assert.equal(peers.depPath(roots.get('q0')!), expected[0])
  for (let i = 0; i < DEPTH; i++) assert.equal(peers.depPath(roots.get(`q${i}`)!), expected[i])
  assert.match(expected[0]!, /\([0-9a-f]{32}\)+$/, 'the suffix is hashed where it grew too long')
})

test('a chain whose every package wants a peer from the importer gets them all in its suffixes; past the peers it may keep, ERR_LODE_PEER_GRAPH_TOO_LARGE', () => {
  const chainOf = (depth: number, maxPeersKept?: number): { peers: PeerResolver, top: Edge[] } => {
    const packages = new Map<string, ResolvedPackage>()
    const children = new Map<string, Edge[]>()
    for (let i = 0; i < depth; i++) {
      packages.set(`p${i}@1.0.0`, pkg(`p${i}`, { [`q${i}`]: '1.0.0' }))
      children.set(`p${i}@1.0.0`, i + 1 < depth ? [edge(`p${i + 1}`)] : [])
      packages.set(`q${i}@1.0.0`, pkg(`q${i}`))
    }
    const limit = maxPeersKept === undefined ? {} : { maxPeersKept }
    const peers = new PeerResolver({ packages, children, peersSuffixMaxLength: MAX_SUFFIX, ...limit })
    return { peers, top: [edge('p0'), ...Array.from({ length: depth }, (_, i) => edge(`q${i}`))] }
  }
  const small = chainOf(20)
  const node = small.peers.resolveImporter(small.top).get('p0')!
  assert.equal(small.peers.depPath(node), `p0@1.0.0(${Array.from({ length: 20 }, (_, i) => `q${i}@1.0.0`).sort().join(')(')})`)
  assert.equal(node.transitivePeerDependencies.length, 19)
  const large = chainOf(1_000, 100_000)
  assert.throws(() => large.peers.resolveImporter(large.top), {
    code: 'ERR_LODE_PEER_GRAPH_TOO_LARGE',
    message: /more than 100000 peers for the packages down to p0@1\.0\.0 > p1@1\.0\.0 > p2@1\.0\.0 > … /,
  })
})

test('a cycle among siblings names bare a peer under its alias that the walk reaches later (an auto-installed peer of the importer), as pnpm 11', () => {
  // The importer depends on u (core and post, each the other's peer) and gets core auto-installed,
  // walked after u; post is hoisted to the importer as a provider. Below u, post takes the
  // importer's core as its peer: pnpm has no path for it yet there, so it names it bare.
  const packages = new Map<string, ResolvedPackage>([
    ['u@1.0.0', pkg('u')],
    ['core@1.0.0', pkg('core', { post: '^1.0.0' })],
    ['post@1.0.0', pkg('post', { core: '^1.0.0' })],
  ])
  const children = new Map<string, Edge[]>([['u@1.0.0', [edge('core'), edge('post')]]])
  const peers = new PeerResolver({ packages, children, peersSuffixMaxLength: MAX_SUFFIX })
  const roots = peers.resolveImporter([edge('u'), edge('core')], [], [{ alias: 'post', pkgId: 'post@1.0.0', path: ['u', 'post'] }])
  const below = roots.get('u')!.children
  assert.equal(peers.depPath(below.get('post')!.node), 'post@1.0.0(core@1.0.0)')
  assert.equal(peers.depPath(below.get('core')!.node), 'core@1.0.0(post@1.0.0)')
  assert.equal(peers.depPath(roots.get('core')!), 'core@1.0.0(post@1.0.0)')
})

test('an occurrence filled before serves another whose providers are the same packages: without peers, or filled with the same providers (pnpm\'s peers cache)', () => {
  const packages = new Map<string, ResolvedPackage>([
    ['a@1.0.0', pkg('a')],
    ['b@1.0.0', pkg('b')],
    ['x@1.0.0', pkg('x', { p: '^1.0.0' })],
    ['p@1.0.0', pkg('p')],
  ])
  // a and b each depend on x and on p: two occurrences of p, one package without peers.
  const children = new Map<string, Edge[]>([['a@1.0.0', [edge('x'), edge('p')]], ['b@1.0.0', [edge('x'), edge('p')]]])
  const peers = new PeerResolver({ packages, children, peersSuffixMaxLength: MAX_SUFFIX })
  const roots = peers.resolveImporter([edge('a'), edge('b')])
  const xOf = (parent: string): PeerNode => roots.get(parent)!.children.get('x')!.node
  assert.notEqual(roots.get('a')!.children.get('p')!.node, roots.get('b')!.children.get('p')!.node)
  assert.equal(xOf('b').allPeers, xOf('a').allPeers, 'x below b takes what x below a resolved')
  assert.equal(peers.depPath(xOf('b')), 'x@1.0.0(p@1.0.0)')

  // p with a peer of its own, provided by q below a and by another package under the alias q below b: not the same.
  const withPeer = new Map(packages)
  withPeer.set('p@1.0.0', pkg('p', { q: '^1.0.0' }))
  withPeer.set('q@1.0.0', pkg('q'))
  withPeer.set('r@1.0.0', pkg('r'))
  const other = new PeerResolver({
    packages: withPeer,
    children: new Map<string, Edge[]>([
      ['a@1.0.0', [edge('x'), edge('p'), edge('q')]],
      ['b@1.0.0', [edge('x'), edge('p'), { alias: 'q', pkgId: 'r@1.0.0', optional: false }]],
    ]),
    peersSuffixMaxLength: MAX_SUFFIX,
  })
  const top = other.resolveImporter([edge('a'), edge('b')])
  const below = (parent: string): PeerNode => top.get(parent)!.children.get('x')!.node
  assert.notEqual(below('b').allPeers, below('a').allPeers)
  assert.equal(other.depPath(below('a')), 'x@1.0.0(p@1.0.0(q@1.0.0))')
  assert.equal(other.depPath(below('b')), 'x@1.0.0(p@1.0.0(r@1.0.0))')
})

test('an occurrence the resolution reached whose package\'s dependencies it chose elsewhere is left off the ids cycles are read from, and so is every occurrence below it (pnpm\'s pending node)', () => {
  // The importer depends on a and b, each depending on the other: the resolution chooses their
  // dependencies at the importer's level, so b below a is such an occurrence (and a below b).
  const packages = new Map<string, ResolvedPackage>([['a@1.0.0', pkg('a')], ['b@1.0.0', pkg('b')]])
  const children = new Map<string, Edge[]>([['a@1.0.0', [edge('b')]], ['b@1.0.0', [edge('a')]]])
  const owners = new Map<string, ChildrenOwner>(['a', 'b'].map((name) =>
    [`${name}@1.0.0`, { importerIndex: 0, parentPath: undefined, childPath: extendPath(undefined, `${name}@1.0.0`) }]))
  const chain = (top: PeerNode): string[] => {
    const names: string[] = []
    for (let node: PeerNode | undefined = top; node !== undefined; node = [...node.children.values()][0]?.node) names.push(node.pkgId.split('@')[0]!)
    return names
  }
  // As pnpm: a (listed) > b (not listed) > a (listed again, after a) > b > a, where the list went from a to b already.
  const peers = new PeerResolver({ packages, children, peersSuffixMaxLength: MAX_SUFFIX, ownerOf: (pkgId) => owners.get(pkgId) })
  assert.deepEqual(chain(peers.resolveImporter([edge('a'), edge('b')], [], [], 0).get('a')!), ['a', 'b', 'a', 'b', 'a'])
  // Without the resolution's owners every occurrence is listed: the cycle is cut at the first repeat.
  const plain = new PeerResolver({ packages, children, peersSuffixMaxLength: MAX_SUFFIX })
  assert.deepEqual(chain(plain.resolveImporter([edge('a'), edge('b')]).get('a')!), ['a', 'b', 'a'])
})

test('an occurrence through a cycle knows those of its package above it; the lockfile lists the dependencies of the one nearest the importer (pnpm\'s shallowest node)', () => {
  // a depends on b and d; b depends on a; d on e; e on a.
  const packages = new Map<string, ResolvedPackage>(['a', 'b', 'd', 'e'].map((name) => [`${name}@1.0.0`, pkg(name)]))
  const children = new Map<string, Edge[]>([
    ['a@1.0.0', [edge('b'), edge('d')]],
    ['b@1.0.0', [edge('a')]],
    ['d@1.0.0', [edge('e')]],
    ['e@1.0.0', [edge('a')]],
  ])
  const peers = new PeerResolver({ packages, children, peersSuffixMaxLength: MAX_SUFFIX })
  const top = peers.resolveImporter([edge('a')]).get('a')!
  const below = (node: PeerNode, ...aliases: string[]): PeerNode => aliases.reduce((at, alias) => at.children.get(alias)!.node, node)
  // a > b > a: the cycle cuts b there, not d; a > b > a > d > e > a is cut whole.
  const underB = below(top, 'b', 'a')
  const deepest = below(underB, 'd', 'e', 'a')
  assert.equal(top.cycleOf, undefined)
  assert.deepEqual([...underB.children.keys()], ['d'])
  assert.equal(deepest.children.size, 0)
  assert.equal(underB.cycleOf!.length, 1)
  assert.equal(underB.cycleOf![0], top)
  assert.equal(deepest.cycleOf!.length, 2)
  assert.ok(deepest.cycleOf![0] === underB && deepest.cycleOf![1] === top, 'nearest first')
  assert.equal(peers.variantSource(deepest, peers.depPath(deepest)), top)
  assert.equal(peers.variantSource(below(top, 'd', 'e', 'a'), 'a@1.0.0'), top)
})

test('a provider hoisted to a project (a peer found below it) provides there over the workspace root\'s dependency of that name (lode took the root\'s before)', () => {
  const packages = new Map<string, ResolvedPackage>([
    ['holder@1.0.0', pkg('holder')],
    ['user@1.0.0', pkg('user', { pv: '*' })],
    ['pv@1.0.0', pkg('pv')],
    ['pv@1.1.0', { ...pkg('pv'), id: 'pv@1.1.0', version: '1.1.0' }],
  ])
  const children = new Map<string, Edge[]>([['holder@1.0.0', [edge('pv'), edge('user')]]])
  const peers = new PeerResolver({ packages, children, peersSuffixMaxLength: MAX_SUFFIX })
  const root = peers.resolveImporter([{ alias: 'pv', pkgId: 'pv@1.1.0', optional: false }])
  const inherited = [{ edge: { alias: 'pv', pkgId: 'pv@1.1.0', optional: false }, node: root.get('pv')! }]
  const project = peers.resolveImporter([edge('holder'), edge('user')], inherited, [{ alias: 'pv', pkgId: 'pv@1.0.0', path: ['holder', 'pv'] }])
  assert.equal(peers.depPath(project.get('user')!), 'user@1.0.0(pv@1.0.0)')
})
