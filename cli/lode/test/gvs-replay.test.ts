import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { writeReplay } from '@lode/pkg-manager.installing.install-state/replay'

import { defaultStoreDir, isolatedEnv, lode, makeProject } from './helpers.js'
import type { Project } from './helpers.js'

// Under the global virtual store, node_modules holds only links into the store's slots, shims and
// small files: the CLI keeps a record of the tree an install made from nothing and, when
// node_modules is deleted and nothing else changed, writes it back before loading the installer.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0', manifest: { main: 'main.js' }, files: { 'main.js': 'module.exports = "leaf"\n' } },
    { name: 'mid', version: '1.0.0', dependencies: { leaf: '1.0.0' }, manifest: { main: 'main.js' }, files: { 'main.js': 'module.exports = "mid:" + require("leaf")\n' } },
    { name: 'tool', version: '1.0.0', bin: { tool: 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("tool")\n' } },
    { name: 'extra', version: '1.0.0', manifest: { main: 'main.js' }, files: { 'main.js': 'module.exports = "extra"\n' } },
  ])
})
after(async () => { await registry.close() })

const MANIFEST = { name: 'replay', version: '1.0.0', dependencies: { mid: '1.0.0', tool: '1.0.0' } }
const GVS = { 'pnpm-workspace.yaml': 'enableGlobalVirtualStore: true\n' }

const modulesDir = (project: Project, ...rest: string[]): string => path.join(project.dir, 'node_modules', ...rest)
const replayDir = (project: Project): string => path.join(project.home, '.local', 'state', 'lode', 'replay')

/** Everything under node_modules: each entry's kind, a link's target as written, a file's digest and mode. */
function tree (project: Project): string[] {
  return fs.readdirSync(modulesDir(project), { recursive: true }).map(String).sort().map((entry) => {
    const file = modulesDir(project, entry)
    const stat = fs.lstatSync(file)
    if (stat.isSymbolicLink()) return `${entry} -> ${fs.readlinkSync(file)}`
    if (stat.isDirectory()) return `${entry}/`
    return `${entry} ${createHash('sha256').update(fs.readFileSync(file)).digest('hex')} ${(stat.mode & 0o777).toString(8)}`
  })
}

/** The report without what changes from run to run (durations, how long ago). */
const report = (stdout: string): string => stdout.replace(/Done in \S+/, 'Done').replace(/verified \S+ ago/, 'verified ago')

function assertRequires (project: Project): void {
  assert.equal(createRequire(path.join(project.dir, 'index.js'))('mid'), 'mid:leaf')
}

/** A project whose last install made node_modules from nothing (the lockfile there already), so that a record exists. */
async function recorded (): Promise<{ project: Project, stdout: string, tree: string[], state: string }> {
  const project = makeProject(registry, MANIFEST, GVS)
  assert.equal((await lode(project, ['install'])).code, 0)
  // That install wrote the lockfile: its report is not one a warm install repeats, and it left no record.
  assert.ok(!fs.existsSync(replayDir(project)))
  fs.rmSync(modulesDir(project), { recursive: true })
  const full = await lode(project, ['install'])
  assert.equal(full.code, 0, full.stderr)
  assert.equal(fs.readdirSync(replayDir(project)).length, 1)
  return { project, stdout: full.stdout, tree: tree(project), state: fs.readFileSync(modulesDir(project, '.lode-state.json'), 'utf8') }
}

