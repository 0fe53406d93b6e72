import crypto from 'node:crypto'

import type { SbomGraph } from './document.js'
import { integrityHashes } from './document.js'

// An SPDX 2.3 JSON document, field for field as pnpm 11 writes it, lode named as its creator.

const ROOT_ID = 'SPDXRef-RootPackage'

export function spdx (graph: SbomGraph, opts: { tool: string, compact: boolean }): string {
  const { root } = graph
  const ids = new Map<string, string>([[root.purl, ROOT_ID]])
  const packages = graph.components.map((pkg, index) => {
    const id = `SPDXRef-Package-${spdxIdPart(pkg.name)}-${spdxIdPart(pkg.version)}-${index}`
    ids.set(pkg.purl, id)
    const hashes = integrityHashes(pkg.integrity)
    return {
      SPDXID: id,
      name: pkg.name,
      versionInfo: pkg.version,
      downloadLocation: pkg.tarballUrl ?? 'NOASSERTION',
      filesAnalyzed: false,
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: pkg.purl }],
      licenseConcluded: pkg.license ?? 'NOASSERTION',
      licenseDeclared: pkg.license ?? 'NOASSERTION',
      copyrightText: 'NOASSERTION',
      ...pkg.description === undefined || pkg.description === '' ? {} : { description: pkg.description },
      ...pkg.homepage === undefined ? {} : { homepage: pkg.homepage },
      ...pkg.author === undefined ? {} : { supplier: `Person: ${pkg.author}` },
      ...hashes.length === 0 ? {} : { checksums: hashes.map((hash) => ({ algorithm: hash.algorithm.replace('-', ''), checksumValue: hash.digest })) },
    }
  })
  const rootPackage = {
    SPDXID: ROOT_ID,
    name: root.name,
    versionInfo: root.version,
    downloadLocation: 'NOASSERTION',
    filesAnalyzed: false,
    primaryPackagePurpose: root.type === 'application' ? 'APPLICATION' : 'LIBRARY',
    externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: root.purl }],
    licenseConcluded: root.license ?? 'NOASSERTION',
    licenseDeclared: root.license ?? 'NOASSERTION',
    copyrightText: 'NOASSERTION',
    ...root.description === undefined || root.description === '' ? {} : { description: root.description },
    ...root.author === undefined ? {} : { supplier: `Person: ${root.author}` },
    ...root.repository === undefined ? {} : { homepage: root.repository },
  }
  const relationships = [{ spdxElementId: 'SPDXRef-DOCUMENT', relatedSpdxElement: ROOT_ID, relationshipType: 'DESCRIBES' }]
  const seen = new Set<string>()
  for (const { from, to } of graph.relationships) {
    const fromId = ids.get(from)
    const toId = ids.get(to)
    if (fromId === undefined || toId === undefined || seen.has(`${fromId}|${toId}`)) continue
    seen.add(`${fromId}|${toId}`)
    relationships.push({ spdxElementId: fromId, relatedSpdxElement: toId, relationshipType: 'DEPENDS_ON' })
  }
  const document = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: root.name,
    documentNamespace: `https://spdx.org/spdxdocs/${spdxIdPart(root.name)}-${root.version}-${crypto.randomUUID()}`,
    creationInfo: { created: `${new Date().toISOString().split('.')[0]!}Z`, creators: [`Tool: ${opts.tool}`] },
    packages: [rootPackage, ...packages],
    relationships,
  }
  return JSON.stringify(document, null, opts.compact ? undefined : 2)
}

/** What an SPDX id may hold of a name or version: letters, digits, `.` and `-`. */
function spdxIdPart (value: string): string {
  return value.replace(/[^a-z0-9.-]/gi, '-')
}
