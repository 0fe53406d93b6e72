import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lodeExactly, makeProject, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

// `lode bugs`, `docs` and `repo` beside pnpm 11's: pnpm opens the page through `xdg-open`, here a
// script on PATH that records the URL; lode prints it (and opens it only on a terminal).

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'tool', version: '1.0.0', manifest: { homepage: 'https://tool.example.test', repository: { type: 'git', url: 'git+https://github.com/owner/tool.git', directory: 'packages/tool' } } },
    { name: 'bare', version: '1.0.0', manifest: { repository: 'https://git.example.test/team/bare.git' } },
  ])
})
after(async () => { await registry.close() })

/** A PATH whose `xdg-open` appends its argument to `opened` in the project's parent directory. */
function openerPath (p: Project): Record<string, string> {
  const bin = path.join(p.dir, '..', 'bin')
  fs.mkdirSync(bin, { recursive: true })
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> "${path.join(p.dir, '..', 'opened')}"\n`, { mode: 0o755 })
  return { PATH: `${bin}${path.delimiter}${process.env['PATH'] ?? ''}` }
}

async function openedByPnpm (p: Project, args: string[]): Promise<string> {
  const file = path.join(p.dir, '..', 'opened')
  fs.rmSync(file, { force: true })
  const run = await pnpmExactly(p, args, openerPath(p))
  assert.equal(run.code, 0, run.stdout + run.stderr)
  for (let waited = 0; !fs.existsSync(file) && waited < 5000; waited += 50) await sleep(50)
  return fs.readFileSync(file, 'utf8')
}

test('bugs, docs and repo name the page pnpm 11 opens, for the project and for registry packages', async () => {
  const p = makeProject(registry, { name: 'app', version: '1.0.0', repository: 'github:owner/app' })
  for (const args of [['bugs'], ['repo'], ['docs', 'tool'], ['home', 'bare'], ['repo', 'tool'], ['repo', 'bare'], ['issues', 'bare'], ['bugs', 'tool']]) {
    const byLode = await lodeExactly(p, args)
    assert.equal(byLode.code, 0, `${args.join(' ')}: ${byLode.stderr}`)
    // A directory's page: pnpm 11's hosted-git-info (9) says the `master` branch, lode's (10) `HEAD`, which
    // the host sends to the default branch whatever its name.
    assert.equal(byLode.stdout, (await openedByPnpm(p, args)).replace('/tree/master/', '/tree/HEAD/'), args.join(' '))
  }
  assert.equal((await lodeExactly(p, ['repo', 'tool'])).stdout, 'https://github.com/owner/tool/tree/HEAD/packages/tool\n')
})

test('a project without a repository, and docs without a name, are refused as pnpm 11 refuses them', async () => {
  const p = makeProject(registry, { name: 'app', version: '1.0.0' })
  for (const [args, code] of [[['bugs'], 'NO_BUGS_URL'], [['repo'], 'NO_REPO_URL'], [['docs'], 'MISSING_PACKAGE_NAME']] as const) {
    const byPnpm = await pnpmExactly(p, [...args], openerPath(p))
    const byLode = await lodeExactly(p, [...args])
    assert.match(byPnpm.stdout + byPnpm.stderr, new RegExp(`ERR_PNPM_${code}`), args.join(' '))
    assert.equal(byLode.code, 1)
    assert.match(byLode.stderr, new RegExp(`^\\[ERR_LODE_${code}\\]`), args.join(' '))
  }
})