test('node_modules deleted under the global virtual store is written back from the record: the same tree and report as the full path, no request, then a no-op', async () => {
  const { project, stdout, tree: made, state } = await recorded()
  fs.rmSync(modulesDir(project), { recursive: true })
  const requests = registry.recorded.length
  const replayed = await lode(project, ['install'])
  assert.equal(replayed.code, 0, replayed.stderr)
  assert.equal(registry.recorded.length, requests, 'no request to the registry')
  assert.deepEqual(tree(project), made)
  assert.equal(report(replayed.stdout), report(stdout))
  // The full path writes its record anew (new stamps of a new .modules.yaml); the replay writes the recorded one back.
  assert.equal(fs.readFileSync(modulesDir(project, '.lode-state.json'), 'utf8'), state)
  assertRequires(project)
  assert.ok(fs.existsSync(modulesDir(project, '.bin', 'tool')))
  assert.deepEqual(fs.readdirSync(project.dir).filter((name) => name.includes('.replay-')), [])
  const noOp = await lode(project, ['install'])
  assert.match(noOp.stdout, /Already up to date/)
})

test('the record vouches for nothing that changed: a new dependency, a slot pruned from the store or a damaged record take the full path', async () => {
  const { project, state } = await recorded()
  // A dependency added while node_modules was gone.
  fs.rmSync(modulesDir(project), { recursive: true })
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ ...MANIFEST, dependencies: { ...MANIFEST.dependencies, extra: '1.0.0' } }))
  const added = await lode(project, ['install'])
  assert.equal(added.code, 0, added.stderr)
  assert.equal(createRequire(path.join(project.dir, 'index.js'))('extra'), 'extra')
  assert.notEqual(fs.readFileSync(modulesDir(project, '.lode-state.json'), 'utf8'), state)
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify(MANIFEST))
  fs.rmSync(modulesDir(project), { recursive: true })
  assert.equal((await lode(project, ['install'])).code, 0)

  // A slot the tree links to, gone from the store (as a prune elsewhere would leave it).
  const leafSlots = path.join(defaultStoreDir(project), 'v11', 'links', '@', 'leaf', '1.0.0')
  const [slot] = fs.readdirSync(leafSlots)
  fs.rmSync(modulesDir(project), { recursive: true })
  fs.rmSync(path.join(leafSlots, slot!), { recursive: true })
  const repaired = await lode(project, ['install'])
  assert.equal(repaired.code, 0, repaired.stderr)
  assert.ok(fs.existsSync(path.join(leafSlots, slot!, 'node_modules', 'leaf', 'main.js')), 'the full path made the slot again')
  assertRequires(project)

  // A record that cannot be written back whole (a file under a directory it does not make): nothing of it is left.
  const [recordFile] = fs.readdirSync(replayDir(project))
  const recordPath = path.join(replayDir(project), recordFile!)
  const record = JSON.parse(fs.readFileSync(recordPath, 'utf8')) as { trees: Array<{ entries: unknown[] }> }
  record.trees[0]!.entries.push(['f', 'missing-dir/file', Buffer.from('x').toString('base64'), 0o644])
  fs.writeFileSync(recordPath, JSON.stringify(record))
  fs.rmSync(modulesDir(project), { recursive: true })
  const fellBack = await lode(project, ['install'])
  assert.equal(fellBack.code, 0, fellBack.stderr)
  assert.ok(!fs.existsSync(modulesDir(project, 'missing-dir')))
  assert.deepEqual(fs.readdirSync(project.dir).filter((name) => name.includes('.replay-')), [])
  assertRequires(project)
})

test('without the global virtual store, no record is kept', async () => {
  const project = makeProject(registry, MANIFEST)
  assert.equal((await lode(project, ['install'])).code, 0)
  fs.rmSync(modulesDir(project), { recursive: true })
  assert.equal((await lode(project, ['install'])).code, 0)
  assert.ok(!fs.existsSync(replayDir(project)))
  assertRequires(project)
})

test('a tree holding more than links, shims and small files is not recorded, and an older record goes', async () => {
  const { project, state } = await recorded()
  fs.writeFileSync(modulesDir(project, 'big.bin'), Buffer.alloc(2 * 1024 * 1024))
  const quick = { dir: project.dir, key: (JSON.parse(state) as { quick: { key: string } }).quick.key }
  assert.equal(writeReplay(quick, isolatedEnv(project.home), []), false)
  assert.deepEqual(fs.readdirSync(replayDir(project)), [])
})
