import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lode, lodeExactly, makeProject, pnpm, pnpmExactly, projectFile, stepsBesidePnpm } from './helpers.js'
import type { Project } from './helpers.js'

// The pnpm settings public workspaces set most, that lode refused before (counted over their
// pnpm-workspace.yaml files: see pkg-manager/core/README.md), each beside pnpm 11 on copies of one project.

/** A script that appends its NODE_OPTIONS to `node-options.txt` in the directory install or run started from. */
const SHOW_NODE_OPTIONS = (who: string): string =>
  `node -e "require('fs').appendFileSync(require('path').join(process.env.INIT_CWD, 'node-options.txt'), '${who}: ' + process.env.NODE_OPTIONS + '\\n')"`

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'kept', version: '1.0.0' },
    { name: 'kept', version: '1.1.0' },
    { name: 'with-dep', version: '1.0.0', dependencies: { dep: '^1.0.0' } },
    { name: 'plat-linux', version: '1.0.0', manifest: { os: ['linux'], cpu: ['x64', 'arm64'] } },
    { name: 'plat-darwin', version: '1.0.0', manifest: { os: ['darwin'], cpu: ['arm64'] } },
    { name: 'plat-win', version: '1.0.0', manifest: { os: ['win32'], cpu: ['x64'] } },
    { name: 'plat-musl', version: '1.0.0', manifest: { os: ['linux'], libc: ['musl'] } },
    { name: 'native', version: '1.0.0', manifest: { optionalDependencies: { 'plat-linux': '1.0.0', 'plat-darwin': '1.0.0', 'plat-win': '1.0.0', 'plat-musl': '1.0.0' } } },
    { name: 'built', version: '1.0.0', manifest: { scripts: { postinstall: SHOW_NODE_OPTIONS('built') } } },
  ])
})
after(async () => { await registry.close() })

test('hoist: false hoists nothing into node_modules/.pnpm/node_modules, as pnpm 11', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'with-dep': '1.0.0' } }, { 'pnpm-workspace.yaml': 'hoist: false\n' })
  const { lodeProject } = await stepsBesidePnpm(project, [['install']])
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'node_modules', 'dep')), false)
})

test('ignoreScripts: true runs no install script, --no-ignore-scripts runs them again, as pnpm 11', async () => {
  const script = 'node -e "require(\'fs\').appendFileSync(\'ran.txt\', \'postinstall\\n\')"'
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: '1.0.0' }, scripts: { postinstall: script } }, {
    'pnpm-workspace.yaml': 'ignoreScripts: true\n',
  })
  const { lodeProject, pnpmProject } = await stepsBesidePnpm(project, [['install']])
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'ran.txt')), false)
  for (const of of [lodeProject, pnpmProject]) fs.rmSync(path.join(of.dir, 'node_modules'), { recursive: true })
  await pnpm(pnpmProject, ['install', '--no-ignore-scripts'])
  const run = await lode(lodeProject, ['install', '--no-ignore-scripts'])
  assert.equal(run.code, 0, run.stdout + run.stderr)
  assert.equal(projectFile(lodeProject, 'ran.txt'), projectFile(pnpmProject, 'ran.txt'))
  assert.equal(projectFile(lodeProject, 'ran.txt'), 'postinstall\n')
})

test('ignoreWorkspaceRootCheck: true lets add change the workspace root without -w, as pnpm 11', async () => {
  const project = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\nignoreWorkspaceRootCheck: true\n',
    'packages/a/package.json': '{"name":"a","version":"1.0.0"}',
  })
  await stepsBesidePnpm(project, [['add', 'dep']])
  // --ignore-workspace-root-check does the same for one command.
  const flagged = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': '{"name":"a","version":"1.0.0"}',
  })
  await stepsBesidePnpm(flagged, [['add', 'dep', '--ignore-workspace-root-check']])
})

