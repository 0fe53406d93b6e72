import crypto from 'node:crypto'

import type { Component } from './components.js'
import type { SbomGraph } from './document.js'
import { integrityHashes } from './document.js'
import { cycloneDxLicense } from './license-expression.js'

// A CycloneDX JSON BOM (1.5, 1.6 or 1.7), field for field as pnpm 11 writes it, lode named as its tool.

export const CYCLONEDX_SPEC_VERSIONS = ['1.5', '1.6', '1.7']

export interface CycloneDxOptions {
  specVersion: string
  tool: { name: string, version: string }
  /** `--lockfile-only`: the BOM is of the lockfile, before a build (CycloneDX's `pre-build` phase). */
  lockfileOnly: boolean
  authors: readonly string[]
  supplier: string | undefined
  /** One line (`--split` to standard output: one BOM per line). */
  compact: boolean
}

export function cycloneDx (graph: SbomGraph, opts: CycloneDxOptions): string {
  const { root } = graph
  const dependsOn = new Map<string, string[]>([root.purl, ...graph.components.map((component) => component.purl)].map((purl) => [purl, []]))
  for (const { from, to } of graph.relationships) {
    const list = dependsOn.get(from)
    if (list !== undefined && !list.includes(to)) list.push(to)
  }
  const bom = {
    $schema: `http://cyclonedx.org/schema/bom-${opts.specVersion}.schema.json`,
    bomFormat: 'CycloneDX',
    specVersion: opts.specVersion,
    serialNumber: `urn:uuid:${crypto.randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: new Date().toISOString(),
      lifecycles: [{ phase: opts.lockfileOnly ? 'pre-build' : 'build' }],
      tools: { components: [{ type: 'application', name: opts.tool.name, version: opts.tool.version }] },
      component: rootComponent(graph.root),
      ...opts.authors.length > 0 ? { authors: opts.authors.map((name) => ({ name })) } : {},
      ...opts.supplier !== undefined && opts.supplier !== '' ? { supplier: { name: opts.supplier } } : {},
    },
    components: graph.components.map(component),
    dependencies: [...dependsOn].map(([ref, refs]) => ({ ref, dependsOn: refs })),
  }
  return JSON.stringify(bom, null, opts.compact ? undefined : 2)
}

function rootComponent (root: SbomGraph['root']): Record<string, unknown> {
  const { group, name } = splitScope(root.name)
  const references = [
    ...root.repository === undefined ? [] : [{ type: 'vcs', url: root.repository }],
    ...root.bugsUrl === undefined ? [] : [{ type: 'issue-tracker', url: root.bugsUrl }],
  ]
  return {
    type: root.type,
    name,
    version: root.version,
    purl: root.purl,
    'bom-ref': root.purl,
    ...group === undefined ? {} : { group },
    ...root.author === undefined ? {} : { authors: [{ name: root.author }] },
    ...root.license === undefined ? {} : { licenses: [cycloneDxLicense(root.license)] },
    ...root.description === undefined || root.description === '' ? {} : { description: root.description },
    ...references.length === 0 ? {} : { externalReferences: references },
  }
}

function component (pkg: Component): Record<string, unknown> {
  const { group, name } = splitScope(pkg.name)
  const hashes = integrityHashes(pkg.integrity)
  const references = [
    ...pkg.tarballUrl === undefined
      ? []
      : [{ type: 'distribution', url: pkg.tarballUrl, ...hashes.length === 0 ? {} : { hashes: hashes.map((hash) => ({ alg: hash.algorithm, content: hash.digest })) } }],
    ...pkg.homepage === undefined ? [] : [{ type: 'website', url: pkg.homepage }],
    ...pkg.repository === undefined ? [] : [{ type: 'vcs', url: pkg.repository }],
    ...pkg.bugsUrl === undefined ? [] : [{ type: 'issue-tracker', url: pkg.bugsUrl }],
  ]
  return {
    type: 'library',
    name,
    version: pkg.version,
    purl: pkg.purl,
    'bom-ref': pkg.purl,
    ...pkg.devOnly ? { scope: 'excluded', properties: [{ name: 'cdx:npm:package:development', value: 'true' }] } : {},
    ...group === undefined ? {} : { group },
    ...pkg.description === undefined || pkg.description === '' ? {} : { description: pkg.description },
    ...pkg.author === undefined ? {} : { authors: [{ name: pkg.author }] },
    ...pkg.license === undefined ? {} : { licenses: [cycloneDxLicense(pkg.license)] },
    ...references.length === 0 ? {} : { externalReferences: references },
  }
}

/** `@scope/name` → CycloneDX's group `@scope` and name `name`. */
function splitScope (fullName: string): { group: string | undefined, name: string } {
  const slash = fullName.indexOf('/')
  return fullName.startsWith('@') && slash > 0 ? { group: fullName.slice(0, slash), name: fullName.slice(slash + 1) } : { group: undefined, name: fullName }
}
