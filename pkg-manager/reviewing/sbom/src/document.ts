import type { CollectedComponents, ComponentDetails } from './components.js'

/** What both formats serialize: the described project and what it depends on. */
export interface SbomGraph extends CollectedComponents {
  root: ComponentDetails & { name: string, version: string, purl: string, type: 'library' | 'application' }
}

/** The SHA digests of an integrity (`sha512-<base64>` …), hex, with the algorithm's name as both formats spell it (`SHA-512`). */
export function integrityHashes (integrity: string | undefined): Array<{ algorithm: string, digest: string }> {
  if (integrity === undefined) return []
  const hashes: Array<{ algorithm: string, digest: string }> = []
  for (const entry of integrity.trim().split(/\s+/)) {
    const match = /^(sha1|sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})(?:\?.*)?$/.exec(entry)
    if (match === null) continue
    hashes.push({ algorithm: `SHA-${match[1]!.slice(3)}`, digest: Buffer.from(match[2]!, 'base64').toString('hex') })
  }
  return hashes
}

/** The graph in a stable order: components by purl, each component's dependencies by purl, the root's first. */
export function sortedGraph (graph: SbomGraph): SbomGraph {
  const byPurl = (a: { purl: string }, b: { purl: string }): number => a.purl < b.purl ? -1 : a.purl > b.purl ? 1 : 0
  const components = [...graph.components].sort(byPurl)
  const order = new Map([graph.root.purl, ...components.map((component) => component.purl)].map((purl, index) => [purl, index]))
  const relationships = [...graph.relationships]
    .sort((a, b) => (order.get(a.from)! - order.get(b.from)!) || (order.get(a.to)! - order.get(b.to)!))
  return { ...graph, components, relationships }
}
