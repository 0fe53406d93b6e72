import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { runDependencyBuilds } from '@lode/pkg-manager.building.lifecycle'
import type { BuildTarget } from '@lode/pkg-manager.building.lifecycle'

const OPTIONS = { concurrency: 4, initCwd: os.tmpdir(), userAgent: 'lode-test', onWarning: (): void => {} }

function target (root: string, name: string, deps: string[], scripts: Record<string, string> = {}): BuildTarget {
  const dir = path.join(root, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', scripts }))
  return { depPath: `${name}@1.0.0`, pkgId: `${name}@1.0.0`, dir, deps: deps.map((dep) => `${dep}@1.0.0`), optional: false }
}

test('runDependencyBuilds: a package builds after those it depends on; two in a cycle do not wait for each other', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-build-'))
  try {
    const log = path.join(root, 'order.txt')
    // Each build appends its name (run in its directory, beside this script).
    fs.writeFileSync(path.join(root, 'record.cjs'), `require('fs').appendFileSync(${JSON.stringify(log)}, process.argv[2] + '\\n')`)
    const record = (name: string): Record<string, string> => ({ postinstall: `node ../record.cjs ${name}` })
    const targets = [
      target(root, 'top', ['mid', 'cyc-a'], record('top')),
      target(root, 'mid', ['leaf'], record('mid')),
      target(root, 'leaf', [], record('leaf')),
      target(root, 'cyc-a', ['cyc-b'], record('cyc-a')),
      target(root, 'cyc-b', ['cyc-a'], record('cyc-b')),
    ]
    const { built, failed } = await runDependencyBuilds(targets, OPTIONS)
    assert.deepEqual([...built].sort(), ['cyc-a@1.0.0', 'cyc-b@1.0.0', 'leaf@1.0.0', 'mid@1.0.0', 'top@1.0.0'])
    assert.deepEqual(failed, [])
    const order = fs.readFileSync(log, 'utf8').trim().split('\n')
    assert.ok(order.indexOf('leaf') < order.indexOf('mid') && order.indexOf('mid') < order.indexOf('top'), order.join(','))
    assert.ok(order.indexOf('cyc-a') < order.indexOf('top') && order.indexOf('cyc-b') < order.indexOf('top'), order.join(','))
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

test('runDependencyBuilds: a chain of 5,000 build targets is walked without recursion', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-build-'))
  try {
    const n = 5000
    const targets = Array.from({ length: n }, (_, i) => target(root, `p${i}`, i + 1 < n ? [`p${i + 1}`] : []))
    const { built } = await runDependencyBuilds(targets, OPTIONS)
    assert.equal(built.length, n)
    // Dependencies first: the bottom of the chain builds first, its top last.
    assert.equal(built[0], `p${n - 1}@1.0.0`)
    assert.equal(built.at(-1), 'p0@1.0.0')
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

test('runDependencyBuilds: an optional package whose build fails is a warning, reported as failed; the others build', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-build-'))
  try {
    const warnings: string[] = []
    const targets = [
      { ...target(root, 'opt-fails', [], { postinstall: 'node -e "process.exit(3)"' }), optional: true },
      target(root, 'ok', [], { postinstall: 'node -e ""' }),
    ]
    const outcome = await runDependencyBuilds(targets, { ...OPTIONS, onWarning: (message) => { warnings.push(message) } })
    assert.deepEqual(outcome, { built: ['ok@1.0.0'], failed: ['opt-fails@1.0.0'] })
    assert.match(warnings.join('\n'), /opt-fails@1\.0\.0 postinstall: .* exited with code 3\.[\s\S]*It is an optional dependency/)
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})
