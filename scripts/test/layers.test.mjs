// The layers hold by lint: ESLint refuses an import that runs upward (eslint.config.js's tiers),
// and check-imports refuses a file cycle and a package cycle. Linted as source files of this
// repository would be, through ESLint's own API.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import process from 'node:process'
import { test } from 'node:test'
import { promisify } from 'node:util'

import { ESLint } from 'eslint'

const root = path.resolve(import.meta.dirname, '../..')
const eslint = new ESLint({ cwd: root })

/** The layer rule's messages for `source` linted as the file `file` of this repository. */
async function layerErrors (file, source) {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) })
  return result.messages.filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'no-restricted-syntax').map((message) => message.message)
}

const use = (name, from) => `import { ${name} } from '${from}'\n\nexport const used = ${name}\n`

test('lint refuses an import from a higher tier, and from pkg-manager/core inside pkg-manager', async () => {
  const upward = await layerErrors('resolving/npm-resolver/src/index.ts', use('getConfig', '@lode/pkg-manager.config.settings'))
  assert.equal(upward.length, 1)
  assert.match(upward[0], /resolving\/ imports only from core, fs, resolving .*never upward/)
  const storeToWorker = await layerErrors('store/cafs/src/index.ts', use('LinkPool', '@lode/worker.pools'))
  assert.match(storeToWorker[0] ?? '', /store\/ imports only from core, fs, store/)
  const cliToLinker = await layerErrors('cli/lode/src/index.ts', use('linkPackages', '@lode/pkg-manager.installing.linker'))
  assert.equal(cliToLinker.length, 0, 'cli may import pkg-manager packages')
  const toCore = await layerErrors('pkg-manager/installing/linker/src/index.ts', use('install', '@lode/pkg-manager.core'))
  assert.match(toCore[0] ?? '', /pkg-manager\/core orchestrates the other packages; none of them imports it/)
})

test('lint refuses an upward import() as it refuses an upward import', async () => {
  const lazy = (from) => `export const load = async () => await import('${from}')\n`
  const upward = await layerErrors('cli/lode/src/index.ts', lazy('@lode/store.cafs'))
  assert.equal(upward.length, 1)
  assert.match(upward[0], /cli\/ imports only from core, pkg-manager .*never upward/)
  const toCore = await layerErrors('pkg-manager/installing/linker/src/index.ts', lazy('@lode/pkg-manager.core'))
  assert.match(toCore[0] ?? '', /pkg-manager\/core orchestrates the other packages; none of them imports it/)
  assert.deepEqual(await layerErrors('cli/lode/src/index.ts', lazy('@lode/pkg-manager.core')), [])
  assert.deepEqual(await layerErrors('pkg-manager/core/src/index.ts', lazy('@lode/store.cafs')), [])
})

test('lint lets an import go down or stay in its tier', async () => {
  assert.deepEqual(await layerErrors('pkg-manager/installing/linker/src/index.ts', use('LinkPool', '@lode/worker.pools')), [])
  assert.deepEqual(await layerErrors('resolving/npm-resolver/src/index.ts', use('LodeError', '@lode/core.error')), [])
  assert.deepEqual(await layerErrors('core/error/src/index.ts', use('nameOf', '@lode/core.dep-path')), [])
})

test('check-imports refuses a file cycle and a package cycle, and passes this repository', async () => {
  const run = promisify(execFile)
  const script = path.join(root, 'scripts/check-imports.mjs')
  await run(process.execPath, [script])
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-layers-'))
  try {
    const pkg = (name, deps, files) => {
      const pkgDir = path.join(dir, 'tier', name)
      fs.mkdirSync(path.join(pkgDir, 'src'), { recursive: true })
      fs.writeFileSync(path.join(pkgDir, 'package.json'), JSON.stringify({ name: `@lode/tier.${name}`, dependencies: deps }))
      for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(pkgDir, 'src', file), text)
    }
    fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'packages:\n  - tier/*\n')
    pkg('a', { '@lode/tier.b': 'workspace:*' }, { 'x.ts': "import type { Y } from './y.js'\n", 'y.ts': "import { x } from './x.js'\n" })
    pkg('b', { '@lode/tier.a': 'workspace:*' }, { 'index.ts': 'export {}\n' })
    const failed = await run(process.execPath, [script, dir]).then(() => undefined, (err) => err)
    assert.ok(failed !== undefined, 'check-imports passed a tree with cycles')
    assert.equal(failed.code, 1)
    assert.match(failed.stderr, /tier\/a: files import each other: x\.ts → y\.ts → x\.ts/)
    assert.match(failed.stderr, /packages depend on each other: @lode\/tier\.a → @lode\/tier\.b → @lode\/tier\.a/)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
