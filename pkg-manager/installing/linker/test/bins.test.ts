import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { linkBins } from '@lode/pkg-manager.installing.linker'

import { writeShShim } from '../src/sh-shim.js'

function writePackage (dir: string, manifest: Record<string, unknown>, files: Record<string, string>): void {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest))
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), content, { mode: 0o644 })
}

test('linkBins writes runnable shims: a large target, a linked project read at its target, a missing file marked, a package\'s own missing file skipped', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-bins-'))
  // A bin far larger than the 4 KiB read for its shebang.
  const big = path.join(root, 'store', 'big')
  writePackage(big, { name: 'big', bin: { big: 'cli.js', gone: 'missing.js' } }, { 'cli.js': `#!/usr/bin/env node\nconsole.log('big ran')\n/*${'x'.repeat(200_000)}*/\n` })
  // A workspace project, linked from the importer's node_modules.
  const project = path.join(root, 'packages', 'tool')
  writePackage(project, { name: 'tool', bin: 'run.js' }, { 'run.js': '#!/usr/bin/env node\nconsole.log(\'tool ran\')\n' })
  const modules = path.join(root, 'app', 'node_modules')
  fs.mkdirSync(modules, { recursive: true })
  fs.symlinkSync(path.relative(modules, project), path.join(modules, 'tool'))

  const manifests = new Map<string, Promise<Record<string, unknown>>>()
  const binDir = path.join(modules, '.bin')
  const written = linkBins(binDir, [
    { dir: big, nodePath: [] },
    { dir: path.join(modules, 'tool'), nodePath: [], linked: true, target: project },
  ], { manifests })
  return written.then((names) => {
    assert.deepEqual(names.sort(), ['big', 'gone', 'tool'])
    // As pnpm 11: a declared file the package does not ship (a build may write it) gets a shim, marked as missing its target.
    assert.deepEqual(fs.readdirSync(binDir).sort(), ['big', 'gone', 'tool'])
    assert.match(fs.readFileSync(path.join(binDir, 'gone'), 'utf8'), /\n# cmd-shim-missing-target\n# cmd-shim-target=.*\/missing\.js\n$/)
    assert.equal(execFileSync(path.join(binDir, 'big'), { encoding: 'utf8' }), 'big ran\n')
    assert.equal(execFileSync(path.join(binDir, 'tool'), { encoding: 'utf8' }), 'tool ran\n')
    assert.equal(fs.statSync(path.join(binDir, 'big')).mode & 0o777, 0o755)
    assert.equal(fs.statSync(path.join(big, 'cli.js')).mode & 0o777, 0o755, 'a package\'s target is made executable')
    assert.equal(fs.statSync(path.join(project, 'run.js')).mode & 0o777, 0o644, 'a linked project\'s files keep their modes')
    assert.ok(fs.readFileSync(path.join(binDir, 'tool'), 'utf8').includes('../tool/run.js'), 'the shim goes through the link')
    assert.deepEqual([...manifests.keys()].sort(), [big, project].sort(), 'the linked project\'s package.json is read at its target')
    // In its own node_modules/.bin, a package's own missing file gets none (pnpm links only what exists there).
    const ownBinDir = path.join(big, 'node_modules', '.bin')
    return linkBins(ownBinDir, [{ dir: big, nodePath: [], own: true }], { manifests }).then(() => {
      assert.deepEqual(fs.readdirSync(ownBinDir).sort(), ['big'])
    })
  })
})

// A .bin made now gets its shims created without a removal each; an existing one has its shims
// replaced, never written through (a link planted where a shim goes); a target is made executable
// and read once per install however many projects link it (`heads`); the umask narrows no mode.
test('linkBins replaces what is in an existing .bin without writing through a planted link, reads each target once (heads), and sets 755 under any umask', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-bins-'))
  const pkg = path.join(root, 'store', 'tool')
  writePackage(pkg, { name: 'tool', bin: { tool: 'cli.js' } }, { 'cli.js': '#!/usr/bin/env node\nconsole.log(\'tool ran\')\n' })
  const outside = path.join(root, 'outside.txt')
  fs.writeFileSync(outside, 'not yours\n')
  const existing = path.join(root, 'a', 'node_modules', '.bin')
  fs.mkdirSync(existing, { recursive: true })
  fs.symlinkSync(outside, path.join(existing, 'tool'))
  const fresh = path.join(root, 'b', 'node_modules', '.bin')
  const heads = new Map<string, string | null>()
  const umask = process.umask(0o077)
  try {
    for (const binDir of [existing, fresh]) await linkBins(binDir, [{ dir: pkg, nodePath: [] }], { heads })
  } finally {
    process.umask(umask)
  }
  assert.equal(fs.readFileSync(outside, 'utf8'), 'not yours\n', 'the planted link was replaced, not written through')
  for (const binDir of [existing, fresh]) {
    const shim = path.join(binDir, 'tool')
    assert.equal(fs.lstatSync(shim).isFile(), true)
    assert.equal(fs.statSync(shim).mode & 0o777, 0o755)
    assert.equal(execFileSync(shim, { encoding: 'utf8' }), 'tool ran\n')
  }
  assert.deepEqual([...heads.values()], ['#!/usr/bin/env node\nconsole.log(\'tool ran\')\n'], 'one target, read once')
  fs.rmSync(root, { recursive: true })
})

// Told its directory was made just now (no removal first), the shim still replaces a file found
// there (another install's, a race): created anew, not written into.
test('writeShShim replaces a file it did not expect (replaces: false) rather than fail or write into it', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-bins-'))
  const target = path.join(root, 'cli.js')
  fs.writeFileSync(target, '#!/usr/bin/env node\nconsole.log(\'ran\')\n')
  const shim = path.join(root, 'tool')
  fs.writeFileSync(shim, 'stale\n', { mode: 0o600 })
  // A second name for the file found there: written into, it would change too.
  fs.linkSync(shim, path.join(root, 'other-name'))
  writeShShim(target, shim, { nodePath: [], head: fs.readFileSync(target, 'utf8'), replaces: false })
  assert.equal(fs.readFileSync(path.join(root, 'other-name'), 'utf8'), 'stale\n', 'a new file, the old one untouched')
  assert.equal(fs.statSync(shim).mode & 0o777, 0o755)
  assert.equal(execFileSync(shim, { encoding: 'utf8' }), 'ran\n')
  fs.rmSync(root, { recursive: true })
})
