/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- the SBOMs are compared as the JSON they are */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { failure, lodeExactly, makeProject, pnpm, pnpmExactly, snapshot } from './helpers.js'
import type { Project } from './helpers.js'

// `lode sbom` beside pnpm 11's on one installed workspace: the same components (licenses, authors,
// links, hashes read from the store), the same dependency edges but one pnpm 11's walk misses and
// pnpm 12 records, the same files and refusals.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'lib-mit', version: '1.0.0', manifest: { license: 'mit', description: 'lower-case id', author: { name: 'Ann', email: 'ann@example.com' }, repository: 'github:ann/lib-mit' } },
    { name: 'lib-or', version: '2.0.0', manifest: { license: '(MIT OR Apache-2.0)', author: 'Bo <bo@example.com> (https://bo.example.com)', homepage: 'https://lib-or.example.com' } },
    { name: 'lib-file', version: '1.0.0', manifest: { license: 'SEE LICENSE IN LICENSE' }, files: { LICENSE: 'Permission is hereby granted... the MIT License' } },
    { name: 'lib-guess', version: '1.0.0', files: { 'LICENSE.md': 'A BSD style license' } },
    { name: 'lib-custom', version: '3.0.0', manifest: { license: 'Custom-Foo', bugs: { url: 'https://bugs.example.com/custom' } } },
    { name: 'lib-array', version: '1.0.0', manifest: { licenses: [{ type: 'MIT' }, { type: 'ISC' }] } },
    { name: '@scope/lib-shared', version: '1.2.3', manifest: { license: 'ISC', description: 'shared' } },
    { name: 'lib-uses-shared', version: '1.0.0', dependencies: { '@scope/lib-shared': '^1.0.0' }, manifest: { license: 'Apache-2.0' } },
    { name: 'lib-elsewhere', version: '1.0.0', manifest: { os: ['aix'], license: 'MIT' } },
    { name: 'lib-peer', version: '1.0.0', manifest: { license: 'MIT' } },
    { name: 'lib-dev', version: '0.1.0', manifest: { license: 'BSD-3-Clause' } },
  ])
})
after(async () => { await registry.close() })

function workspace (): Project {
  return makeProject(registry, { name: 'root', version: '1.0.0', private: true, description: 'the workspace', repository: 'github:team/root', devDependencies: { 'lib-dev': '0.1.0' } }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    LICENSE: 'MIT License\n',
    'packages/app/package.json': JSON.stringify({
      name: '@team/app',
      version: '2.0.0',
      author: 'Team',
      dependencies: { '@team/util': 'workspace:*', 'lib-mit': '1.0.0', 'lib-or': '2.0.0', '@scope/lib-shared': '1.2.3', 'lib-uses-shared': '1.0.0', 'lib-peer': '1.0.0' },
      peerDependencies: { 'lib-peer': '^1.0.0' },
      optionalDependencies: { 'lib-elsewhere': '1.0.0' },
    }),
    'packages/util/package.json': JSON.stringify({
      name: '@team/util',
      version: '0.3.0',
      license: 'Apache-2.0',
      dependencies: { 'lib-file': '1.0.0', 'lib-guess': '1.0.0', 'lib-custom': '3.0.0', 'lib-array': '1.0.0' },
    }),
  })
}

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- documents compared whole

/** A CycloneDX BOM without what differs run to run (serial number, time, tool), components and edges by purl. */
function cycloneDxShape (text: string): { bom: Json, edges: string[] } {
  const bom = JSON.parse(text) as Json
  assert.match(bom['serialNumber'], /^urn:uuid:[0-9a-f-]{36}$/)
  assert.ok(!Number.isNaN(Date.parse(bom['metadata'].timestamp)))
  delete bom['serialNumber']
  delete bom['metadata'].timestamp
  delete bom['metadata'].tools
  bom['components'].sort((a: Json, b: Json) => a['purl'] < b['purl'] ? -1 : 1)
  const edges = (bom['dependencies'] as Json[]).flatMap((entry) => (entry['dependsOn'] as string[]).map((to) => `${entry['ref'] as string} → ${to}`)).sort()
  delete bom['dependencies']
  return { bom, edges }
}

/** An SPDX document without its namespace and creation, packages by name, ids by package. */
function spdxShape (text: string): { doc: Json, edges: string[] } {
  const doc = JSON.parse(text) as Json
  assert.match(doc['documentNamespace'], /^https:\/\/spdx\.org\/spdxdocs\/.+-[0-9a-f-]{36}$/)
  delete doc['documentNamespace']
  delete doc['creationInfo']
  const ids = new Map((doc['packages'] as Json[]).map((pkg) => [pkg['SPDXID'] as string, `${pkg['name'] as string}@${pkg['versionInfo'] as string}`]))
  for (const pkg of doc['packages'] as Json[]) pkg['SPDXID'] = ids.get(pkg['SPDXID'])
  doc['packages'].sort((a: Json, b: Json) => a['SPDXID'] < b['SPDXID'] ? -1 : 1)
  const edges = (doc['relationships'] as Json[]).map((rel) => `${ids.get(rel['spdxElementId']) ?? rel['spdxElementId'] as string} ${rel['relationshipType'] as string} ${ids.get(rel['relatedSpdxElement'])!}`).sort()
  delete doc['relationships']
  return { doc, edges }
}

