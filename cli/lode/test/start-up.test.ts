import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lodeBin, makeProject } from './helpers.js'

// bin/lode checks the Node.js it runs on before it loads anything: an older one gets one coded line.

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start([{ name: 'is-positive', version: '1.0.0' }]) })
after(async () => { await registry.close() })

const UNSUPPORTED = /^\[ERR_LODE_UNSUPPORTED_NODE\] lode needs Node\.js 22\.13 or newer; this is Node\.js (\S+)\.\n/

/** Runs bin/lode with `node`, Node's version faked to `version` when given (a preload redefines it). */
function runLode (node: string, args: string[], cwd: string, version?: string): { status: number | null, stdout: string, stderr: string } {
  const preload = version === undefined ? [] : ['--import', `data:text/javascript,Object.defineProperty(process.versions,"node",{value:${JSON.stringify(version)}})`]
  const result = spawnSync(node, [...preload, lodeBin, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: path.join(cwd, '..', 'home') } })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

test('a Node.js older than 22.13 gets ERR_LODE_UNSUPPORTED_NODE on every path, and nothing is written', () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { 'is-positive': '1.0.0' } })
  for (const args of [['--version'], ['install'], ['why', 'x'], ['no-such-command']]) {
    const old = runLode(process.execPath, args, project.dir, '22.12.0')
    assert.equal(old.status, 1, args.join(' '))
    assert.match(old.stderr, UNSUPPORTED, args.join(' '))
    assert.equal(old.stdout, '')
  }
  assert.deepEqual(fs.readdirSync(project.dir), ['package.json'])
  const supported = runLode(process.execPath, ['--version'], project.dir, '22.13.0')
  assert.equal(supported.status, 0, supported.stderr)
})

test('a real older Node.js on the PATH (the machine\'s own, when it has one) gets the same line for an install with work to do', (t) => {
  const olderNodes = (process.env['PATH'] ?? '').split(path.delimiter).map((dir) => path.join(dir, 'node'))
    .filter((node) => fs.existsSync(node) && fs.realpathSync(node) !== fs.realpathSync(process.execPath))
    .filter((node) => Number(execFileSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim()) < 22)
  if (olderNodes.length === 0) {
    t.skip('no Node.js older than 22 on the PATH (the faked version above covers the check)')
    return
  }
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { 'is-positive': '1.0.0' } })
  const result = runLode(olderNodes[0]!, ['install'], project.dir)
  assert.equal(result.status, 1)
  assert.match(result.stderr, UNSUPPORTED)
  assert.deepEqual(fs.readdirSync(project.dir), ['package.json'])
})