test('update.ignoreDeps (and the older updateConfig.ignoreDependencies) leave those dependencies alone unless named, as pnpm 11', async () => {
  for (const setting of ['update:\n  ignoreDeps:\n    - kept\n', 'updateConfig:\n  ignoreDependencies:\n    - kept\n']) {
    const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: '^1.0.0', kept: '^1.0.0' } }, {
      'pnpm-workspace.yaml': setting,
    })
    const { lodeProject } = await stepsBesidePnpm(project, [['install', '--lockfile-only'], ['update', '--latest'], ['update', '!dep'], ['update', 'kept', '--latest']])
    assert.match(projectFile(lodeProject, 'package.json')!, /"kept": "\^1\.1\.0"/)
  }
})

test('update and updateConfig of the wrong shape are ERR_LODE_INVALID_SETTING naming the file; nothing is written', async () => {
  for (const setting of ['update: [kept]\n', 'update:\n  ignoreDeps: kept\n', 'updateConfig:\n  ignoreDependencies: [1]\n']) {
    const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: '^1.0.0' } }, { 'pnpm-workspace.yaml': setting })
    const run = await lode(project, ['install'])
    assert.equal(run.code, 1, setting)
    assert.match(run.stderr, /ERR_LODE_INVALID_SETTING/)
    assert.match(run.stderr, /pnpm-workspace\.yaml/)
    assert.equal(fs.existsSync(path.join(project.dir, 'node_modules')), false)
    assert.equal(fs.existsSync(path.join(project.dir, 'pnpm-lock.yaml')), false)
  }
})

test('saveWorkspaceProtocol (rolling, true, false): what add saves for a workspace project, by name, range or workspace: spec, as pnpm 11', async () => {
  for (const setting of ['', 'saveWorkspaceProtocol: true\n', 'saveWorkspaceProtocol: false\n']) {
    const project = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
      'pnpm-workspace.yaml': `packages:\n  - packages/*\nlinkWorkspacePackages: true\n${setting}`,
      'packages/lib/package.json': '{"name":"ws-lib","version":"1.2.3"}',
      'packages/app/package.json': '{"name":"ws-app","version":"1.0.0"}',
    })
    const steps = ['ws-lib', 'ws-lib@workspace:*', 'ws-lib@workspace:^', 'ws-lib@workspace:~1', 'ws-lib@^1.0.0']
    const { lodeProject } = await stepsBesidePnpm(project, steps.map((spec) => ['add', spec, '--filter', 'ws-app']), ['packages/app/package.json', 'pnpm-lock.yaml'])
    assert.ok(fs.lstatSync(path.join(lodeProject.dir, 'packages', 'app', 'node_modules', 'ws-lib')).isSymbolicLink(), setting)
  }
})

test('hoistWorkspacePackages: false hoists none of the workspace\'s projects, isolated or hoisted, as pnpm 11', async () => {
  for (const linker of ['', 'nodeLinker: hoisted\n']) {
    const project = makeProject(registry, { name: 'root', version: '1.0.0', private: true, dependencies: { dep: '1.0.0' } }, {
      'pnpm-workspace.yaml': `packages:\n  - packages/*\nhoistWorkspacePackages: false\n${linker}`,
      'packages/lib/package.json': '{"name":"ws-lib","version":"1.2.3","dependencies":{"with-dep":"1.0.0"}}',
      'packages/app/package.json': '{"name":"ws-app","version":"1.0.0","dependencies":{"ws-lib":"workspace:*"}}',
    })
    const { lodeProject } = await stepsBesidePnpm(project, [['install']])
    for (const place of [['node_modules', 'ws-lib'], ['node_modules', '.pnpm', 'node_modules', 'ws-lib']]) {
      assert.equal(fs.existsSync(path.join(lodeProject.dir, ...place)), false, `${place.join('/')} with ${linker}`)
    }
  }
})

test('minimumReleaseAgeExcludePrune: true drops the minimumReleaseAgeExclude entries (and versions) the lockfile no longer has, as pnpm 11', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: '1.0.0', kept: '^1.0.0' } }, {
    'pnpm-workspace.yaml': 'minimumReleaseAgeExcludePrune: true\nminimumReleaseAgeExclude:\n  - dep@1.0.0 || 1.1.0\n  - gone\n  - gone@2.0.0\n  - kept\n  - "@scope/*"\n',
  })
  // An install prunes; remove (as add and update) leaves the list as it is, as pnpm's do.
  const { lodeProject } = await stepsBesidePnpm(project, [['install'], ['remove', 'kept']])
  assert.equal(projectFile(lodeProject, 'pnpm-workspace.yaml'), 'minimumReleaseAgeExcludePrune: true\nminimumReleaseAgeExclude:\n  - dep@1.0.0\n  - kept\n  - "@scope/*"\n')
})

