import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm, readLockfileText } from './helpers.js'
import type { Project } from './helpers.js'

// `lode link <dir>` and `lode unlink` beside pnpm 11's: the same package.json, pnpm-workspace.yaml
// and lockfile after each, the dependency a link to the directory.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep', version: '1.0.0', files: { 'index.js': 'module.exports = "registry dep"' } },
  ])
})
after(async () => { await registry.close() })

const read = (project: Project, file: string): string | null => fs.existsSync(path.join(project.dir, file)) ? fs.readFileSync(path.join(project.dir, file), 'utf8') : null

/** A project, and beside it two local packages (one the project already depends on from the registry). */
function projectWithLocals (): Project {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: '^1.0.0' } })
  for (const [name, dir] of [['dep', 'local-dep'], ['tool', 'tool-src']] as const) {
    fs.mkdirSync(path.join(path.dirname(project.dir), dir))
    fs.writeFileSync(path.join(path.dirname(project.dir), dir, 'package.json'), JSON.stringify({ name, version: '9.0.0' }))
    fs.writeFileSync(path.join(path.dirname(project.dir), dir, 'index.js'), `module.exports = "local ${name}"`)
  }
  return project
}

/** A copy beside its own copies of the local packages (the links are relative). */
function cloneWithLocals (project: Project): Project {
  const copy = cloneProject(project)
  for (const dir of ['local-dep', 'tool-src']) fs.cpSync(path.join(path.dirname(project.dir), dir), path.join(path.dirname(copy.dir), dir), { recursive: true })
  return copy
}

test('lode link <dir> and lode unlink write what pnpm 11 writes and link the directory', async () => {
  const pnpmProject = projectWithLocals()
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneWithLocals(pnpmProject)
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  for (const args of [['link', '../local-dep', '../tool-src'], ['unlink', 'tool'], ['unlink']]) {
    await pnpm(pnpmProject, args)
    const result = await lode(lodeProject, args)
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
    for (const file of ['package.json', 'pnpm-workspace.yaml']) assert.equal(read(lodeProject, file), read(pnpmProject, file), `${file} after ${args.join(' ')}`)
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject), `pnpm-lock.yaml after ${args.join(' ')}`)
    if (args[0] === 'link') {
      assert.equal(fs.realpathSync(path.join(lodeProject.dir, 'node_modules', 'tool')), fs.realpathSync(path.join(path.dirname(lodeProject.dir), 'tool-src')))
      assert.equal(fs.realpathSync(path.join(lodeProject.dir, 'node_modules', 'dep')), fs.realpathSync(path.join(path.dirname(lodeProject.dir), 'local-dep')))
    }
  }
  assert.equal(fs.readFileSync(path.join(lodeProject.dir, 'node_modules', 'dep', 'index.js'), 'utf8'), 'module.exports = "registry dep"', 'unlinked: the registry\'s again')
  assert.equal((await lode(lodeProject, ['unlink'])).stdout, 'Nothing to unlink\n')
})

test('lode link refuses a name, and a failed install puts package.json and pnpm-workspace.yaml back', async () => {
  const project = projectWithLocals()
  const byName = await lode(project, ['link', 'tool'])
  assert.equal(byName.code, 1)
  assert.match(byName.stderr, /^\[ERR_LODE_LINK_BAD_PARAMS\] Cannot link by package name\. Use a relative or absolute path instead, e\.g\. "lode link \.\/tool"/)
  // The project depends on a package the registry lacks: the install after the link fails.
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { dep: '^1.0.0', missing: '1.0.0' } }))
  const manifestBefore = read(project, 'package.json')
  const failed = await lode(project, ['link', '../tool-src'])
  assert.notEqual(failed.code, 0)
  assert.equal(read(project, 'package.json'), manifestBefore)
  assert.equal(read(project, 'pnpm-workspace.yaml'), null)
})
