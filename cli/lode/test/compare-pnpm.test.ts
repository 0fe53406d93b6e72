import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { TestRegistry, buildPackageTarball } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { cloneProject, compareLockfiles, lode, makeProject, pnpm, readLockfileText } from './helpers.js'
import type { Project } from './helpers.js'

// Fixture packages: scopes, bins, engines, platforms, aliases, deprecations, bundles, and peers.
const PACKAGES: PackageSpec[] = [
  { name: 'aaa', version: '1.0.0' },
  { name: 'aaa', version: '1.1.0' },
  { name: '@scope/util', version: '1.0.0', dependencies: { aaa: '^1.0.0' } },
  { name: 'tool', version: '2.0.0', bin: { tool: 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\n' }, manifest: { engines: { node: '>=18', npm: '*' }, os: ['linux', 'darwin'], cpu: ['x64', 'arm64'] } },
  { name: 'opt-dep', version: '1.0.0', manifest: { os: ['win32'], cpu: ['x64'], libc: ['glibc'] } },
  { name: 'aliased-pkg', version: '3.0.0' },
  { name: 'aliased-pkg', version: '3.1.0' },
  { name: 'old-pkg', version: '0.1.0', deprecated: 'use new-pkg instead: it\'s better' },
  { name: 'dev-only', version: '1.0.0', dependencies: { aaa: '^1.0.0' }, manifest: { bundledDependencies: ['aaa'] } },
  { name: 'dep', version: '1.0.0' },
  { name: 'dep', version: '1.1.0' },
  { name: 'dep', version: '1.2.0' },
  { name: 'uses-dep', version: '1.0.0', dependencies: { dep: '^1.0.0' } },
  { name: 'wrap-uses-dep', version: '1.0.0', dependencies: { 'uses-dep': '^1.0.0', dep: '1.1.0' } },
  { name: 'host', version: '1.0.0' },
  { name: 'host', version: '2.0.0' },
  { name: 'host', version: '2.1.0' },
  { name: 'host-dom', version: '2.0.0', manifest: { peerDependencies: { host: '^2.0.0' } } },
  { name: 'host-plugin', version: '1.0.0', manifest: { peerDependencies: { host: '>=1.0.0', 'host-dom': '^2.0.0' } } },
  { name: 'peer-x', version: '1.0.0' },
  { name: 'peer-x', version: '1.5.0' },
  { name: 'peer-x', version: '2.0.0' },
  { name: 'lonely-plugin', version: '1.0.0', manifest: { peerDependencies: { 'peer-x': '^1.0.0' } } },
  { name: 'c', version: '1.0.0' },
  { name: 'b', version: '1.0.0', manifest: { peerDependencies: { c: '^1.0.0' } } },
  { name: 'a', version: '1.0.0', dependencies: { b: '^1.0.0' } },
  { name: 'c-parent', version: '1.0.0', dependencies: { a: '^1.0.0', c: '^1.0.0' } },
  { name: 'opt-plugin', version: '1.0.0', manifest: { peerDependencies: { 'opt-peer': '^1.0.0' }, peerDependenciesMeta: { 'opt-peer': { optional: true } } } },
  { name: 'strict-plugin', version: '1.0.0', manifest: { peerDependencies: { host: '^1.0.0' } } },
  { name: 'wrapper', version: '1.0.0', dependencies: { 'host-plugin': '1.0.0' } },
  { name: 'opt-peer', version: '1.0.0' },
  { name: 'opt-peer', version: '1.2.0' },
  { name: 'brings-opt-peer', version: '1.0.0', dependencies: { 'opt-peer': '1.0.0' } },
  { name: 'self-peer', version: '1.0.0', dependencies: { aaa: '^1.0.0' }, manifest: { peerDependencies: { aaa: '^1.0.0' }, peerDependenciesMeta: { aaa: { optional: true } } } },
  // Cycles: of dependencies, and of peers between siblings.
  { name: 'cyc-a', version: '1.0.0', dependencies: { 'cyc-b': '^1.0.0' } },
  { name: 'cyc-b', version: '1.0.0', dependencies: { 'cyc-a': '^1.0.0', 'cyc-c': '^1.0.0' } },
  { name: 'cyc-c', version: '1.0.0', dependencies: { 'cyc-b': '^1.0.0', aaa: '^1.0.0' } },
  { name: 'pc-x', version: '1.0.0', manifest: { peerDependencies: { 'pc-y': '^1.0.0', host: '^2.0.0' } } },
  { name: 'pc-y', version: '1.0.0', manifest: { peerDependencies: { 'pc-x': '^1.0.0' } } },
  { name: 'pc-user', version: '1.0.0', manifest: { peerDependencies: { 'pc-x': '^1.0.0', 'pc-y': '^1.0.0' } } },
  { name: 'old-engines', version: '1.0.0', manifest: { engines: ['node >= 0.8'] } },
  // Entries of the compatibility database pnpm applies (@yarnpkg/extensions).
  { name: 'ms', version: '2.1.2' },
  { name: 'debug', version: '4.1.1', dependencies: { ms: '^2.1.1' } },
  { name: 'supports-color', version: '7.2.0' },
  { name: 'uses-debug', version: '1.0.0', dependencies: { debug: '^4.1.0', 'supports-color': '^7.0.0' } },
  { name: 'got', version: '10.7.0' },
  { name: '@types/responselike', version: '1.0.0' },
  { name: '@types/keyv', version: '3.1.1' },
  { name: 'ws', version: '7.0.0' },
  // dedupePeerDependents: dd-y's optional peer is met (by a mismatched version) only below dd-p2.
  { name: 'dd-a', version: '1.0.0' },
  { name: 'dd-c', version: '2.0.0' },
  { name: 'dd-y', version: '1.0.0', manifest: { peerDependencies: { 'dd-a': '^1.0.0', 'dd-c': '^1.0.0' }, peerDependenciesMeta: { 'dd-c': { optional: true } } } },
  { name: 'dd-p2', version: '1.0.0', dependencies: { 'dd-y': '1.0.0', 'dd-c': '2.0.0' } },
  // ignoredOptionalDependencies and allowedDeprecatedVersions.
  { name: 'io-fsev', version: '1.0.0' },
  { name: 'io-has-opt', version: '1.0.0', dependencies: { aaa: '^1.0.0' }, manifest: { optionalDependencies: { 'io-fsev': '1.0.0' } } },
  { name: 'io-old', version: '1.0.0', deprecated: 'old stuff' },
  // An optional peer the lockfile resolved keeps its version when a higher one joins the graph.
  { name: 'lp-p', version: '1.0.0' },
  { name: 'lp-p', version: '2.0.0' },
  { name: 'lp-user', version: '1.0.0', manifest: { peerDependencies: { 'lp-p': '*' }, peerDependenciesMeta: { 'lp-p': { optional: true } } } },
  { name: 'lp-needs-1', version: '1.0.0', dependencies: { 'lp-p': '1.0.0' } },
  { name: 'lp-needs-2', version: '1.0.0', dependencies: { 'lp-p': '2.0.0' } },
  // Overrides.
  { name: 'foo', version: '1.0.0' },
  { name: 'foo', version: '1.1.0' },
  { name: 'foo', version: '2.0.0' },
  { name: 'bar', version: '1.0.0', dependencies: { foo: '^1.0.0', aaa: '^1.0.0' } },
  { name: 'baz', version: '1.0.0', dependencies: { foo: '^1.0.0' }, manifest: { peerDependencies: { host: '^2.0.0' } } },
]

// Published now: younger than the default minimumReleaseAge of a day.
const NOW = new Date().toISOString()
const YOUNG: PackageSpec[] = [
  { name: 'young', version: '1.0.0', publishedAt: NOW },
  { name: 'young', version: '1.1.0', publishedAt: NOW },
  { name: 'half-young', version: '1.0.0' },
  { name: 'half-young', version: '1.1.0', publishedAt: NOW },
  { name: 'young-dep', version: '2.0.0', publishedAt: NOW },
  { name: 'young-parent', version: '1.0.0', publishedAt: NOW, dependencies: { 'young-dep': '^2.0.0' } },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start([...PACKAGES, ...YOUNG]) })
after(async () => { await registry.close() })

/** Runs pnpm and lode on copies of one project and requires the same pnpm-lock.yaml, byte for byte. */
async function rerunBoth (projects: { pnpmProject: Project, lodeProject: Project }, change: (dir: string) => void): Promise<void> {
  change(projects.pnpmProject.dir)
  change(projects.lodeProject.dir)
  await pnpm(projects.pnpmProject, ['install', '--lockfile-only'])
  const result = await lode(projects.lodeProject, ['install', '--lockfile-only'])
  assert.equal(result.code, 0, `lode failed:\n${result.stdout}\n${result.stderr}`)
  assert.equal(readLockfileText(projects.lodeProject), readLockfileText(projects.pnpmProject))
}

async function compare (
  manifest: Record<string, unknown>,
  files: Record<string, string | Buffer> = {}
): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  return await compareLockfiles(registry, manifest, files)
}

