import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, lodeExactly, makeProject, pnpm, pnpmExactly } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode store status` and `lode store prune` beside pnpm 11's, each tool with its own store.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    // No index.js of their own: the fixture's tarballs have one, and a second entry of a name leaves a store file behind.
    { name: 'leaf', version: '1.0.0', files: { 'README.md': '# leaf\n'.repeat(200) } },
    { name: 'top', version: '1.0.0', dependencies: { leaf: '^1.0.0' } },
  ])
})
after(async () => { await registry.close() })

const MANIFEST = { name: 'st', version: '1.0.0', dependencies: { top: '1.0.0' } }

async function installedPair (): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const pnpmProject = makeProject(registry, MANIFEST)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  return { pnpmProject, lodeProject }
}

async function compare (pair: { pnpmProject: Project, lodeProject: Project }, args: string[], label: string): Promise<RunResult> {
  const expected = await pnpmExactly(pair.pnpmProject, args)
  const actual = await lodeExactly(pair.lodeProject, args)
  assert.equal(actual.code, expected.code, `${label}: exit code\n${actual.stderr}`)
  assert.equal(actual.stdout, expected.stdout, `${label}: stdout`)
  const normalize = (text: string, project: Project): string => text.replaceAll(project.home, '<home>').replace('ERR_PNPM_', 'ERR_LODE_')
  assert.equal(normalize(actual.stderr, pair.lodeProject), normalize(expected.stderr, pair.pnpmProject), `${label}: stderr`)
  return actual
}

test('lode store path prints what pnpm 11 prints: pnpm\'s default store, storeDir (~/, relative, ending in v11), PNPM_HOME, XDG_DATA_HOME', async () => {
  const project = makeProject(registry, MANIFEST)
  const elsewhere = path.join(path.dirname(project.dir), 'elsewhere')
  const cases: Array<{ yaml?: string, env?: Record<string, string>, expected: string }> = [
    { expected: path.join(project.home, '.local', 'share', 'pnpm', 'store', 'v11') },
    { yaml: 'storeDir: ~/s\n', expected: path.join(project.home, 's', 'v11') },
    { yaml: 'storeDir: ../rel\n', expected: path.join(path.dirname(project.dir), 'rel', 'v11') },
    { yaml: `storeDir: ${elsewhere}/v11\n`, expected: path.join(elsewhere, 'v11') },
    { env: { PNPM_HOME: path.join(project.home, 'pnpm-home') }, expected: path.join(project.home, 'pnpm-home', 'store', 'v11') },
    { env: { XDG_DATA_HOME: path.join(project.home, 'data') }, expected: path.join(project.home, 'data', 'pnpm', 'store', 'v11') },
  ]
  for (const { yaml, env = {}, expected } of cases) {
    const label = `${yaml ?? 'no storeDir'} ${JSON.stringify(env)}`
    fs.rmSync(path.join(project.dir, 'pnpm-workspace.yaml'), { force: true })
    if (yaml !== undefined) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), yaml)
    const fromPnpm = await pnpmExactly(project, ['store', 'path'], env)
    assert.equal(fromPnpm.stdout, `${expected}\n`, `pnpm, ${label}`)
    assert.deepEqual(await lodeExactly(project, ['store', 'path'], env), fromPnpm, label)
  }
  assert.deepEqual(fs.readdirSync(project.dir), ['package.json'], 'the probe for hard links leaves nothing behind')
})

const installedFile = (project: Project, pkg: string, file: string): string => path.join(project.dir, 'node_modules', '.pnpm', `${pkg}@1.0.0`, 'node_modules', pkg, file)

test('lode store status: untouched after an install; a file changed in node_modules (the store\'s, hard-linked) or gone is reported, as pnpm 11 does', async () => {
  const pair = await installedPair()
  const clean = await compare(pair, ['store', 'status'], 'untouched')
  assert.equal(clean.stderr, 'Packages in the store are untouched\n')
  for (const project of [pair.pnpmProject, pair.lodeProject]) fs.appendFileSync(installedFile(project, 'leaf', 'index.js'), '\n// changed')
  const changed = await compare(pair, ['store', 'status'], 'one package changed')
  assert.match(changed.stderr, /ERR_LODE_MODIFIED_DEPENDENCY[^\n]*\n\nThese packages are modified:\nleaf@1\.0\.0\n$/)
  for (const project of [pair.pnpmProject, pair.lodeProject]) fs.rmSync(installedFile(project, 'top', 'index.js'))
  await compare(pair, ['store', 'status'], 'a file gone too')
})

test('lode store prune removes what no install links to (files, index rows), as pnpm 11 does; an install afterwards fetches them again', async () => {
  const pair = await installedPair()
  const nothing = await compare(pair, ['store', 'prune'], 'nothing to prune')
  assert.equal(nothing.stderr, 'Removed all cached metadata files\nRemoved 0 files (0 B)\nRemoved 0 packages\n')
  for (const project of [pair.pnpmProject, pair.lodeProject]) fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
  const pruned = await compare(pair, ['store', 'prune'], 'node_modules gone')
  assert.match(pruned.stderr, /Removed [1-9]\d* files \([\d.]+ kB\)\nRemoved 2 packages\n$/)
  assert.equal((await lodeExactly(pair.lodeProject, ['store', 'prune'])).stderr, nothing.stderr, 'nothing left to prune')
  const before = registry.tarballRequests.length
  const again = await lode(pair.lodeProject, ['install'])
  assert.equal(again.code, 0, again.stderr)
  assert.equal(registry.tarballRequests.length - before, 2, 'both packages downloaded again')
  assert.equal((await lodeExactly(pair.lodeProject, ['store', 'status'])).stderr, 'Packages in the store are untouched\n')
})

test('lode store prune reports a directory among the store files, and removes it with --force, as pnpm 11 does', async () => {
  const pair = await installedPair()
  const storeOf = async (project: Project, tool: typeof lodeExactly): Promise<string> => (await tool(project, ['store', 'path'])).stdout.trim()
  for (const [project, tool] of [[pair.pnpmProject, pnpmExactly], [pair.lodeProject, lodeExactly]] as const) {
    fs.mkdirSync(path.join(await storeOf(project, tool), 'files', '00', 'alien-dir'), { recursive: true })
  }
  const warned = await compare(pair, ['store', 'prune'], 'alien directory')
  assert.match(warned.stderr, /An alien directory is present in the store: .*alien-dir\n/)
  const forced = await compare(pair, ['store', 'prune', '--force'], '--force')
  assert.match(forced.stderr, /An alien directory has been removed from the store: .*\nRemoved 1 file \(0 B\)\n/)
  const noForce = await lodeExactly(pair.lodeProject, ['store', 'status', '--force'])
  assert.equal(noForce.code, 1)
  assert.match(noForce.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] lode store status takes no --force\./)
  fs.writeFileSync(path.join(pair.lodeProject.dir, 'pnpm-workspace.yaml'), 'nodeLinker: hoisted\n')
  const hoisted = await lodeExactly(pair.lodeProject, ['store', 'status'])
  assert.equal(hoisted.code, 1)
  assert.match(hoisted.stderr, /^\[ERR_LODE_STORE_STATUS_HOISTED\] /)
})