test('nodeOptions is NODE_OPTIONS for lode run (-r too), not for an install\'s scripts; -r run\'s INIT_CWD is where lode started, as pnpm 11', async () => {
  const project = makeProject(registry, {
    name: 'root',
    version: '1.0.0',
    private: true,
    dependencies: { built: '1.0.0' },
    scripts: { postinstall: SHOW_NODE_OPTIONS('root'), show: SHOW_NODE_OPTIONS('run') },
  }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\nnodeOptions: --no-warnings --no-deprecation\nallowBuilds:\n  built: true\n',
    'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0', scripts: { show: SHOW_NODE_OPTIONS('app') } }),
  })
  const { lodeProject, pnpmProject } = await stepsBesidePnpm(project, [['install']])
  // Exactly these arguments: a reporter flag would reach the script.
  for (const args of [['run', 'show'], ['-r', 'run', 'show']]) {
    const byPnpm = await pnpmExactly(pnpmProject, args)
    assert.equal(byPnpm.code, 0, byPnpm.stdout + byPnpm.stderr)
    const byLode = await lodeExactly(lodeProject, args)
    assert.equal(byLode.code, 0, byLode.stdout + byLode.stderr)
  }
  const shown = (of: Project): string[] => ['node-options.txt', 'packages/app/node-options.txt']
    .flatMap((file) => projectFile(of, file)?.trim().split('\n').map((line) => `${file} ${line}`) ?? []).sort()
  assert.deepEqual(shown(lodeProject), shown(pnpmProject))
  assert.deepEqual(shown(lodeProject), [
    'node-options.txt app: --no-warnings --no-deprecation',
    'node-options.txt built: undefined',
    'node-options.txt root: undefined',
    'node-options.txt run: --no-warnings --no-deprecation',
  ])
})

test('supportedArchitectures: optional packages for the platforms listed are installed too, the rest skipped, as pnpm 11', async () => {
  const skipped = (of: Project): unknown => (JSON.parse(projectFile(of, 'node_modules/.modules.yaml')!) as { skipped: unknown }).skipped
  for (const setting of [
    'supportedArchitectures:\n  os: [current, darwin]\n  cpu: [current, arm64]\n',
    'supportedArchitectures:\n  os: [win32]\n  cpu: [x64]\n',
    'supportedArchitectures:\n  libc: [current, musl]\n',
  ]) {
    const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { native: '1.0.0' } }, { 'pnpm-workspace.yaml': setting })
    const { lodeProject, pnpmProject } = await stepsBesidePnpm(project, [['install']])
    assert.deepEqual(skipped(lodeProject), skipped(pnpmProject), setting)
    const installed = (name: string): boolean => fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', `${name}@1.0.0`))
    if (setting.includes('darwin')) assert.ok(installed('plat-darwin') && installed('plat-linux') && !installed('plat-win'))
    if (setting.includes('win32')) assert.ok(installed('plat-win') && !installed('plat-linux'))
  }
})

test('lode run with a nodeOptions that is no string is ERR_LODE_INVALID_SETTING naming pnpm-workspace.yaml, and runs nothing', async () => {
  const project = makeProject(registry, { name: 'root', version: '1.0.0', scripts: { show: SHOW_NODE_OPTIONS('run') } }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\nnodeOptions: 5\n',
    'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0', scripts: { show: SHOW_NODE_OPTIONS('app') } }),
  })
  for (const args of [['run', 'show'], ['-r', 'run', 'show']]) {
    const run = await lodeExactly(project, args)
    assert.equal(run.code, 1, run.stdout)
    assert.match(run.stderr, /ERR_LODE_INVALID_SETTING.*nodeOptions in .*pnpm-workspace\.yaml/)
    assert.equal(projectFile(project, 'node-options.txt'), undefined)
    assert.equal(projectFile(project, 'packages/app/node-options.txt'), undefined)
  }
})