describe('lode install --lockfile-only writes the lockfile pnpm 11 writes', () => {
  test('registry dependencies: scopes, aliases, bins, engines, platforms, deprecated, bundled, dev and optional', async () => {
    await compare({
      name: 'basic',
      version: '1.0.0',
      dependencies: { '@scope/util': '^1.0.0', aaa: '1', 'my-alias': 'npm:aliased-pkg@^3.0.0', 'old-pkg': '~0.1.0', tool: '^2.0.0' },
      devDependencies: { 'dev-only': '^1.0.0' },
      optionalDependencies: { 'opt-dep': '^1.0.0' },
    })
  })

  test('versions resolved beside an ancestor are preferred; other branches are not', async () => {
    await compare({ name: 'preferred', version: '1.0.0', dependencies: { dep: '1.1.0', 'uses-dep': '^1.0.0' } })
    await compare({ name: 'branches', version: '1.0.0', dependencies: { 'wrap-uses-dep': '^1.0.0', 'uses-dep': '^1.0.0' } })
  })

  test('peers: provided by the importer, nested, auto-installed, optional, mismatched, inside a wrapper', async () => {
    await compare({ name: 'peers-react-like', version: '1.0.0', dependencies: { host: '^2.0.0', 'host-dom': '^2.0.0', 'host-plugin': '1.0.0' } })
    await compare({ name: 'peers-auto', version: '1.0.0', dependencies: { 'lonely-plugin': '^1.0.0' } })
    await compare({ name: 'peers-nested', version: '1.0.0', dependencies: { 'c-parent': '^1.0.0' } })
    await compare({ name: 'peers-optional', version: '1.0.0', dependencies: { 'opt-plugin': '^1.0.0' } })
    const inGraph = await compare({ name: 'peers-optional-in-graph', version: '1.0.0', dependencies: { 'opt-plugin': '^1.0.0', 'brings-opt-peer': '1.0.0' } })
    assert.match(readLockfileText(inGraph.lodeProject), /opt-plugin@1\.0\.0\(opt-peer@1\.0\.0\)/, 'an optional peer already in the graph is hoisted')
    await compare({ name: 'peers-unmet', version: '1.0.0', dependencies: { host: '^2.0.0', 'strict-plugin': '^1.0.0' } })
    await compare({ name: 'peers-wrapped', version: '1.0.0', dependencies: { wrapper: '^1.0.0' } })
  })

  test('a second run changes nothing and asks the registry nothing; an edit changes what pnpm changes', async () => {
    const manifest = { name: 'rerun', version: '1.0.0', dependencies: { '@scope/util': '^1.0.0', 'lonely-plugin': '^1.0.0', 'host-plugin': '1.0.0', host: '^2.0.0', 'host-dom': '^2.0.0', 'self-peer': '1.0.0' } }
    const { pnpmProject, lodeProject } = await compare(manifest)
    const lockfile = path.join(lodeProject.dir, 'pnpm-lock.yaml')
    const mtime = fs.statSync(lockfile).mtimeMs
    const requestsBefore = registry.requests.length
    const again = await lode(lodeProject, ['install', '--lockfile-only'])
    assert.equal(again.code, 0, again.stderr)
    assert.equal(registry.requests.length, requestsBefore, `no request: ${registry.requests.slice(requestsBefore).join(', ')}`)
    assert.equal(fs.statSync(lockfile).mtimeMs, mtime, 'the lockfile is not rewritten')

    const edited = { ...manifest, dependencies: { ...manifest.dependencies, dep: '^1.0.0' } }
    for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify(edited, null, 2))
    await pnpm(pnpmProject, ['install', '--lockfile-only'])
    const afterEdit = await lode(lodeProject, ['install', '--lockfile-only'])
    assert.equal(afterEdit.code, 0, afterEdit.stderr)
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  })

  test('dependency cycles are unrolled once; siblings that are each other\'s peers are named bare; engines as an array', async () => {
    await compare({ name: 'cycles', version: '1.0.0', dependencies: { 'cyc-a': '^1.0.0', host: '^2.0.0' } })
    const { lodeProject } = await compare({ name: 'peer-cycles', version: '1.0.0', dependencies: { 'pc-x': '^1.0.0', 'pc-y': '^1.0.0', 'pc-user': '^1.0.0', host: '^2.0.0', 'old-engines': '1.0.0' } })
    assert.match(readLockfileText(lodeProject), /pc-user@1\.0\.0\(pc-x@1\.0\.0\)\(pc-y@1\.0\.0\)/)
  })

  test('the compatibility database pnpm applies: optional peers and added dependencies', async () => {
    const { lodeProject } = await compare({ name: 'compat', version: '1.0.0', dependencies: { 'uses-debug': '^1.0.0', got: '^10.0.0', ws: '^7.0.0' } })
    const lockfile = readLockfileText(lodeProject)
    assert.match(lockfile, /debug@4\.1\.1\(supports-color@7\.2\.0\)/, 'debug sees supports-color as an optional peer')
    assert.match(lockfile, /'@types\/keyv': 3\.1\.1/, 'got@<11 gets its missing dependencies')
  })

  test('overrides: global, ranged, parent>child, removal, $references; a changed override re-resolves', async () => {
    const manifest = { name: 'overrides', version: '1.0.0', dependencies: { bar: '^1.0.0', baz: '^1.0.0', foo: '^1.0.0', host: '^2.0.0' } }
    const workspace = (overrides: string): Record<string, string> => ({ 'pnpm-workspace.yaml': `overrides:\n${overrides}` })
    const projects = await compare(manifest, workspace("  'foo@^1': 1.1.0\n  'bar>foo': 2.0.0\n  aaa: '-'\n"))
    await rerunBoth(projects, (dir) => { fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), "overrides:\n  foo: 1.0.0\n  'baz>host': '-'\n") })
    await rerunBoth(projects, (dir) => { fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'overrides:\n  aaa: $foo\n') })
    await rerunBoth(projects, (dir) => { fs.rmSync(path.join(dir, 'pnpm-workspace.yaml')) })
  })

  test('packageExtensions: dependencies and peers added, the checksum recorded; a changed extension re-resolves', async () => {
    const manifest = { name: 'extensions', version: '1.0.0', dependencies: { 'uses-dep': '^1.0.0', host: '^2.0.0' } }
    const extensions = "packageExtensions:\n  uses-dep@1:\n    dependencies:\n      aaa: ^1.0.0\n    peerDependencies:\n      host: ^2.0.0\n    peerDependenciesMeta:\n      opt-peer:\n        optional: true\n"
    const projects = await compare(manifest, { 'pnpm-workspace.yaml': extensions })
    assert.match(readLockfileText(projects.lodeProject), /packageExtensionsChecksum: sha256-/)
    await rerunBoth(projects, (dir) => { fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'packageExtensions:\n  uses-dep:\n    dependencies:\n      foo: 2.0.0\n') })
    await rerunBoth(projects, (dir) => { fs.rmSync(path.join(dir, 'pnpm-workspace.yaml')) })
  })

  test('file: directories and tarballs, link: and bare paths, tarball URLs (the registry\'s own and others)', async () => {
    const local = (name: string, dependencies: Record<string, string>): string => JSON.stringify({ name, version: '1.0.0', dependencies })
    const { tarball } = await buildPackageTarball({ name: 't', version: '1.0.0', dependencies: { aaa: '^1.0.0' } })
    const other = registry.url.replace('127.0.0.1', 'localhost')
    const manifest = {
      name: 'locals',
      version: '1.0.0',
      dependencies: {
        a: 'file:./local-a',
        'alias-a': 'file:local-a',
        b: './local-b',
        l: 'link:./linked',
        t: 'file:./t-1.0.0.tgz',
        r: `${registry.url}dep/-/dep-1.1.0.tgz`,
        u: `${other}uses-dep/-/uses-dep-1.0.0.tgz`,
      },
    }
    const { pnpmProject, lodeProject } = await compare(manifest, {
      'local-a/package.json': local('a', { aaa: '^1.0.0', d: 'file:../local-d' }),
      'local-d/package.json': local('d', { dep: '^1.0.0' }),
      'local-b/package.json': local('b', { nope: '^1.0.0' }),
      'linked/package.json': local('linked', {}),
      't-1.0.0.tgz': tarball,
    })
    const lockfile = readLockfileText(lodeProject)
    assert.match(lockfile, /a@file:local-a:\n {4}resolution: \{directory: local-a, type: directory\}/)
    assert.match(lockfile, /t@file:t-1\.0\.0\.tgz:\n {4}resolution: \{integrity: sha512-[^,]+, tarball: file:t-1\.0\.0\.tgz\}\n {4}version: 1\.0\.0/)
    assert.match(lockfile, /uses-dep@http:\/\/localhost:/)

    // A second run asks the registry nothing (the URL's tarball included) and changes nothing.
    const requestsBefore = registry.requests.length
    const again = await lode(lodeProject, ['install', '--lockfile-only'])
    assert.equal(again.code, 0, again.stderr)
    assert.deepEqual(registry.requests.slice(requestsBefore), [])
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  })

  test('minimumReleaseAge: when nothing fitting is old enough, the lowest is taken and added to minimumReleaseAgeExclude; strict mode fails', async () => {
    const manifest = { name: 'young', version: '1.0.0', dependencies: { young: '^1.0.0', 'half-young': '^1.0.0', 'young-parent': '1' } }
    const workspaceYaml = '# settings\nautoInstallPeers: true   # keep\n\nminimumReleaseAgeExclude:\n  - zzz\n  - young@0.9.0\n\nlinkWorkspacePackages: false\n'
    const { pnpmProject, lodeProject } = await compare(manifest, { 'pnpm-workspace.yaml': workspaceYaml })
    const yamlOf = (project: Project): string => fs.readFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'utf8')
    assert.equal(yamlOf(lodeProject), yamlOf(pnpmProject))
    assert.match(yamlOf(lodeProject), /- young@0\.9\.0 \|\| 1\.0\.0\n {2}- young-dep@2\.0\.0\n {2}- young-parent@1\.0\.0\n/)
    const again = await lode(lodeProject, ['install', '--lockfile-only'])
    assert.equal(again.code, 0)
    assert.doesNotMatch(again.stdout, /minimumReleaseAgeExclude/, 'nothing more to add on a re-run')
    assert.equal(yamlOf(lodeProject), yamlOf(pnpmProject))

    const fresh = makeProject(registry, manifest)
    const reported = await lode(cloneProject(fresh), ['install', '--lockfile-only'])
    assert.match(reported.stdout, /Added 3 entries to minimumReleaseAgeExclude in pnpm-workspace\.yaml .*:\n {2}young-dep@2\.0\.0\n {2}young-parent@1\.0\.0\n {2}young@1\.0\.0\n/, 'sorted as pnpm sorts them')

    // An explicit minimumReleaseAge is strict: both fail, naming the same versions, and write nothing.
    const strict = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'minimumReleaseAge: 1440\n' })
    const strictLode = cloneProject(strict)
    const pnpmFailure = await pnpm(strict, ['install', '--lockfile-only'], true)
    const lodeFailure = await lode(strictLode, ['install', '--lockfile-only'])
    assert.equal(lodeFailure.code, 1)
    assert.match(lodeFailure.stderr, /ERR_LODE_NO_MATURE_MATCHING_VERSION/)
    const listed = (text: string): string[] => [...text.matchAll(/^ {2}(\S+) was published at (\S+), within the minimumReleaseAge cutoff/gm)].map((m) => `${m[1]} ${m[2]}`)
    assert.equal(listed(lodeFailure.stderr).length, 3)
    assert.deepEqual(listed(lodeFailure.stderr), listed(pnpmFailure.stdout + pnpmFailure.stderr))
    for (const project of [strict, strictLode]) {
      assert.equal(fs.existsSync(path.join(project.dir, 'pnpm-lock.yaml')), false)
      assert.equal(fs.readFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'utf8'), 'minimumReleaseAge: 1440\n')
    }
  })

  test('dedupePeerDependents: a variant merges into one that resolves more peers; off, both stay', async () => {
    const manifest = { name: 'dedupe-peers', version: '1.0.0', dependencies: { 'dd-a': '1.0.0', 'dd-y': '1.0.0', 'dd-p2': '1.0.0' } }
    const deduped = await compare(manifest)
    assert.match(readLockfileText(deduped.lodeProject), /dd-y:\n {8}specifier: 1\.0\.0\n {8}version: 1\.0\.0\(dd-a@1\.0\.0\)\(dd-c@2\.0\.0\)/)
    assert.doesNotMatch(readLockfileText(deduped.lodeProject), /dd-y@1\.0\.0\(dd-a@1\.0\.0\):/)
    const kept = await compare(manifest, { 'pnpm-workspace.yaml': 'autoInstallPeers: false\ndedupePeerDependents: false\n' })
    assert.match(readLockfileText(kept.lodeProject), /dd-y@1\.0\.0\(dd-a@1\.0\.0\):/)
  })

  test('the result does not depend on which registry response comes first', async () => {
    const manifest = {
      name: 'order',
      version: '1.0.0',
      dependencies: {
        '@scope/util': '^1.0.0', 'lonely-plugin': '^1.0.0', 'host-plugin': '1.0.0', host: '^2.0.0', 'host-dom': '^2.0.0', 'self-peer': '1.0.0',
        'wrap-uses-dep': '^1.0.0', 'uses-dep': '^1.0.0', 'c-parent': '^1.0.0', 'opt-plugin': '^1.0.0', 'brings-opt-peer': '1.0.0',
        'cyc-a': '^1.0.0', 'pc-user': '^1.0.0', 'pc-x': '^1.0.0', 'pc-y': '^1.0.0', 'dd-a': '1.0.0', 'dd-y': '1.0.0', 'dd-p2': '1.0.0', bar: '^1.0.0', baz: '^1.0.0',
      },
    }
    const reference = await compare(manifest)
    const expected = readLockfileText(reference.lodeProject)
    // Two opposite orders: each packument waits 0-60 ms by a hash of its name, then the reverse.
    const rank = (path: string): number => createHash('sha1').update(path).digest()[0]! % 5
    const delayed = await TestRegistry.start([...PACKAGES, ...YOUNG])
    try {
      for (const delay of [(p: string) => rank(p) * 15, (p: string) => (4 - rank(p)) * 15]) {
        delayed.responseDelay = (p) => p.includes('/-/') ? 0 : delay(p)
        const project = makeProject(delayed, manifest)
        const result = await lode(project, ['install', '--lockfile-only'])
        assert.equal(result.code, 0, result.stderr)
        assert.equal(readLockfileText(project).replaceAll(delayed.url, registry.url), expected)
      }
    } finally {
      await delayed.close()
    }
  })

  test('ignoredOptionalDependencies (recorded in the lockfile) and allowedDeprecatedVersions (no warning)', async () => {
    const manifest = { name: 'ignored-optional', version: '1.0.0', dependencies: { 'io-has-opt': '1.0.0', 'io-old': '1.0.0' }, optionalDependencies: { 'io-fsev': '1.0.0' } }
    const projects = await compare(manifest, { 'pnpm-workspace.yaml': 'ignoredOptionalDependencies:\n  - io-*\nallowedDeprecatedVersions:\n  io-old: "1"\n' })
    assert.match(readLockfileText(projects.lodeProject), /\nignoredOptionalDependencies:\n {2}- io-\*\n/)
    assert.doesNotMatch(readLockfileText(projects.lodeProject), /io-fsev@/)
    const again = await lode(projects.lodeProject, ['install', '--lockfile-only'])
    assert.doesNotMatch(again.stdout, /deprecated/)
    // Dropping the setting brings the optional dependency back, as with pnpm.
    await rerunBoth(projects, (dir) => { fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'allowedDeprecatedVersions:\n  io-old: "1"\n') })
    assert.match(readLockfileText(projects.lodeProject), /io-fsev@1\.0\.0/)
  })

  test('catalogs: catalog: and catalog:name specifiers, the lockfile\'s catalogs section, catalog: in overrides', async () => {
    const manifest = { name: 'catalogs', version: '1.0.0', dependencies: { foo: 'catalog:', dep: 'catalog:tools', bar: '1.0.0' } }
    const workspaceYaml = 'catalog:\n  foo: ^1.0.0\ncatalogs:\n  tools:\n    dep: ~1.1.0\noverrides:\n  bar>aaa: "catalog:"\n  bar>foo: "catalog:"\n'
    const projects = await compare(manifest, { 'pnpm-workspace.yaml': workspaceYaml.replace('bar>aaa: "catalog:"\n  ', '') })
    assert.match(readLockfileText(projects.lodeProject), /\ncatalogs:\n {2}default:\n {4}foo:\n {6}specifier: \^1\.0\.0\n/)
    // A changed catalog entry re-resolves what uses it, as with pnpm.
    await rerunBoth(projects, (dir) => { fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'catalog:\n  foo: ^1.0.0\ncatalogs:\n  tools:\n    dep: 1.0.0\noverrides:\n  bar>foo: "catalog:"\n') })
    assert.match(readLockfileText(projects.lodeProject), /dep:\n {8}specifier: catalog:tools\n {8}version: 1\.0\.0/)
    // An entry that is not in the catalog is an error naming it.
    const missing = makeProject(registry, { name: 'no-entry', version: '1.0.0', dependencies: { aaa: 'catalog:' } }, { 'pnpm-workspace.yaml': 'catalog:\n  foo: ^1.0.0\n' })
    const failed = await lode(missing, ['install', '--lockfile-only'])
    assert.equal(failed.code, 1)
    assert.match(failed.stderr, /^\[ERR_LODE_CATALOG_ENTRY_NOT_FOUND\] No catalog entry 'aaa' was found for catalog 'default'/)
  })

  test('a missing optional peer keeps the version the lockfile gave it when a higher one joins the graph', async () => {
    const manifest = { name: 'locked-peer', version: '1.0.0', dependencies: { 'lp-user': '1.0.0', 'lp-needs-1': '1.0.0' } }
    const projects = await compare(manifest)
    await rerunBoth(projects, (dir) => { fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...manifest, dependencies: { ...manifest.dependencies, 'lp-needs-2': '1.0.0' } })) })
    assert.match(readLockfileText(projects.lodeProject), /lp-user:\n {8}specifier: 1\.0\.0\n {8}version: 1\.0\.0\(lp-p@1\.0\.0\)/)
  })

  test('a direct dependency whose version changes is resolved again wherever it is a dependency, as pnpm does', async () => {
    const manifest = { name: 'updated-direct', version: '1.0.0', dependencies: { foo: '^1.0.0', bar: '1.0.0' } }
    const projects = await compare(manifest)
    assert.match(readLockfileText(projects.lodeProject), /bar@1\.0\.0:\n {4}dependencies:\n {6}aaa: 1\.1\.0\n {6}foo: 1\.1\.0/)
    await rerunBoth(projects, (dir) => { fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...manifest, dependencies: { foo: '1.0.0', bar: '1.0.0' } })) })
    assert.match(readLockfileText(projects.lodeProject), /bar@1\.0\.0:\n {4}dependencies:\n {6}aaa: 1\.1\.0\n {6}foo: 1\.0\.0/, 'bar follows the new direct version')
  })

  test('a workspace: every project an importer, workspace: links in each form, shared preferred versions', async () => {
    const files = {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n  - \'!packages/ignored\'\n',
      'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.2.3', dependencies: { b: 'workspace:*', dep: '^1.0.0', 'c-range': 'workspace:c@^3.0.0' }, devDependencies: { 'b-alias': 'workspace:b@*', c: 'workspace:~' } }),
      'packages/b/package.json': JSON.stringify({ name: 'b', version: '2.0.0', dependencies: { dep: '1.1.0', a: 'workspace:../a' } }),
      'packages/c/package.json': JSON.stringify({ name: 'c', version: '3.1.0', dependencies: { '@scope/util': '^1.0.0' } }),
      'packages/ignored/package.json': JSON.stringify({ name: 'ignored', version: '1.0.0', dependencies: { 'old-pkg': '0.1.0' } }),
    }
    await compare({ name: 'ws-root', version: '1.0.0', private: true, dependencies: { a: 'workspace:^' } }, files)
  })
})

