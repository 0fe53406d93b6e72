import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lode, lodeExactly, makeProject } from './helpers.js'
import type { Project } from './helpers.js'

// `lode edit`, pnpm 12's command (pnpm 11 has none): the directories and messages expected are
// pnpm 12.23.0's for the same layout (compared by hand: the test toolchain has pnpm 11 only).

let registry: TestRegistry
let project: Project
before(async () => {
  registry = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0' },
    { name: '@scope/mid', version: '2.0.0', dependencies: { leaf: '1.0.0' } },
  ])
  project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { '@scope/mid': '2.0.0' } })
  assert.equal((await lode(project, ['install'])).code, 0)
})
after(async () => { await registry.close() })

/** An editor that writes the directory it was given to a file, and exits with `code`. */
function editor (code: number): { command: string, opened: () => string | undefined } {
  const record = path.join(project.dir, '..', `opened-${code}.txt`)
  const script = path.join(project.dir, '..', `editor-${code}.sh`)
  fs.writeFileSync(script, `#!/bin/sh\nprintf '%s' "$1" > '${record}'\nexit ${code}\n`, { mode: 0o755 })
  return { command: script, opened: () => fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : undefined }
}

test('edit opens the installed package\'s real directory (a dependency of it with <pkg>/<dep>), then installs', async () => {
  const ok = editor(0)
  const opened = await lodeExactly(project, ['edit', '@scope/mid'], { EDITOR: ok.command })
  assert.equal(opened.code, 0, opened.stderr)
  assert.equal(ok.opened(), fs.realpathSync(path.join(project.dir, 'node_modules', '@scope', 'mid')))
  assert.match(ok.opened()!, /node_modules\/\.pnpm\/@scope\+mid@2\.0\.0\/node_modules\/@scope\/mid$/)
  assert.match(opened.stdout, /Done in /, 'the install ran')
  const nested = await lodeExactly(project, ['edit', '@scope/mid/leaf', '--editor', ok.command], { EDITOR: 'false' })
  assert.equal(nested.code, 0, nested.stderr)
  assert.match(ok.opened()!, /node_modules\/\.pnpm\/leaf@1\.0\.0\/node_modules\/leaf$/)
})

test('edit refuses a package not installed, a path that is no package name, and stops when the editor fails', async () => {
  const missing = await lodeExactly(project, ['edit', 'leaf'], { EDITOR: 'true' })
  assert.equal(missing.code, 1)
  assert.equal(missing.stderr.split('\n')[0], `[ERR_LODE_PACKAGE_NOT_FOUND] Could not find package 'leaf' under '${path.join(project.dir, 'node_modules')}'`)
  for (const bad of ['../../etc', '@scope/mid/..', 'a/node_modules']) {
    const refused = await lodeExactly(project, ['edit', bad], { EDITOR: 'true' })
    assert.equal(refused.code, 1, bad)
    assert.match(refused.stderr, /^\[ERR_LODE_(INVALID_PACKAGE_NAME|PACKAGE_NOT_FOUND)\] /, bad)
  }
  const failing = editor(3)
  const failed = await lodeExactly(project, ['edit', '@scope/mid'], { EDITOR: failing.command })
  assert.equal(failed.code, 1)
  assert.match(failed.stderr, /^\[ERR_LODE_EDITOR_FAILED\] Editor command exited with failure status/)
  assert.doesNotMatch(failed.stdout, /Done in /, 'no install after a failed edit')
  assert.equal((await lodeExactly(project, ['edit'])).code, 1)
})
