import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { compareLockfiles, isolatedEnv, lode, lodeBin, makeProject, readLockfileText } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

/*
 * A registry serves a dependency chain as deep as it likes (chain-0 → chain-1 → … ): lode installs
 * it, installs it again from the lockfile it wrote, and shows it (why, list), walking the graph
 * on explicit stacks. pnpm 11 itself runs out of stack on a chain of 2,000 (and at times on one of
 * 800, as its stack use varies from run to run); beside it, a chain it takes with room to spare,
 * with peers at its bottom, gets pnpm's lockfile byte for byte.
 */
const DEPTH = 3_000
const COMPARED_DEPTH = 500

const run = promisify(execFile)
let registry: TestRegistry

function chain (prefix: string, depth: number, bottom: Partial<PackageSpec> = {}): PackageSpec[] {
  return Array.from({ length: depth }, (_, i): PackageSpec => i < depth - 1
    ? { name: `${prefix}-${i}`, version: '1.0.0', dependencies: { [`${prefix}-${i + 1}`]: '^1.0.0' } }
    : { name: `${prefix}-${i}`, version: '1.0.0', ...bottom })
}

before(async () => {
  registry = await TestRegistry.start([
    ...chain('chain', DEPTH),
    // The bottom of the compared chain wants a peer the project has, and one nobody has (auto-installed).
    ...chain('peered', COMPARED_DEPTH, { manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0' } } }),
    { name: 'peer-a', version: '1.0.0' },
    { name: 'peer-b', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

/** lode with room for what a tree thousands of levels deep prints (the helper's buffer is 1 MiB). */
async function lodeLong (project: Project, args: string[]): Promise<RunResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [lodeBin, ...args, '--reporter=append-only'], {
      cwd: project.dir,
      env: isolatedEnv(project.home),
      maxBuffer: 256 * 1024 * 1024,
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number, stdout: string, stderr: string }
    return { code, stdout, stderr }
  }
}

/** Node's require, from the project down the chain: each package finds the next, the last is itself. */
function assertRequirable (project: Project): void {
  let dir = project.dir
  for (let i = 0; i < DEPTH - 1; i++) {
    const entry = createRequire(path.join(dir, 'package.json')).resolve(`chain-${i}`)
    dir = path.dirname(fs.realpathSync(entry))
  }
  assert.equal(path.basename(dir), `chain-${DEPTH - 2}`)
  assert.deepEqual(createRequire(path.join(dir, 'package.json'))(`chain-${DEPTH - 1}`), { name: `chain-${DEPTH - 1}`, version: '1.0.0' })
}

test(`a ${DEPTH}-level chain installs, installs again from its lockfile (--frozen-lockfile), and is shown whole by why and list`, async (t) => {
  const project = makeProject(registry, { name: 'deep', version: '1.0.0', dependencies: { 'chain-0': '^1.0.0' } })
  let started = Date.now()
  const installed = await lode(project, ['install'])
  t.diagnostic(`install: ${Date.now() - started} ms`)
  assert.equal(installed.code, 0, `${installed.stdout}\n${installed.stderr}`)
  const lockfile = readLockfileText(project)
  assert.equal(lockfile.match(/^ {2}chain-\d+@1\.0\.0:( {})?$/gm)?.length, DEPTH * 2, 'each package has its packages and snapshots entries')
  assert.match(lockfile, new RegExp(`^ {2}chain-${DEPTH - 2}@1\\.0\\.0:\\n {4}dependencies:\\n {6}chain-${DEPTH - 1}: 1\\.0\\.0$`, 'm'))
  assertRequirable(project)

  fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
  started = Date.now()
  const frozen = await lode(project, ['install', '--frozen-lockfile'])
  t.diagnostic(`install --frozen-lockfile: ${Date.now() - started} ms`)
  assert.equal(frozen.code, 0, `${frozen.stdout}\n${frozen.stderr}`)
  assert.equal(readLockfileText(project), lockfile, 'the lockfile is kept byte for byte')
  assertRequirable(project)

  // pnpm's tree: the package, its dependents up to the project, each a level further in.
  const why = await lodeLong(project, ['why', `chain-${DEPTH - 1}`])
  assert.equal(why.code, 0, why.stderr)
  const whyLines = why.stdout.trimEnd().split('\n')
  assert.equal(whyLines.length, DEPTH + 3)
  assert.deepEqual(whyLines.slice(0, 3), [`chain-${DEPTH - 1}@1.0.0`, `└─┬ chain-${DEPTH - 2}@1.0.0`, `  └─┬ chain-${DEPTH - 3}@1.0.0`])
  assert.deepEqual(whyLines.slice(-3), [`${'  '.repeat(DEPTH - 1)}└── deep@1.0.0 (dependencies)`, '', `Found 1 version of chain-${DEPTH - 1}`])
  const whyPath = await lodeLong(project, ['why', `chain-${DEPTH - 1}`, '--parseable'])
  assert.equal(whyPath.code, 0, whyPath.stderr)
  assert.equal(whyPath.stdout.trim(), ['deep@1.0.0', ...Array.from({ length: DEPTH }, (_, i) => `chain-${i}@1.0.0`)].join(' > '))

  const listed = await lodeLong(project, ['list', '--depth', 'Infinity'])
  assert.equal(listed.code, 0, listed.stderr)
  const listLines = listed.stdout.trimEnd().split('\n')
  assert.ok(listLines.includes(`${'  '.repeat(DEPTH - 1)}└── chain-${DEPTH - 1}@1.0.0`), 'the bottom of the chain is listed under the rest')
  assert.equal(listLines.at(-1), `${DEPTH} packages`)
  const parseable = await lodeLong(project, ['list', '--depth', 'Infinity', '--parseable'])
  assert.equal(parseable.code, 0, parseable.stderr)
  assert.equal(parseable.stdout.trim().split('\n').length, DEPTH + 1)
})

test(`a ${COMPARED_DEPTH}-level chain whose bottom wants a peer the project has and one it lacks gets pnpm 11's lockfile`, async () => {
  const { lodeProject } = await compareLockfiles(registry, { name: 'peered', version: '1.0.0', dependencies: { 'peered-0': '^1.0.0', 'peer-a': '^1.0.0' } })
  const lockfile = readLockfileText(lodeProject)
  // Every package of the chain carries the peers its bottom resolved in its dependency path.
  assert.match(lockfile, /^ {2}peered-0@1\.0\.0\(peer-a@1\.0\.0\)\(peer-b@1\.0\.0\):$/m)
  assert.match(lockfile, new RegExp(`^ {2}peered-${COMPARED_DEPTH - 1}@1\\.0\\.0\\(peer-a@1\\.0\\.0\\)\\(peer-b@1\\.0\\.0\\):$`, 'm'))
})
