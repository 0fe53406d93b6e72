import assert from 'node:assert/strict'
import { test } from 'node:test'

import { resolutionPeerViews } from '../src/resolution-peers.js'
import type { Edge, ResolvedPackage } from '../src/types.js'
import { pkg } from './packages.js'

// A dependency chain is as deep as a registry makes it: the level walk takes any depth (it ran
// out of stack between 1,000 and 2,000 levels when it recursed).
const DEPTH = 10_000

/** p0 → p1 → … → p(DEPTH-1), the last wanting `peer`; `providerAt` also depends on `peer`. */
function chain (providerAt?: number): { packages: Map<string, ResolvedPackage>, children: Map<string, Edge[]> } {
  const packages = new Map<string, ResolvedPackage>()
  const children = new Map<string, Edge[]>()
  for (let i = 0; i < DEPTH; i++) {
    const p = pkg(`p${i}`, i === DEPTH - 1 ? { peer: '^1.0.0' } : {})
    packages.set(p.id, p)
    const edges: Edge[] = i === DEPTH - 1 ? [] : [{ alias: `p${i + 1}`, pkgId: `p${i + 1}@1.0.0`, optional: false }]
    if (i === providerAt) edges.push({ alias: 'peer', pkgId: 'peer@1.0.0', optional: false })
    children.set(p.id, edges)
  }
  const peer = pkg('peer')
  packages.set(peer.id, peer)
  children.set(peer.id, [])
  return { packages, children }
}

function views (graph: ReturnType<typeof chain>): ReturnType<typeof resolutionPeerViews> {
  const edges = [[{ alias: 'p0', pkgId: 'p0@1.0.0', optional: false }]]
  return resolutionPeerViews({ importerIds: ['.'], edges, pending: edges, topAliases: [new Set(['p0'])], ...graph })
}

test(`a peer missing at the bottom of a ${DEPTH}-level chain is missing at the importer`, () => {
  const [view] = views(chain())
  assert.deepEqual([...view!.missing], [['peer', { ranges: ['^1.0.0'], optional: false }]])
  assert.deepEqual([...view!.resolved], [])
})

test(`a peer the bottom of a ${DEPTH}-level chain finds among an ancestor's dependencies is a provider, with the path of aliases down to it`, () => {
  const at = DEPTH - 50
  const [view] = views(chain(at))
  assert.deepEqual([...view!.missing], [])
  const provider = view!.resolved.get('peer')!
  assert.equal(provider.pkgId, 'peer@1.0.0')
  assert.deepEqual(provider.path, [...Array.from({ length: at + 1 }, (_, i) => `p${i}`), 'peer'])
})

// Each package of a chain wanting its own peer from the importer passes up every peer below it:
// n²/2 peers kept, as many as pnpm-lock.yaml would list. Past MAX_PEERS_KEPT, a coded error.
function peerChain (depth: number): { packages: Map<string, ResolvedPackage>, children: Map<string, Edge[]>, top: Edge[] } {
  const packages = new Map<string, ResolvedPackage>()
  const children = new Map<string, Edge[]>()
  for (let i = 0; i < depth; i++) {
    packages.set(`p${i}@1.0.0`, pkg(`p${i}`, { [`q${i}`]: '1.0.0' }))
    children.set(`p${i}@1.0.0`, i + 1 < depth ? [{ alias: `p${i + 1}`, pkgId: `p${i + 1}@1.0.0`, optional: false }] : [])
    packages.set(`q${i}@1.0.0`, pkg(`q${i}`))
  }
  const top = [{ alias: 'p0', pkgId: 'p0@1.0.0', optional: false }, ...Array.from({ length: depth }, (_, i) => ({ alias: `q${i}`, pkgId: `q${i}@1.0.0`, optional: false }))]
  return { packages, children, top }
}

test('a chain whose every package wants a peer from the importer passes them all up; past the peers it may keep, ERR_LODE_PEER_GRAPH_TOO_LARGE names the chain', () => {
  const small = peerChain(500)
  const [view] = resolutionPeerViews({ importerIds: ['.'], edges: [small.top], pending: [small.top], topAliases: [new Set(small.top.map((edge) => edge.alias))], ...small })
  assert.deepEqual([...view!.missing], [])
  // 3,000,000 (MAX_PEERS_KEPT) is a chain of some 2,400 and 1 GB; the test keeps 100,000, some 450.
  const large = peerChain(1_000)
  const edges = [[large.top[0]!]]
  assert.throws(() => resolutionPeerViews({ importerIds: ['.'], edges, pending: edges, topAliases: [new Set(['p0'])], ...large, maxPeersKept: 100_000 }), {
    code: 'ERR_LODE_PEER_GRAPH_TOO_LARGE',
    message: /^Resolving peer dependencies keeps more than 100000 peers for the packages down to p0@1\.0\.0 > p1@1\.0\.0 > p2@1\.0\.0 > … > p\d+@1\.0\.0 > p\d+@1\.0\.0 \(\d+ levels\)/,
  })
})