test('a package whose optional peers take it as their peer (a cycle among its providers), at the top and below: the lockfile pnpm 11 writes', async () => {
  const optional = (names: string[]): Record<string, { optional: true }> =>
    Object.fromEntries(names.map((name) => [name, { optional: true }]))
  const registry = await TestRegistry.start([
    { name: 'orm-core', version: '1.0.0', manifest: { peerDependencies: { 'orm-migrations': '^1.0.0', 'orm-postgresql': '^1.0.0' }, peerDependenciesMeta: optional(['orm-migrations', 'orm-postgresql']) } },
    { name: 'orm-migrations', version: '1.0.0', manifest: { peerDependencies: { 'orm-core': '^1.0.0' } } },
    { name: 'orm-knex', version: '1.0.0', manifest: { peerDependencies: { 'orm-core': '^1.0.0', 'orm-migrations': '^1.0.0' }, peerDependenciesMeta: optional(['orm-migrations']) } },
    {
      name: 'orm-postgresql',
      version: '1.0.0',
      dependencies: { 'orm-knex': '1.0.0' },
      manifest: { peerDependencies: { 'orm-core': '^1.0.0', 'orm-migrations': '^1.0.0' }, peerDependenciesMeta: optional(['orm-migrations']) },
    },
    { name: 'uses-orm', version: '1.0.0', dependencies: { 'orm-core': '1.0.0', 'orm-migrations': '1.0.0', 'orm-postgresql': '1.0.0' } },
  ])
  try {
    await compareLockfiles(registry, { name: 'app', version: '1.0.0', dependencies: { 'uses-orm': '1.0.0' } })
    await compareLockfiles(registry, { name: 'app', version: '1.0.0', dependencies: { 'orm-core': '1.0.0', 'orm-migrations': '1.0.0', 'orm-postgresql': '1.0.0' } })
  } finally {
    await registry.close()
  }
})