// The edge pnpm 11's walk misses: it had reached @scope/lib-shared from the project first. pnpm 12 records it.
const MISSED_BY_PNPM_11 = 'pkg:npm/lib-uses-shared@1.0.0 → pkg:npm/%40scope/lib-shared@1.2.3'

test('sbom --sbom-format cyclonedx: pnpm 11\'s components and edges (plus the one pnpm 12 adds), with --prod, --dev, --lockfile-only, --exclude-peers, --filter', async () => {
  const project = workspace()
  await pnpm(project, ['install'])
  const variants = [[], ['--prod'], ['--dev'], ['--lockfile-only'], ['--exclude-peers'], ['--filter', '@team/app'], ['-w'], ['--no-optional', '--sbom-type', 'application', '--sbom-spec-version', '1.5', '--sbom-authors', 'Ann, Bo', '--sbom-supplier', 'Team']]
  for (const extra of variants) {
    const args = ['sbom', '--sbom-format', 'cyclonedx', ...extra]
    const byPnpm = await pnpmExactly(project, args)
    const byLode = await lodeExactly(project, args)
    assert.equal(byPnpm.code, 0, byPnpm.stdout + byPnpm.stderr)
    assert.equal(byLode.code, 0, byLode.stderr)
    const expected = cycloneDxShape(byPnpm.stdout)
    const actual = cycloneDxShape(byLode.stdout)
    assert.deepEqual(actual.bom, expected.bom, extra.join(' '))
    const missed = actual.edges.filter((edge) => !expected.edges.includes(edge))
    assert.deepEqual(missed, expected.edges.includes(MISSED_BY_PNPM_11) || !actual.edges.includes(MISSED_BY_PNPM_11) ? [] : [MISSED_BY_PNPM_11], extra.join(' '))
    assert.deepEqual(expected.edges.filter((edge) => !actual.edges.includes(edge)), [], extra.join(' '))
    assert.deepEqual(JSON.parse(byLode.stdout).metadata.tools, { components: [{ type: 'application', name: 'lode', version: JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')).version }] })
  }
  // What the store told: licenses as ids, expressions and names; a license file's guess only when plain SPDX ids.
  const bom = JSON.parse((await lodeExactly(project, ['sbom', '--sbom-format', 'cyclonedx'])).stdout) as Json
  const licenses = Object.fromEntries((bom['components'] as Json[]).map((component) => [component['name'], component['licenses']]))
  assert.deepEqual(licenses['lib-mit'], [{ license: { id: 'MIT' } }])
  assert.deepEqual(licenses['lib-or'], [{ expression: '(MIT OR Apache-2.0)' }])
  assert.deepEqual(licenses['lib-file'], [{ license: { id: 'MIT' } }])
  assert.equal(licenses['lib-guess'], undefined)
  assert.deepEqual(licenses['lib-custom'], [{ license: { name: 'Custom-Foo' } }])
  assert.deepEqual(licenses['lib-array'], [{ expression: '(MIT OR ISC)' }])
  assert.ok(!(bom['components'] as Json[]).some((component) => component['name'] === 'lib-elsewhere'), 'an optional package of another platform is left out')
  const dev = (bom['components'] as Json[]).find((component) => component['name'] === 'lib-dev')!
  assert.equal(dev['scope'], 'excluded')
  const shared = (bom['components'] as Json[]).find((component) => component['name'] === 'lib-shared')!
  assert.equal(shared['group'], '@scope')
  assert.match(shared['externalReferences'][0].url, /^http:\/\/127\.0\.0\.1:\d+\/@scope\/lib-shared\/-\/lib-shared-1\.2\.3\.tgz$/)
  assert.equal(shared['externalReferences'][0].hashes[0].alg, 'SHA-512')
})

test('sbom --sbom-format spdx, --split and --out: the documents, files and lines pnpm 11 writes', async () => {
  const project = workspace()
  await pnpm(project, ['install'])
  const byPnpm = await pnpmExactly(project, ['sbom', '--sbom-format', 'spdx'])
  const byLode = await lodeExactly(project, ['sbom', '--sbom-format', 'spdx'])
  assert.equal(byLode.code, 0, byLode.stderr)
  const expected = spdxShape(byPnpm.stdout)
  const actual = spdxShape(byLode.stdout)
  assert.deepEqual(actual.doc, expected.doc)
  assert.deepEqual(actual.edges, [...expected.edges, 'lib-uses-shared@1.0.0 DEPENDS_ON @scope/lib-shared@1.2.3'].sort())
  assert.deepEqual(JSON.parse(byLode.stdout).creationInfo.creators, ['Tool: lode'])

  // --split: one document per project, one per line.
  const lines = { pnpm: (await pnpmExactly(project, ['sbom', '--sbom-format', 'cyclonedx', '--split'])).stdout.trim().split('\n'), lode: (await lodeExactly(project, ['sbom', '--sbom-format', 'cyclonedx', '--split'])).stdout.trim().split('\n') }
  assert.equal(lines.lode.length, 3)
  const names = (docs: string[]): string[] => docs.map((line) => JSON.parse(line).metadata.component.name as string).sort()
  assert.deepEqual(names(lines.lode), names(lines.pnpm))

  // --out with %s: files, and pnpm's lines naming them.
  const written = { pnpm: await pnpmExactly(project, ['sbom', '--sbom-format', 'spdx', '--out', 'by-pnpm/%s-%v.spdx.json']), lode: await lodeExactly(project, ['sbom', '--sbom-format', 'spdx', '--out', 'by-lode/%s-%v.spdx.json']) }
  assert.equal(written.lode.stdout, written.pnpm.stdout.replaceAll('by-pnpm', 'by-lode'))
  assert.equal(written.lode.stdout, 'Generated 3 SBOMs:\n  by-lode/root-1.0.0.spdx.json\n  by-lode/team-app-2.0.0.spdx.json\n  by-lode/team-util-0.3.0.spdx.json\n')
  for (const file of fs.readdirSync(path.join(project.dir, 'by-pnpm'))) {
    const pnpmFile = spdxShape(fs.readFileSync(path.join(project.dir, 'by-pnpm', file), 'utf8'))
    const lodeFile = spdxShape(fs.readFileSync(path.join(project.dir, 'by-lode', file), 'utf8'))
    assert.deepEqual(lodeFile.doc, pnpmFile.doc, file)
  }
  const single = await lodeExactly(project, ['sbom', '--sbom-format', 'cyclonedx', '--filter', '@team/util', '--out', 'one.json'])
  assert.equal(single.stdout, 'one.json\n')
  assert.equal(JSON.parse(fs.readFileSync(path.join(project.dir, 'one.json'), 'utf8')).metadata.component.name, 'util')
})

test('sbom refusals as pnpm 11\'s (no format, a bad one, no lockfile, --split outside a workspace), and an --out that fails writes nothing', async () => {
  const project = workspace()
  const refusals = [
    ['sbom'],
    ['sbom', '--sbom-format', 'xml'],
    ['sbom', '--sbom-format', 'spdx', '--sbom-spec-version', '1.6'],
    ['sbom', '--sbom-format', 'cyclonedx', '--sbom-spec-version', '2.0'],
    ['sbom', '--sbom-format', 'cyclonedx', '--sbom-type', 'framework'],
  ]
  for (const args of refusals) {
    const byPnpm = await pnpmExactly(project, args)
    const byLode = await lodeExactly(project, args)
    assert.equal(byLode.code, 1, args.join(' '))
    assert.equal(byPnpm.code, 1, args.join(' '))
    assert.equal(failure(byLode), failure(byPnpm), args.join(' '))
  }
  const noLockfile = await lodeExactly(project, ['sbom', '--sbom-format', 'cyclonedx'])
  assert.equal(noLockfile.code, 1)
  assert.match(noLockfile.stderr, /^\[ERR_LODE_SBOM_NO_LOCKFILE\] No pnpm-lock\.yaml found in .*: cannot generate an SBOM without a lockfile\./)
  assert.match(failure(await pnpmExactly(project, ['sbom', '--sbom-format', 'cyclonedx'])), /^SBOM_NO_LOCKFILE /)

  const single = makeProject(registry, { name: 'single', version: '1.0.0', dependencies: { 'lib-mit': '1.0.0' } })
  await pnpm(single, ['install'])
  const split = { pnpm: await pnpmExactly(single, ['sbom', '--sbom-format', 'spdx', '--split']), lode: await lodeExactly(single, ['sbom', '--sbom-format', 'spdx', '--split']) }
  assert.equal(split.lode.code, 1)
  assert.equal(failure(split.lode), failure(split.pnpm))

  // pnpm reads the lockfile first; lode refuses the options before reading anything.
  await pnpm(project, ['install'])
  const noPlaceholder = ['sbom', '--sbom-format', 'cyclonedx', '--split', '--out', 'x.json']
  assert.equal(failure(await lodeExactly(project, noPlaceholder)), failure(await pnpmExactly(project, noPlaceholder)))

  // A directory where one of the files goes: refused before any file is written.
  fs.mkdirSync(path.join(project.dir, 'out', 'team-util.json'), { recursive: true })
  const before = snapshot(project.dir)
  const blocked = await lodeExactly(project, ['sbom', '--sbom-format', 'cyclonedx', '--out', 'out/%s.json'])
  assert.equal(blocked.code, 1)
  assert.match(blocked.stderr, /^\[ERR_LODE_SBOM_OUT_IS_DIRECTORY\] The SBOM cannot be written to .*\/out\/team-util\.json: it is a directory\./)
  assert.deepEqual([...snapshot(project.dir)], [...before])
  const collision = await lodeExactly(project, ['sbom', '--sbom-format', 'cyclonedx', '--out', 'out/%s/../all.json'])
  assert.equal(collision.code, 1)
  assert.match(collision.stderr, /^\[ERR_LODE_SBOM_OUT_PATH_COLLISION\] /)
  assert.deepEqual([...snapshot(project.dir)], [...before])
})
