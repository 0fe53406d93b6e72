import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject } from './helpers.js'
import type { Project } from './helpers.js'

// 120 packages of 30 files, in a chain of dependencies and with bins, so a kill lands mid-download, mid-link or mid-symlink.
const COUNT = 120
const PACKAGES: PackageSpec[] = Array.from({ length: COUNT }, (_, i) => ({
  name: `crash-${i}`,
  version: '1.0.0',
  ...(i + 1 < COUNT && i % 3 === 0 ? { dependencies: { [`crash-${i + 1}`]: '1.0.0' } } : {}),
  ...(i % 10 === 0 ? { bin: { [`crash-bin-${i}`]: 'cli.js' } } : {}),
  files: { 'index.js': `module.exports = ${i}`, 'cli.js': `#!/usr/bin/env node\nconsole.log(${i})\n`, ...Object.fromEntries(Array.from({ length: 28 }, (_, f) => [`lib/f${f}.js`, 'x'.repeat(1500)])) },
}))

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

const lodeBin = path.join(import.meta.dirname, '..', '..', 'bin', 'lode')

/** Every file and link under node_modules (temp dirs would show), with link targets and file sizes. */
function tree (project: Project): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
      const full = path.join(dir, entry.name)
      const rel = path.relative(project.dir, full)
      if (entry.name === '.modules.yaml' || entry.name === '.lode-state.json') continue
      if (entry.isSymbolicLink()) out.push(`${rel} -> ${fs.readlinkSync(full)}`)
      else if (entry.isDirectory()) walk(full)
      else out.push(`${rel} ${fs.statSync(full).size}`)
    }
  }
  walk(path.join(project.dir, 'node_modules'))
  return out
}

/** Starts `lode install` and kills it with SIGKILL after `delay` ms. */
async function killedInstall (project: Project, delay: number): Promise<void> {
  const child = spawn(process.execPath, [lodeBin, 'install'], {
    cwd: project.dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: project.home, XDG_CACHE_HOME: path.join(project.home, '.cache'), XDG_DATA_HOME: path.join(project.home, '.local', 'share') },
    stdio: 'ignore',
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  await new Promise((resolve) => setTimeout(resolve, delay))
  child.kill('SIGKILL')
  await exited
}

test('an install killed with SIGKILL at any moment is completed by the next one', async () => {
  const manifest = { name: 'crash', version: '1.0.0', dependencies: Object.fromEntries(PACKAGES.filter((_, i) => i % 3 === 0).map((p) => [p.name, p.version])) }
  // pnpm links a package's own bins beside it only when it resolved: a rerun that finds the
  // lockfile written installs it as it is. Either tree is complete.
  const reference = makeProject(registry, manifest)
  assert.equal((await lode(reference, ['install'])).code, 0)
  const resolvedTree = tree(reference)
  fs.rmSync(path.join(reference.dir, 'node_modules'), { recursive: true })
  assert.equal((await lode(reference, ['install'])).code, 0)
  const fromLockfileTree = tree(reference)
  for (const delay of [150, 350, 600, 900, 1300]) {
    const project = cloneProject(makeProject(registry, manifest))
    await killedInstall(project, delay)
    const rerun = await lode(project, ['install'])
    assert.equal(rerun.code, 0, `after a kill at ${delay} ms: ${rerun.stderr}`)
    const actual = tree(project)
    assert.deepEqual(actual, fs.existsSync(path.join(project.dir, 'node_modules', '.pnpm', 'crash-0@1.0.0', 'node_modules', 'crash-0', 'node_modules', '.bin', 'crash-bin-0')) ? resolvedTree : fromLockfileTree, `after a kill at ${delay} ms`)
    assert.equal(execFileSync(process.execPath, ['-e', 'console.log(require("crash-0") + require("crash-99"))'], { cwd: project.dir, encoding: 'utf8' }).trim(), '99')
    assert.equal(execFileSync(path.join(project.dir, 'node_modules', '.bin', 'crash-bin-30'), { encoding: 'utf8' }).trim(), '30')
  }
})
