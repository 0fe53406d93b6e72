import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lode, lodeExactly, makeProject, snapshot } from './helpers.js'

// `lode audit deprecations` and `lode audit engines`, pnpm 12.24's commands (that pnpm is not on the
// registry this suite runs beside, so the expectations are its release notes': the packages, what
// each wants, what brings each in, exit code 1 when one is listed).

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'old-lib', version: '1.0.0', deprecated: 'old-lib is no longer maintained, use new-lib' },
    { name: 'old-lib', version: '2.0.0' },
    { name: 'uses-old', version: '1.0.0', dependencies: { 'old-lib': '1.0.0', 'new-lib': '1.0.0' } },
    { name: 'new-lib', version: '1.0.0' },
    { name: 'new-lib', version: '2.0.0' },
    { name: 'peered-old', version: '1.0.0', deprecated: 'peered-old is gone', manifest: { peerDependencies: { 'new-lib': '*' } } },
    { name: 'needs-future-node', version: '1.0.0', manifest: { engines: { node: '>=99' } } },
    { name: 'aix-only', version: '1.0.0', manifest: { os: ['aix'], cpu: ['ppc64'] } },
    { name: 'aix-optional', version: '1.0.0', manifest: { os: ['aix'] } },
    { name: 'loud-lib', version: '1.0.0', deprecated: 'gone\u001b[2J\nNo deprecated packages found' },
  ])
})
after(async () => { await registry.close() })

test('audit deprecations: the installed packages the registry marks deprecated, what brings each in, exit code 1; allowedDeprecatedVersions mutes one', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'old-lib': '1.0.0', 'uses-old': '1.0.0', 'new-lib': '1.0.0' } })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  const before = snapshot(project.dir)
  const found = await lodeExactly(project, ['audit', 'deprecations'])
  assert.equal(found.code, 1, found.stderr)
  assert.equal(found.stdout, [
    '1 deprecated package',
    '',
    'old-lib@1.0.0',
    '  old-lib is no longer maintained, use new-lib',
    '  Brought in by: project ., uses-old@1.0.0',
    '',
  ].join('\n'))
  const json = await lodeExactly(project, ['audit', 'deprecations', '--json'])
  assert.equal(json.code, 1)
  assert.deepEqual(JSON.parse(json.stdout), [{
    name: 'old-lib', version: '1.0.0', deprecated: 'old-lib is no longer maintained, use new-lib', broughtInBy: { projects: ['.'], packages: ['uses-old@1.0.0'] },
  }])
  assert.deepEqual([...snapshot(project.dir)], [...before], 'an audit writes nothing')

  const allowed = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'old-lib': '1.0.0' } }, { 'pnpm-workspace.yaml': 'allowedDeprecatedVersions:\n  old-lib: "1"\n' })
  assert.equal((await lode(allowed, ['install', '--lockfile-only'])).code, 0)
  const muted = await lodeExactly(allowed, ['audit', 'deprecations'])
  assert.equal(muted.code, 0, muted.stderr)
  assert.equal(muted.stdout, 'No deprecated packages found\n')

  // A package only a devDependency brings in is left out with --prod.
  const dev = makeProject(registry, { name: 'app', version: '1.0.0', devDependencies: { 'old-lib': '1.0.0' } })
  assert.equal((await lode(dev, ['install', '--lockfile-only'])).code, 0)
  assert.equal((await lodeExactly(dev, ['audit', 'deprecations', '--prod'])).code, 0)
  assert.equal((await lodeExactly(dev, ['audit', 'deprecations'])).code, 1)
})

test('audit engines: packages this Node.js (nodeVersion) or platform does not support, not the optional ones an install skips; --filter in a workspace', async () => {
  const project = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\nnodeVersion: 20.0.0\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { 'needs-future-node': '1.0.0', 'aix-only': '1.0.0' }, optionalDependencies: { 'aix-optional': '1.0.0' } }),
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { 'new-lib': '1.0.0' } }),
  })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  const found = await lodeExactly(project, ['audit', 'engines'])
  assert.equal(found.code, 1, found.stderr)
  assert.match(found.stdout, /^2 installed packages do not support Node\.js 20\.0\.0 on linux-\w+/)
  assert.match(found.stdout, /\n\naix-only@1\.0\.0\n {2}Wants: os aix; cpu ppc64\n {2}Brought in by: project packages\/a\n/)
  assert.match(found.stdout, /\n\nneeds-future-node@1\.0\.0\n {2}Wants: node >=99\n {2}Brought in by: project packages\/a\n$/)
  assert.doesNotMatch(found.stdout, /aix-optional/)
  const json = JSON.parse((await lodeExactly(project, ['audit', 'engines', '--json'])).stdout) as Array<{ name: string, wants: unknown }>
  assert.deepEqual(json.map((finding) => [finding.name, finding.wants]), [['aix-only', { os: ['aix'], cpu: ['ppc64'] }], ['needs-future-node', { node: '>=99' }]])
  const onlyB = await lodeExactly(project, ['audit', 'engines', '--filter', 'b'])
  assert.equal(onlyB.code, 0, onlyB.stderr)
  assert.match(onlyB.stdout, /^Every installed package supports Node\.js 20\.0\.0 on linux-/)
})

test('audit deprecations: the peer variants of a deprecated version are one finding, brought in by what brings in each', async () => {
  const project = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { 'peered-old': '1.0.0', 'new-lib': '1.0.0' } }),
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { 'peered-old': '1.0.0', 'new-lib': '2.0.0' } }),
  })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  const lockfile = fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8')
  assert.match(lockfile, /peered-old@1\.0\.0\(new-lib@1\.0\.0\):/)
  assert.match(lockfile, /peered-old@1\.0\.0\(new-lib@2\.0\.0\):/)
  const found = await lodeExactly(project, ['audit', 'deprecations'])
  assert.equal(found.code, 1, found.stderr)
  assert.equal(found.stdout, '1 deprecated package\n\npeered-old@1.0.0\n  peered-old is gone\n  Brought in by: project packages/a, project packages/b\n')
})

test('audit deprecations shows a message as one printable line: a terminal\'s controls and a newline escaped', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'loud-lib': '1.0.0' } })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  const found = await lodeExactly(project, ['audit', 'deprecations'])
  assert.equal(found.code, 1)
  assert.equal(found.stdout, '1 deprecated package\n\nloud-lib@1.0.0\n  gone\\u001b[2J\\nNo deprecated packages found\n  Brought in by: project .\n')
})

test('audit deprecations and engines without a lockfile: ERR_LODE_AUDIT_NO_LOCKFILE, nothing written', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'old-lib': '1.0.0' } })
  for (const check of ['deprecations', 'engines']) {
    const refused = await lodeExactly(project, ['audit', check])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, new RegExp(`^\\[ERR_LODE_AUDIT_NO_LOCKFILE\\] No pnpm-lock\\.yaml found: cannot audit the ${check} of a project without a lockfile\\.`))
  }
  assert.deepEqual([...snapshot(project.dir).keys()], ['package.json'])
})
