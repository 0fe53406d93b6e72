import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { buildPackageTarball } from '@lode/__utils__.test-fixtures'
import type { PackageSpec , TestRegistry } from '@lode/__utils__.test-fixtures'

import { aDayLater, cloneProject, json, listing, lode, makeProject, pnpm, projectFile, readLockfileText, snapshot, withRegistry } from './helpers.js'
import type { Project, RunResult, Step, ProjectPair as Pair } from './helpers.js'

// pnpm 11's install scenarios about peers, optional dependencies, dependency groups, overrides and
// patches, each run by pnpm 11 and by lode on copies of one project, side by side: the same exit code,
// package.json files, lockfile and node_modules after each step, and the same node_modules/.modules.yaml
// and node_modules/.pnpm/lock.yaml. Each test has a registry of its own.



const output = (result: RunResult): string => `${result.stdout}${result.stderr}`

const app = (fields: Record<string, unknown>): Record<string, unknown> => ({ name: 'app', version: '1.0.0', ...fields })

/** A pair of projects: `project` for pnpm, a copy for lode. */
function pairOf (project: Project): Pair {
  return { pnpmProject: project, lodeProject: cloneProject(project) }
}

/** A workspace of `packages/<name>` projects (named as their directory); `root` adds to the root's manifest. */
function makeWorkspace (
  registry: TestRegistry,
  projects: Record<string, Record<string, unknown>>,
  settings = '',
  root: Record<string, unknown> = {},
  files: Record<string, string> = {}
): Project {
  return makeProject(registry, { name: 'root', version: '1.0.0', private: true, ...root }, {
    'pnpm-workspace.yaml': `packages:\n  - packages/*\n${settings}`,
    ...Object.fromEntries(Object.entries(projects).map(([name, fields]) => [`packages/${name}/package.json`, json({ name, version: '1.0.0', ...fields })])),
    ...files,
  })
}

/** The files a workspace step compares: the root's, and each project's package.json. */
function workspaceFiles (projects: string[]): string[] {
  return ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml', ...projects.map((name) => `packages/${name}/package.json`)]
}

interface Compared {
  /** The project files compared after each step. */
  files?: readonly string[]
  /**
   * Compare node_modules/.pnpm/lock.yaml (default). Off after --prod, --no-optional or --dev: lode writes
   * the whole lockfile there, pnpm the part it installed (see the diffs file).
   */
  current?: boolean
  /**
   * Compare node_modules/.pnpm/node_modules and .modules.yaml's hoistedDependencies (default). Off where a
   * package hoisted there has become a direct dependency (or is gone): pnpm keeps its old link, lode
   * removes it (see the diffs file).
   */
  hoisted?: boolean
  /** Compare node_modules/.modules.yaml (default). */
  modules?: boolean
}

const HOISTED_DIR = path.join('node_modules', '.pnpm', 'node_modules')

/** `.modules.yaml` without what differs between tools and runs (the package manager, the store, times). */
function modulesYaml (project: Project, hoisted: boolean): Record<string, unknown> | undefined {
  const text = projectFile(project, 'node_modules/.modules.yaml')
  if (text === undefined) return undefined
  const { packageManager: _pm, storeDir: _store, prunedAt: _pruned, ...rest } = JSON.parse(text) as Record<string, unknown>
  // lode writes an empty ignoredBuilds when it built or patched a package, pnpm leaves it out (see the diffs file).
  if (Array.isArray(rest['ignoredBuilds']) && rest['ignoredBuilds'].length === 0) delete rest['ignoredBuilds']
  if (!hoisted) delete rest['hoistedDependencies']
  return rest
}

/**
 * Each step run by pnpm on one project and by lode on the other, both at once (as stepsBesidePnpm): the
 * same exit code (a failing lode changing nothing), the same files, node_modules, `.modules.yaml` and
 * node_modules/.pnpm/lock.yaml. Starts from a project (copied for lode) or goes on with a pair.
 */
async function then (from: Pair | Project, steps: ReadonlyArray<Step | string[]>, compared: Compared = {}): Promise<Pair> {
  const { files = ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml'], current = true, hoisted = true, modules = true } = compared
  const pair = 'dir' in from ? pairOf(from) : from
  const { pnpmProject, lodeProject } = pair
  const tree = (of: Project): string[] => fs.existsSync(path.join(of.dir, 'node_modules'))
    ? listing(of.dir).filter((file) => !file.endsWith(`.pnpm${path.sep}lock.yaml`) && (hoisted || !file.startsWith(HOISTED_DIR)))
    : []
  for (const step of steps) {
    const { args, fails, warns } = Array.isArray(step) ? { args: step } as Step : step
    const what = args.join(' ')
    const before = snapshot(lodeProject.dir)
    const [byPnpm, byLode] = await Promise.all([pnpm(pnpmProject, args, fails !== undefined), lode(lodeProject, args)])
    if (fails === undefined) {
      assert.equal(byLode.code, 0, `lode ${what}:\n${output(byLode)}`)
    } else {
      assert.equal(byLode.code, 1, `lode ${what} was expected to fail:\n${byLode.stdout}`)
      assert.match(byLode.stderr, fails)
      assert.deepEqual(snapshot(lodeProject.dir), before, `lode ${what} changed nothing`)
    }
    if (warns !== undefined) {
      assert.match(byPnpm.stdout, warns)
      assert.match(output(byLode), warns)
    }
    for (const file of files) assert.equal(projectFile(lodeProject, file), projectFile(pnpmProject, file), `${file} after ${what}`)
    assert.deepEqual(tree(lodeProject), tree(pnpmProject), `node_modules after ${what}`)
    if (modules) assert.deepEqual(modulesYaml(lodeProject, hoisted), modulesYaml(pnpmProject, hoisted), `.modules.yaml after ${what}`)
    if (current) {
      const file = 'node_modules/.pnpm/lock.yaml'
      assert.equal(projectFile(lodeProject, file), projectFile(pnpmProject, file), `.pnpm/lock.yaml after ${what}`)
    }
  }
  return pair
}

/** The same edit of a file in both projects (a hand edit between steps). */
function editBoth ({ pnpmProject, lodeProject }: Pair, file: string, edit: (text: string | undefined) => string): void {
  for (const project of [pnpmProject, lodeProject]) {
    fs.mkdirSync(path.dirname(path.join(project.dir, file)), { recursive: true })
    fs.writeFileSync(path.join(project.dir, file), edit(projectFile(project, file)))
  }
}

function rmBoth ({ pnpmProject, lodeProject }: Pair, file: string): void {
  for (const project of [pnpmProject, lodeProject]) fs.rmSync(path.join(project.dir, file), { recursive: true, force: true })
}

/** A file of both projects: the same content, returned. */
function sameFile ({ pnpmProject, lodeProject }: Pair, file: string): string | undefined {
  const text = projectFile(lodeProject, file)
  assert.equal(text, projectFile(pnpmProject, file), file)
  return text
}

/** Both fail on `args`: pnpm as it does, lode with `code`, changing nothing. */
async function bothFail (pair: Pair, args: string[], code: RegExp): Promise<{ byPnpm: RunResult, byLode: RunResult }> {
  const { pnpmProject, lodeProject } = pair
  const before = snapshot(lodeProject.dir)
  const [byPnpm, byLode] = await Promise.all([pnpm(pnpmProject, args, true), lode(lodeProject, args)])
  assert.equal(byLode.code, 1, output(byLode))
  assert.match(byLode.stderr, code)
  assert.deepEqual(snapshot(lodeProject.dir), before, `lode ${args.join(' ')} changed nothing`)
  return { byPnpm, byLode }
}

/** The peer issues lode lists after an install (`✕ missing peer …`, `✕ unmet peer …`). */
function lodeIssues (result: RunResult): string[] {
  return [...output(result).matchAll(/^ {2}✕ (.*)$/gm)].map((m) => m[1]!).sort()
}

/** The peer issues `pnpm peers check` lists, written as lode writes them. */
async function pnpmIssues (project: Project): Promise<string[]> {
  const { stdout } = await pnpm(project, ['peers', 'check'], true)
  const issues: string[] = []
  let kind = ''
  let name = ''
  let found = ''
  let range = ''
  for (const line of stdout.split('\n')) {
    let m: RegExpExecArray | null
    if ((m = /^✕ (missing|unmet) peer (\S+)$/.exec(line)) !== null) [kind, name, found] = [m[1]!, m[2]!, '']
    else if ((m = /^ {2}Installed: (\S+)$/.exec(line)) !== null) found = m[1]!
    else if ((m = /^ {4}(\S+):$/.exec(line)) !== null) range = m[1]!
    else if ((m = /^ {6}(\S+)$/.exec(line)) !== null) {
      issues.push(kind === 'missing' ? `missing peer ${name}@${range} (wanted by ${m[1]!})` : `unmet peer ${name}@${range}: found ${found} (wanted by ${m[1]!})`)
    }
  }
  return issues.sort()
}


/** Runs independent scenarios two at a time (each already runs pnpm and lode side by side). */
async function inPairs (scenarios: Array<() => Promise<unknown>>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < scenarios.length) await scenarios[next++]!()
  }
  await Promise.all([worker(), worker()])
}

const UNFIT = { os: ['this-os-does-not-exist'] }

test('install --prod and --no-optional leave out what pnpm 11 leaves out, a package also required elsewhere kept, from a lockfile too; a full install adds the rest', async () => {
  await withRegistry([
    { name: 'shared', version: '1.0.0' },
    { name: 'dep', version: '1.0.0', dependencies: { shared: '1.0.0' } },
    { name: 'tool', version: '1.0.0' },
    { name: 'opt', version: '1.0.0' },
    { name: 'top-opt', version: '1.0.0' },
    { name: 'runner', version: '1.0.0', bin: { runner: 'index.js' } },
    { name: 'good', version: '1.0.0', dependencies: { dep: '1.0.0' }, manifest: { optionalDependencies: { opt: '1.0.0' } } },
    { name: 'opt-parent', version: '1.0.0', manifest: { optionalDependencies: { shared: '1.0.0' } } },
  ], async (registry) => {
    const manifest = app({ dependencies: { runner: '1.0.0', good: '1.0.0' }, devDependencies: { tool: '1.0.0', dep: '1.0.0' }, optionalDependencies: { 'top-opt': '1.0.0' } })
    await inPairs([async () => {
      // A devDependency (or optional one) that a dependency also needs stays in .pnpm, unlinked at the root (pnpm issue 2882).
      const prod = await then(makeProject(registry, app({ dependencies: { dep: '1.0.0' }, devDependencies: { shared: '1.0.0', tool: '1.0.0' } })), [
        ['install', '--prod'],
      ])
      assert.ok(fs.existsSync(path.join(prod.lodeProject.dir, 'node_modules', '.pnpm', 'shared@1.0.0')))
      assert.ok(!fs.existsSync(path.join(prod.lodeProject.dir, 'node_modules', 'shared')))
      await then(prod, [['install']], { hoisted: false })
    }, async () => {
      await then(makeProject(registry, app({ dependencies: { dep: '1.0.0' }, optionalDependencies: { shared: '1.0.0', opt: '1.0.0' } })), [
        ['install', '--prod', '--no-optional'],
      ])
      // --no-optional leaves out the optional dependencies of dependencies too, not a package another one requires.
      await then(makeProject(registry, app({ dependencies: { good: '1.0.0', 'opt-parent': '1.0.0', dep: '1.0.0' }, optionalDependencies: { 'top-opt': '1.0.0' } })), [
        ['install', '--no-optional'],
      ])
    }, ...[['--prod', '--no-optional'], ['--no-optional']].map((first) => async () => {
      // From a lockfile (a headless install): --prod --no-optional (bins of what is installed), --no-optional, then everything.
      const pair = await then(makeProject(registry, manifest), [['install', '--lockfile-only'], ['install', '--frozen-lockfile', ...first]])
      assert.ok(fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', '.bin', 'runner')))
      await then(pair, [['install', '--frozen-lockfile']], { hoisted: false })
    })])
  })
})

test('optional dependencies that do not fit the platform are skipped where only optional dependencies reach them, as pnpm 11, also in a lockfile made again and in part of a workspace', async () => {
  await withRegistry([
    { name: 'helper', version: '1.0.0' },
    { name: 'unfit', version: '1.0.0', dependencies: { helper: '1.0.0' }, manifest: UNFIT },
    { name: 'has-opt', version: '1.0.0', manifest: { optionalDependencies: { unfit: '1.0.0' } } },
    { name: 'extra', version: '1.0.0' },
    { name: 'peer-c', version: '1.0.0' },
    { name: 'unfit-peer', version: '1.0.0', dependencies: { helper: '1.0.0' }, manifest: { ...UNFIT, peerDependencies: { 'peer-c': '^1.0.0' } } },
    { name: 'has-opt-peer', version: '1.0.0', manifest: { optionalDependencies: { 'unfit-peer': '1.0.0', 'peer-c': '1.0.0' } } },
    { name: 'legacy', version: '1.0.0', manifest: { engines: { pnpm: '<5' } } },
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '3.1.0' },
    { name: 'leaf', version: '1.0.0' },
    { name: 'shared', version: '1.0.0', dependencies: { leaf: '1.0.0' } },
    { name: 'opt-unfit', version: '1.0.0', dependencies: { shared: '1.0.0' }, manifest: UNFIT },
    { name: 'main', version: '1.0.0', dependencies: { shared: '1.0.0' } },
  ], async (registry) => {
    const files = workspaceFiles(['p1', 'p2'])
    await inPairs([async () => {
      // Skipped with what only it needs; a package also required directly is installed; a lockfile
      // written again (pnpm-lock.yaml deleted) still lists the skipped packages.
      const skipped = await then(makeProject(registry, app({})), [['add', 'has-opt@1.0.0', 'helper@1.0.0']])
      rmBoth(skipped, 'pnpm-lock.yaml')
      await then(skipped, [['install']])
    }, async () => {
      // An unfit package that is also a direct dependency is neither skipped nor optional, from a lockfile too.
      const direct = await then(makeProject(registry, app({})), [['add', 'peer-c@1.0.0', 'has-opt-peer@1.0.0', 'unfit-peer@1.0.0']])
      rmBoth(direct, 'node_modules')
      await then(direct, [['install', '--frozen-lockfile']])
    }, async () => {
      // What a skipped optional package needs is installed when a required one needs it too.
      await then(makeProject(registry, app({ dependencies: { main: '1.0.0' }, optionalDependencies: { 'opt-unfit': '1.0.0' } })), [['install', '--ignore-scripts']])
      // engines.pnpm is not checked: an optional dependency for an old pnpm is installed.
      await then(makeProject(registry, app({ optionalDependencies: { legacy: '*' } })), [['install']])
    }, async () => {
      // One name in dependencies and optionalDependencies: the optional one is installed.
      const twice = await then(makeProject(registry, app({ dependencies: { dep: '1.0.0' }, optionalDependencies: { dep: '3.1.0' } })), [['install']])
      assert.equal(sameFile(twice, 'node_modules/dep/index.js'), 'module.exports = {"name":"dep","version":"3.1.0"}\n')
    }, async () => {
      // A workspace: installing one project from the lockfile records its skipped packages (node_modules/.pnpm/lock.yaml
      // after --filter differs: pnpm keeps an empty importer for p2, see the diffs file).
      await then(makeWorkspace(registry, { p1: { optionalDependencies: { unfit: '*' } }, p2: { dependencies: { dep: '1.0.0' } } }), [
        ['install', '--lockfile-only'], ['install', '--filter', 'p1'],
      ], { files })
    }, async () => {
      // An add to a project keeps the skipped packages in .modules.yaml and node_modules/.pnpm/lock.yaml.
      await then(makeWorkspace(registry, { p1: { dependencies: { 'has-opt': '1.0.0' } }, p2: {} }), [['install'], ['add', 'extra@1.0.0', '--filter', 'p1']], { files })
    }])
  })
})

test('a required dependency of an installable optional dependency is installed even if it does not fit; engineStrict fails on it, as pnpm 11', async () => {
  await withRegistry([
    { name: 'helper', version: '1.0.0' },
    { name: 'unfit', version: '1.0.0', dependencies: { helper: '1.0.0' }, manifest: UNFIT },
    { name: 'has-unfit', version: '1.0.0', dependencies: { unfit: '1.0.0' } },
  ], async (registry) => {
    const pair = await then(makeProject(registry, app({})), [['add', '-O', 'has-unfit@1.0.0']])
    rmBoth(pair, 'node_modules')
    await then(pair, [['install', '--frozen-lockfile']])
    rmBoth(pair, 'node_modules')
    editBoth(pair, 'pnpm-workspace.yaml', () => 'engineStrict: true\n')
    await then(pair, [['install', '--frozen-lockfile']])
    await then(makeProject(registry, app({}), { 'pnpm-workspace.yaml': 'engineStrict: true\n' }), [{ args: ['add', '-O', 'has-unfit@1.0.0'], fails: /ERR_LODE_UNSUPPORTED_PLATFORM/ }])
  })
})

test('an optional dependency whose required dependency fails to build: the install succeeds and the failed package is taken out, isolated and hoisted, as pnpm 11', async () => {
  await withRegistry([
    { name: 'fails', version: '1.0.0', scripts: { postinstall: 'node -e "process.exit(1)"' } },
    { name: 'has-fails', version: '1.0.0', dependencies: { fails: '1.0.0' } },
    { name: 'dep', version: '1.0.0' },
  ], async (registry) => {
    for (const linker of ['isolated', 'hoisted']) {
      const settings = `allowBuilds:\n  fails: true\nnodeLinker: ${linker}\n`
      const pair = await then(makeProject(registry, app({ dependencies: { dep: '1.0.0' } }), { 'pnpm-workspace.yaml': settings }), [
        { args: ['add', '-O', 'has-fails@1.0.0'], warns: /fails@1\.0\.0|postinstall/ },
        ['install'],
      ])
      assert.equal(fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', 'dep')), true)
    }
  })
})

test('builds: a failing build fails the install when the package is also required directly, not only through an optional one; each peer variant of a package is built, as pnpm 11', async () => {
  await withRegistry([
    { name: 'fails', version: '1.0.0', scripts: { postinstall: 'node -e "process.exit(1)"' } },
    { name: 'has-fails', version: '1.0.0', dependencies: { fails: '1.0.0' } },
    { name: 'peer-c', version: '1.0.0' },
    { name: 'peer-c', version: '2.0.0' },
    { name: 'ev', version: '1.0.0', scripts: { preinstall: 'node -e "require(\'fs\').writeFileSync(\'pre.txt\', \'\')"', postinstall: 'node -e "require(\'fs\').writeFileSync(\'post.txt\', \'\')"' }, manifest: { peerDependencies: { 'peer-c': '*' } } },
    { name: 'ev-parent', version: '1.0.0', dependencies: { ev: '1.0.0', 'peer-c': '^1.0.0' } },
  ], async (registry) => {
    await inPairs([async () => {
      const failing = pairOf(makeProject(registry, app({ dependencies: { fails: '1.0.0' }, optionalDependencies: { 'has-fails': '1.0.0' } }), {
        'pnpm-workspace.yaml': 'allowBuilds:\n  fails: true\n  has-fails: true\n',
      }))
      const [byPnpm, byLode] = await Promise.all([pnpm(failing.pnpmProject, ['install'], true), lode(failing.lodeProject, ['install'])])
      assert.match(output(byPnpm), /fails@1\.0\.0\/node_modules\/fails postinstall: Failed/)
      assert.equal(byLode.code, 1)
      assert.match(byLode.stderr, /^\[ERR_LODE_LIFECYCLE_SCRIPT_FAILED\] fails@1\.0\.0 postinstall/)
    }, async () => {
      // Both variants of ev (one per peer-c) run their preinstall and postinstall.
      const variants = await then(makeProject(registry, app({}), { 'pnpm-workspace.yaml': 'allowBuilds:\n  ev: true\n' }), [['add', 'ev-parent@1.0.0', 'ev@1.0.0', 'peer-c@2.0.0']])
      for (const variant of ['ev@1.0.0_peer-c@1.0.0', 'ev@1.0.0_peer-c@2.0.0']) {
        for (const file of ['pre.txt', 'post.txt']) assert.equal(sameFile(variants, `node_modules/.pnpm/${variant}/node_modules/ev/${file}`), '')
      }
    }])
  })
})

const PLATFORMS = [['darwin', 'arm64'], ['darwin', 'x64'], ['linux', 'arm64'], ['linux', 'x64'], ['win32', 'x64']] as const
const arch = (os: readonly string[], cpu: readonly string[]): string => `supportedArchitectures:\n  os: [${os.join(', ')}]\n  cpu: [${cpu.join(', ')}]\n`

test('supportedArchitectures: narrowed, the platform packages no longer used go (isolated and hoisted); one platform package per version of a tool, as pnpm 11', async () => {
  await withRegistry([
    ...PLATFORMS.map(([os, cpu]) => ({ name: `plat-${os}-${cpu}`, version: '1.0.0', manifest: { os: [os], cpu: [cpu] } })),
    { name: 'native', version: '1.0.0', manifest: { optionalDependencies: Object.fromEntries(PLATFORMS.map(([os, cpu]) => [`plat-${os}-${cpu}`, '1.0.0'])) } },
    ...['1.0.0', '2.0.0'].flatMap((version) => [
      { name: 'tool-linux-x64', version, manifest: { os: ['linux'], cpu: ['x64'] } },
      { name: 'tool-darwin-arm64', version, manifest: { os: ['darwin'], cpu: ['arm64'] } },
      { name: 'tool', version, manifest: { optionalDependencies: { 'tool-linux-x64': version, 'tool-darwin-arm64': version } } },
    ]),
    { name: 'a', version: '1.0.0', dependencies: { tool: '1.0.0' } },
    { name: 'b', version: '1.0.0', dependencies: { tool: '2.0.0' } },
    { name: 'c', version: '1.0.0', dependencies: { a: '1.0.0', tool: '2.0.0' } },
  ], async (registry) => {
    await inPairs([...['isolated', 'hoisted'].map((linker) => async () => {
      // The hoisted links of the packages removed stay, as pnpm's (dangling: their directories go at once here).
      const settings = (os: string[], cpu: string[]): string => `nodeLinker: ${linker}\nmodulesCacheMaxAge: 0\n${arch(os, cpu)}`
      const pair = await then(makeProject(registry, app({ dependencies: { native: '1.0.0' } }), { 'pnpm-workspace.yaml': settings(['darwin', 'linux', 'win32'], ['arm64', 'x64']) }), [['install']])
      editBoth(pair, 'pnpm-workspace.yaml', () => settings(['darwin'], ['x64']))
      await then(pair, [['install']])
      const installed = path.join(pair.lodeProject.dir, 'node_modules', ...linker === 'isolated' ? ['.pnpm'] : [])
      assert.deepEqual(fs.readdirSync(installed).filter((dir) => dir.startsWith('plat-')), [linker === 'isolated' ? 'plat-darwin-x64@1.0.0' : 'plat-darwin-x64'])
    }), async () => {
      await then(makeProject(registry, app({ dependencies: { a: '1.0.0', b: '1.0.0', c: '1.0.0' } })), [['install']])
    }])
  })
})

test('overrides changed between installs: locked children kept where they still fit, new ones resolved, removals applied to replaced packages; .pnpm\'s links follow, as pnpm 11', async () => {
  await withRegistry([
    { name: 'child', version: '1.0.0' },
    { name: 'mid', version: '1.0.0', dependencies: { child: '^1.0.0' } },
    { name: 'mid', version: '1.1.0', dependencies: { child: '^1.0.0' } },
    { name: 'top', version: '1.0.0', dependencies: { mid: '^1.0.0' } },
    { name: 'a', version: '1.0.0' },
    { name: 'b', version: '1.0.0' },
    { name: 'pkg', version: '1.0.0', dependencies: { a: '1.0.0' } },
    { name: 'pkg', version: '1.0.1', dependencies: { b: '1.0.0' } },
    { name: 'qar', version: '1.0.0' },
    { name: 'is-pos', version: '1.0.0' },
    { name: 'fb', version: '1.0.0', dependencies: { qar: '1.0.0' } },
    { name: 'fb', version: '1.0.1', dependencies: { qar: '1.0.0' } },
    { name: 'parent', version: '1.0.0', dependencies: { fb: '1.0.0', qar: '1.0.0' } },
    { name: 'fb2', version: '1.0.0', dependencies: { 'is-pos': '*' } },
    { name: 'fb2', version: '1.0.1', dependencies: { qar: '1.0.0' } },
    { name: 'parent2', version: '1.0.0', dependencies: { fb2: '^1.0.0' } },
    { name: 'leaf', version: '1.0.0' },
    { name: 'leaf', version: '1.1.0' },
    { name: 'uses-leaf', version: '1.0.0', dependencies: { leaf: '*' } },
    { name: 'opt-leaf', version: '1.0.0', manifest: { optionalDependencies: { leaf: '1.0.0' } } },
  ], async (registry) => {
    const overrides = (entries: string): string => `overrides:\n${entries}`
    await inPairs([async () => {
      // An exact override moved to another version with the same dependencies keeps the locked child (1.0.0, while 1.1.0 is out).
      const kept = await then(makeProject(registry, app({ dependencies: { top: '1.0.0' } }), { 'pnpm-workspace.yaml': overrides('  mid: 1.0.0\n') }), [['install']])
      await registry.publish({ name: 'child', version: '1.1.0' })
      aDayLater(kept)
      editBoth(kept, 'pnpm-workspace.yaml', () => overrides('  mid: 1.1.0\n'))
      await then(kept, [['install']])
      assert.match(readLockfileText(kept.lodeProject), /mid@1\.1\.0:\n {4}dependencies:\n {6}child: 1\.0\.0/)
    }, async () => {
      // A link deleted inside .pnpm: pnpm 11's install finds node_modules up to date and leaves it missing, as lode does.
      const deleted = await then(makeProject(registry, app({ dependencies: { 'uses-leaf': '1.0.0' } })), [['install']])
      rmBoth(deleted, 'node_modules/.pnpm/uses-leaf@1.0.0/node_modules/leaf')
      await then(deleted, [['install']])
    }, ...([
      // Other dependencies are resolved; a removal also applies to the replaced package; a locked package that fits is reused.
      [{ pkg: '^1.0.0' }, '  pkg: 1.0.0\n', '  pkg: 1.0.1\n'],
      [{ parent: '1.0.0' }, '', '  fb: 1.0.1\n  qar: "-"\n'],
      [{ parent2: '1.0.0', qar: '1.0.0' }, '  fb2: 1.0.0\n', '  fb2: 1.0.1\n'],
      // The link inside .pnpm follows a changed child; a removed child's link goes.
      [{ 'uses-leaf': '1.0.0' }, '  leaf: 1.0.0\n', '  leaf: 1.1.0\n'],
      [{ 'opt-leaf': '1.0.0' }, '', '  opt-leaf>leaf: "-"\n'],
    ] as const).map(([dependencies, first, second]) => async () => {
      const pair = await then(makeProject(registry, app({ dependencies }), { 'pnpm-workspace.yaml': first === '' ? '' : overrides(first) }), [['install']])
      editBoth(pair, 'pnpm-workspace.yaml', () => overrides(second))
      await then(pair, [['install']])
    })])
  })
})

const PATCH = (from: string, to: string): string => [
  'diff --git a/index.js b/index.js',
  'index 1111111..2222222 100644',
  '--- a/index.js',
  '+++ b/index.js',
  '@@ -1 +1 @@',
  `-${from}`,
  `+${to}`,
  '',
].join('\n')
const ORIGINAL = 'module.exports = "original"'

test('patchedDependencies: a version range key, --ignore-scripts, from a lockfile too; a patch that does not apply fails, as pnpm 11', async () => {
  await withRegistry([
    { name: 'pat', version: '1.0.0', files: { 'index.js': `${ORIGINAL}\n` } },
    { name: 'pat', version: '3.1.0', files: { 'index.js': 'module.exports = "three"\n' } },
  ], async (registry) => {
    const patched = (key: string): Record<string, string> => ({
      'patches/pat.patch': PATCH(ORIGINAL, 'module.exports = "patched"'),
      'pnpm-workspace.yaml': `patchedDependencies:\n  ${key}: patches/pat.patch\n`,
    })
    await inPairs([...([['"pat@1"', []], ['pat@1.0.0', ['--ignore-scripts']]] as const).map(([key, args]) => async () => {
      const pair = await then(makeProject(registry, app({ dependencies: { pat: '1.0.0' } }), patched(key)), [['install', ...args]])
      assert.equal(sameFile(pair, 'node_modules/pat/index.js'), 'module.exports = "patched"\n')
      rmBoth(pair, 'node_modules')
      await then(pair, [['install', '--frozen-lockfile', ...args]])
      assert.equal(sameFile(pair, 'node_modules/pat/index.js'), 'module.exports = "patched"\n')
    }), ...['pat@3.1.0', '"pat@>=3"'].map((key) => async () => {
      // Both fail, leaving no patched file (pnpm leaves the package unpatched, lode a link to nothing: see the diffs file).
      const { pnpmProject, lodeProject } = pairOf(makeProject(registry, app({ dependencies: { pat: '3.1.0' } }), patched(key)))
      const [byPnpm, byLode] = await Promise.all([pnpm(pnpmProject, ['install'], true), lode(lodeProject, ['install'])])
      assert.match(output(byPnpm), /ERR_PNPM_PATCH_FAILED\] Could not apply patch/)
      assert.equal(byLode.code, 1)
      assert.match(byLode.stderr, /^\[ERR_LODE_PATCH_FAILED\] /)
      assert.equal(projectFile(pnpmProject, 'node_modules/pat/index.js'), 'module.exports = "three"\n')
      assert.equal(projectFile(lodeProject, 'node_modules/pat/index.js'), undefined)
      for (const project of [pnpmProject, lodeProject]) assert.equal(projectFile(project, 'pnpm-lock.yaml'), undefined)
    })])
  })
})

test('an edited patch file patches the package anew on the next install (an exact key and a range key), as pnpm 11', async () => {
  await withRegistry([{ name: 'pat', version: '1.0.0', files: { 'index.js': `${ORIGINAL}\n` } }], async (registry) => {
    await inPairs(['pat@1.0.0', '"pat@^1"'].map((key) => async () => {
      const pair = await then(makeProject(registry, app({ dependencies: { pat: '1.0.0' } }), {
        'patches/pat.patch': PATCH(ORIGINAL, 'module.exports = "patched"'),
        'pnpm-workspace.yaml': `patchedDependencies:\n  ${key}: patches/pat.patch\n`,
      }), [['install']])
      editBoth(pair, 'patches/pat.patch', () => PATCH(ORIGINAL, 'module.exports = "edited patch"'))
      await then(pair, [['install']])
      assert.equal(sameFile(pair, 'node_modules/pat/index.js'), 'module.exports = "edited patch"\n')
    }))
  })
})

test('a patch no package uses fails a fresh install (writing nothing), with allowUnusedPatches warns; a later resolution of the whole graph fails too, as pnpm 11', async () => {
  await withRegistry([{ name: 'pat', version: '1.0.0', files: { 'index.js': `${ORIGINAL}\n` } }, { name: 'other', version: '1.0.0' }, { name: 'extra', version: '1.0.0' }], async (registry) => {
    const files = (extra: string): Record<string, string> => ({
      'patches/pat.patch': PATCH(ORIGINAL, 'module.exports = "patched"'),
      'pnpm-workspace.yaml': `patchedDependencies:\n  pat@1.0.0: patches/pat.patch\n  other@1.0.0: patches/pat.patch\n${extra}`,
    })
    const allowed = await then(makeProject(registry, app({ dependencies: { pat: '1.0.0' } }), files('allowUnusedPatches: true\n')), [
      { args: ['install'], warns: /The following patches were not used: other@1\.0\.0/ },
    ])
    assert.equal(sameFile(allowed, 'node_modules/pat/index.js'), 'module.exports = "patched"\n')
    const { byPnpm, byLode } = await bothFail(pairOf(makeProject(registry, app({ dependencies: { pat: '1.0.0' } }), files(''))), ['install'], /^\[ERR_LODE_UNUSED_PATCH\] The following patches were not used: other@1\.0\.0/)
    assert.match(byPnpm.stdout, /\[ERR_PNPM_UNUSED_PATCH\] The following patches were not used: other@1\.0\.0/)
    assert.match(byLode.stderr, /remove them from "patchedDependencies"/)
    // Installed with allowUnusedPatches, then without it: a change that resolves again fails (with
    // dedupePeerDependents: false too); an install with nothing to resolve does not look.
    for (const dedupe of ['', 'dedupePeerDependents: false\n']) {
      const pair = await then(makeProject(registry, app({ dependencies: { pat: '1.0.0' } }), files(`allowUnusedPatches: true\n${dedupe}`)), [['install']])
      editBoth(pair, 'pnpm-workspace.yaml', (text) => text!.replace('allowUnusedPatches: true\n', ''))
      await then(pair, [{ args: ['add', 'extra@1.0.0'], fails: /ERR_LODE_UNUSED_PATCH/ }, ['install']])
    }
  })
})

test('install --dev records what pnpm 11 records as included, a project\'s optional dependency and one a devDependency has, as pnpm 11', async () => {
  await withRegistry([
    { name: 'shared', version: '1.0.0' },
    { name: 'dep', version: '1.0.0', dependencies: { shared: '1.0.0' } },
    { name: 'opt', version: '1.0.0' },
    { name: 'sub-opt', version: '1.0.0' },
    { name: 'tool', version: '1.0.0', dependencies: { shared: '1.0.0' }, manifest: { optionalDependencies: { 'sub-opt': '1.0.0' } } },
  ], async (registry) => {
    const manifest = app({ dependencies: { dep: '1.0.0' }, optionalDependencies: { opt: '1.0.0' }, devDependencies: { tool: '1.0.0' } })
    await then(makeProject(registry, manifest), [['install', '--dev']])
  })
})

/** pnpm's abc family: abc has three peers; parent brings abc with two of them; grand brings parent. */
const ABC: PackageSpec[] = [
  { name: 'peer-a', version: '1.0.0' },
  { name: 'peer-b', version: '1.0.0' },
  { name: 'peer-c', version: '2.0.0' },
  { name: 'peer-c', version: '1.0.1' },
  { name: 'peer-c', version: '1.0.0' },
  { name: 'dep', version: '100.0.0' },
  { name: 'is-positive', version: '1.0.0' },
  { name: 'abc', version: '1.0.0', dependencies: { dep: '100.0.0' }, manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'peer-c': '^1.0.0' } } },
  { name: 'parent', version: '1.1.0' },
  { name: 'parent', version: '1.0.0', dependencies: { abc: '^1.0.0', 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'is-positive': '1.0.0' } },
  { name: 'grand', version: '1.0.0', dependencies: { parent: '^1.0.0' } },
  { name: 'grand-with-c', version: '1.0.0', dependencies: { parent: '^1.0.0', 'peer-c': '^1.0.0' } },
  { name: 'has-c-in-deps', version: '1.0.0', dependencies: { 'peer-c': '2.0.0' } },
]

test('peers over several adds: a provider added before or after its dependents, directly or through a grandchild, in one add or two, scoped; locked peer contexts kept or replaced, as pnpm 11', async () => {
  await withRegistry([
    ...ABC,
    { name: '@scoped/peer', version: '1.0.0' },
    { name: '@having/scoped-peer', version: '1.0.0', manifest: { peerDependencies: { '@scoped/peer': '^1.0.0' } } },
    { name: 'user', version: '1.0.0', dependencies: { '@scoped/peer': '1.0.0', '@having/scoped-peer': '1.0.0' } },
  ], async (registry) => {
    // (Where an auto-installed peer becomes a direct dependency, pnpm keeps its old hoisted link: `hoisted` off.)
    const adds = async (steps: string[][], settings = '', hoisted = true): Promise<Pair> =>
      await then(makeProject(registry, app({}), { 'pnpm-workspace.yaml': settings }), steps.map((names) => ['add', ...names]), { hoisted })
    await inPairs([
      async () => await adds([['peer-c@1.0.0'], ['parent@1.0.0']]),
      async () => await adds([['grand@1.0.0'], ['peer-c@1.0.0']], '', false),
      async () => await adds([['parent@1.0.0'], ['peer-c@1.0.0']], 'modulesCacheMaxAge: 0\n', false),
      // Two versions of the peer: two variants of abc, each linked with its own peer-c.
      async () => await adds([['grand-with-c@1.0.0', 'parent@1.0.0', 'peer-c@2.0.0']], 'autoInstallPeers: false\n'),
      async () => await adds([['grand-with-c@1.0.0', 'peer-c@2.0.0'], ['parent@1.0.0'], ['is-positive@1.0.0']], '', false),
      // A top-level provider added or updated later wins over the locked context.
      async () => await adds([['parent@1.0.0'], ['peer-c@2.0.0']]),
      async () => await adds([['parent@1.0.0', 'peer-c@1.0.0', 'has-c-in-deps@1.0.0'], ['peer-c@2.0.0']]),
      async () => await adds([['user@1.0.0']]),
    ])
    // A new parent without dependencies: update drops the peer suffix and transitivePeerDependencies.
    const updated = await adds([['grand@1.0.0', 'peer-c@1.0.0']])
    registry.setDistTag('parent', 'latest', '1.1.0')
    aDayLater(updated)
    await then(updated, [['update']])
    assert.match(readLockfileText(updated.lodeProject), /\n {2}grand@1\.0\.0:\n {4}dependencies:\n {6}parent: 1\.1\.0\n/)
  })
})

/** The abc family under a scope, for aliases named otherwise. */
const SCOPED: PackageSpec[] = [
  { name: '@e2e/peer-a', version: '1.0.0' },
  { name: '@e2e/peer-b', version: '1.0.0' },
  { name: '@e2e/peer-c', version: '2.0.0' },
  { name: '@e2e/peer-c', version: '1.0.1' },
  { name: '@e2e/peer-c', version: '1.0.0' },
  { name: '@e2e/dep', version: '100.0.0' },
  { name: '@e2e/abc', version: '1.0.0', dependencies: { '@e2e/dep': '100.0.0' }, manifest: { peerDependencies: { '@e2e/peer-a': '^1.0.0', '@e2e/peer-b': '^1.0.0', '@e2e/peer-c': '^1.0.0' } } },
  { name: '@e2e/parent-with-aliases', version: '1.0.0', dependencies: { '@e2e/abc': '1.0.0', a: 'npm:@e2e/peer-a@^1.0.0', b: 'npm:@e2e/peer-b@^1.0.0', '@e2e/peer-c': '^1.0.0' } },
  { name: '@e2e/opt-peers', version: '1.0.0', manifest: { peerDependencies: { '@e2e/peer-a': '^1.0.0', '@e2e/peer-b': '^1.0.0', '@e2e/peer-c': '^1.0.0' }, peerDependenciesMeta: { '@e2e/peer-b': { optional: true }, '@e2e/peer-c': { optional: true } } } },
  { name: '@e2e/opt-peers-meta', version: '1.0.0', manifest: { peerDependencies: { '@e2e/peer-a': '^1.0.0' }, peerDependenciesMeta: { '@e2e/peer-b': { optional: true }, '@e2e/peer-c': { optional: true } } } },
  { name: '@e2e/regular', version: '1.0.0', dependencies: { '@e2e/peer-a': '1.0.0', '@e2e/peer-b': '1.0.0', '@e2e/peer-c': '1.0.0' } },
  { name: '@e2e/regular-in-peers', version: '1.0.0', manifest: { peerDependencies: { '@e2e/regular': '1.0.0' } } },
  { name: '@e2e/parent', version: '1.0.0', dependencies: { '@e2e/abc': '^1.0.0', '@e2e/peer-a': '^1.0.0', '@e2e/peer-b': '^1.0.0' } },
  { name: '@e2e/grand', version: '1.0.0', dependencies: { '@e2e/parent': '^1.0.0' } },
]

test('peers provided by aliases (direct, named after another peer, beside the plain name, in a parent); missing, unmet and optional peers reported as pnpm 11 lists them; strictPeerDependencies', async () => {
  await withRegistry(SCOPED, async (registry) => {
    const noAuto = 'autoInstallPeers: false\n'
    /** Both resolve (`--lockfile-only`): the same lockfile, and the peer issues `pnpm peers check` lists are lode's. */
    const resolve = async (dependencies: Record<string, string>, settings = noAuto): Promise<string[]> => {
      const { pnpmProject, lodeProject } = pairOf(makeProject(registry, app({ dependencies }), { 'pnpm-workspace.yaml': settings }))
      const [byPnpm, byLode] = await Promise.all([pnpm(pnpmProject, ['install', '--lockfile-only']), lode(lodeProject, ['install', '--lockfile-only'])])
      assert.equal(byLode.code, 0, output(byLode))
      assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
      const issues = lodeIssues(byLode)
      assert.equal(/Issues with peer dependencies found/.test(byPnpm.stdout), issues.length > 0)
      if (issues.length > 0) assert.deepEqual(issues, await pnpmIssues(pnpmProject))
      return issues
    }
    const abc = { '@e2e/abc': '1.0.0' }
    await inPairs([
      async () => await resolve({ 'peer-a': 'npm:@e2e/peer-a@1.0.0', ...abc }),
      async () => await resolve({ '@e2e/peer-b': 'npm:@e2e/peer-a@1.0.0', ...abc }),
      async () => await resolve({ '@e2e/peer-c': '1.0.0', 'peer-c': 'npm:@e2e/peer-c@2.0.0', ...abc }),
      async () => await resolve({ '@e2e/parent-with-aliases': '1.0.0' }),
      // An optional peer found in the graph of an auto-installed peer.
      async () => await resolve({ '@e2e/regular-in-peers': '1.0.0', '@e2e/opt-peers': '1.0.0' }, ''),
      // Peer issues below the top: missing, and of the wrong version.
      async () => {
        assert.deepEqual(await resolve({ '@e2e/grand': '1.0.0' }), ['missing peer @e2e/peer-c@^1.0.0 (wanted by @e2e/abc@1.0.0)'])
      },
      async () => {
        assert.deepEqual(await resolve({ '@e2e/grand': '1.0.0', '@e2e/peer-c': '2' }, ''), ['unmet peer @e2e/peer-c@^1.0.0: found 2.0.0 (wanted by @e2e/abc@1.0.0)'])
      },
      // Optional peers: a wrong version is reported, a missing one is not; a peer only in peerDependenciesMeta is recorded as *.
      async () => {
        assert.deepEqual(await resolve({ '@e2e/opt-peers': '1.0.0', '@e2e/peer-c': '2.0.0' }), [
          'missing peer @e2e/peer-a@^1.0.0 (wanted by @e2e/opt-peers@1.0.0)',
          'unmet peer @e2e/peer-c@^1.0.0: found 2.0.0 (wanted by @e2e/opt-peers@1.0.0)',
        ])
      },
      async () => {
        assert.deepEqual(await resolve({ '@e2e/opt-peers-meta': '1.0.0', '@e2e/peer-c': '2.0.0' }), ['missing peer @e2e/peer-a@^1.0.0 (wanted by @e2e/opt-peers-meta@1.0.0)'])
      },
    ])
    // strictPeerDependencies: the wrong version below the top fails the install (pnpm after writing it, lode before).
    const strict = pairOf(makeProject(registry, app({ dependencies: { '@e2e/grand': '1.0.0', '@e2e/peer-c': '2' } }), { 'pnpm-workspace.yaml': 'strictPeerDependencies: true\n' }))
    const before = snapshot(strict.lodeProject.dir)
    const [byPnpm, byLode] = await Promise.all([pnpm(strict.pnpmProject, ['install'], true), lode(strict.lodeProject, ['install'])])
    const listed = 'Unmet peer dependencies\n\n✕ unmet peer @e2e/peer-c\n  Installed: 2.0.0\n  Wanted:\n    ^1.0.0:\n      @e2e/abc@1.0.0\n'
    assert.ok(byPnpm.stdout.includes(`[ERR_PNPM_PEER_DEP_ISSUES] ${listed}`), byPnpm.stdout)
    assert.equal(byLode.code, 1)
    assert.ok(byLode.stderr.startsWith(`[ERR_LODE_PEER_DEP_ISSUES] ${listed}`), byLode.stderr)
    assert.deepEqual(snapshot(strict.lodeProject.dir), before)
  })
})

test('peers found anywhere in the graph resolve an optional-peers package, required peer included, with autoInstallPeers off; with dedupePeerDependents off too, none is taken from a sibling project, as pnpm 11', async () => {
  await withRegistry(SCOPED, async (registry) => {
    await then(makeProject(registry, app({ dependencies: { '@e2e/regular': '1.0.0', '@e2e/opt-peers': '1.0.0' } }), { 'pnpm-workspace.yaml': 'autoInstallPeers: false\n' }), [
      ['install', '--lockfile-only'],
    ])
  })
  await withRegistry([
    { name: 'peer-a', version: '1.0.0' },
    { name: 'peer-c', version: '1.0.0' },
    { name: 'opt-peers', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'peer-c': '^1.0.0' }, peerDependenciesMeta: { 'peer-b': { optional: true }, 'peer-c': { optional: true } } } },
  ], async (registry) => {
    const project = makeWorkspace(registry, { p1: { dependencies: { 'opt-peers': '1.0.0' } }, p2: { dependencies: { 'peer-c': '1.0.0' } } }, 'autoInstallPeers: false\ndedupePeerDependents: false\n')
    const { lodeProject } = await then(project, [['install']], { files: workspaceFiles(['p1', 'p2']) })
    assert.match(readLockfileText(lodeProject), /\n {2}opt-peers@1\.0\.0: \{\}\n/)
  })
})

test('several aliases of one package, at the top or in a parent: the highest version provides it as a peer (even out of the range), as pnpm 11', async () => {
  await withRegistry([
    ...SCOPED,
    { name: '@e2e/parent-same', version: '1.0.0', dependencies: { '@e2e/abc': '1.0.0', c3: 'npm:@e2e/peer-c@1.0.0', c2: 'npm:@e2e/peer-c@1.0.1', c1: 'npm:@e2e/peer-c@2.0.0' } },
  ], async (registry) => {
    const settings = { 'pnpm-workspace.yaml': 'autoInstallPeers: false\n' }
    const aliases = { c3: 'npm:@e2e/peer-c@1.0.0', c2: 'npm:@e2e/peer-c@1.0.1', c1: 'npm:@e2e/peer-c@2.0.0' }
    const top = await then(makeProject(registry, app({ dependencies: { ...aliases, '@e2e/abc': '1.0.0' } }), settings), [['install', '--lockfile-only']])
    assert.match(readLockfileText(top.lodeProject), /version: 1\.0\.0\(@e2e\/peer-c@2\.0\.0\)/)
    const below = await then(makeProject(registry, app({ dependencies: { '@e2e/parent-same': '1.0.0' } }), settings), [['install', '--lockfile-only']])
    assert.match(readLockfileText(below.lodeProject), /'@e2e\/abc': 1\.0\.0\(@e2e\/peer-c@2\.0\.0\)/)
  })
})

test('peers of peers, peer rings, diamonds, aliases of one package, providers a level up: the lockfile pnpm 11 writes', async () => {
  await withRegistry([
    { name: 'peer-a', version: '1.0.0' },
    { name: 'peer-b', version: '1.0.0' },
    { name: 'y', version: '1.0.0' },
    { name: 'y', version: '2.0.0' },
    { name: 'has-y-peer', version: '1.0.0', manifest: { peerDependencies: { y: '>=1.0.0' } } },
    { name: 'hh', version: '1.0.0', manifest: { peerDependencies: { 'has-y-peer': '^1.0.0' } } },
    { name: 'hh-and-y', version: '1.0.0', dependencies: { y: '1.0.0' }, manifest: { peerDependencies: { 'has-y-peer': '^1.0.0' } } },
    { name: 'hh-and-y', version: '2.0.0', dependencies: { y: '2.0.0' }, manifest: { peerDependencies: { 'has-y-peer': '^1.0.0' } } },
    { name: 'r1', version: '1.0.0', manifest: { peerDependencies: { r2: '1.0.0', 'peer-a': '1.0.0' } } },
    { name: 'r2', version: '1.0.0', manifest: { peerDependencies: { r3: '1.0.0', 'peer-a': '1.0.0', 'peer-b': '1.0.0' } } },
    { name: 'r3', version: '1.0.0', manifest: { peerDependencies: { r1: '1.0.0' } } },
    { name: 'ca', version: '1.0.0', manifest: { peerDependencies: { cb: '1.0.0' } } },
    { name: 'cb', version: '1.0.0', manifest: { peerDependencies: { ca: '1.0.0', cc: '1.0.0' } } },
    { name: 'cc', version: '1.0.0', manifest: { peerDependencies: { ca: '1.0.0', cb: '1.0.0' } } },
    { name: 'rd', version: '1.0.0', manifest: { peerDependencies: { rb: '1.0.0' } } },
    { name: 'rc', version: '1.0.0', dependencies: { rd: '1.0.0' } },
    { name: 'rb', version: '1.0.0', dependencies: { rc: '1.0.0' }, manifest: { peerDependencies: { ra: '*' } } },
    { name: 'ra', version: '1.0.0', dependencies: { rb: '1.0.0' } },
    { name: 'ra', version: '2.0.0', dependencies: { rb: '1.0.0' } },
    { name: 'rx', version: '1.0.0', dependencies: { ra: '2.0.0' } },
    { name: 'ts', version: '1.0.0' },
    { name: 'ts', version: '2.0.0' },
    { name: 'parser', version: '1.0.0', manifest: { peerDependencies: { ts: '*' } } },
    { name: 'plugin', version: '1.0.0', manifest: { peerDependencies: { parser: '*', ts: '*' } } },
    { name: 'tsapp', version: '1.0.0', dependencies: { ts: '1.0.0', parser: '1.0.0', plugin: '1.0.0' } },
    { name: 'dc', version: '1.0.0', manifest: { peerDependencies: { da: '*' } } },
    { name: 'db', version: '1.0.0', dependencies: { dc: '1.0.0' }, manifest: { peerDependencies: { da: '*', dc: '2.0.0' } } },
    { name: 'db', version: '2.0.0' },
    { name: 'da', version: '1.0.0', dependencies: { db: '1.0.0', dc: '1.0.0' }, manifest: { peerDependencies: { db: '1.0.0', dc: '1.0.0' } } },
    { name: 'fwp', version: '1.0.0', manifest: { peerDependencies: { fw: '*' } } },
    { name: 'fw', version: '4.0.0', dependencies: { fwp: '1.0.0' }, manifest: { peerDependencies: { fwp: '*' } } },
    { name: 'fw', version: '5.0.0', dependencies: { fwp: '1.0.0' }, manifest: { peerDependencies: { fwp: '*' } } },
    { name: 'fc', version: '1.0.0' },
    { name: 'fx', version: '1.0.0', manifest: { peerDependencies: { fb: '^1.0.0' } } },
    { name: 'fb', version: '1.0.0', manifest: { peerDependencies: { fa: '^1.0.0' } } },
    { name: 'fa', version: '1.0.0', dependencies: { fb: '1.0.0', fx: '1.0.0' }, manifest: { peerDependencies: { fc: '^1.0.0' } } },
    { name: 'has-tango-peer', version: '1.0.0', manifest: { peerDependencies: { tango: '^1.0.0' } } },
    { name: 'tango-tango', version: '1.0.0', dependencies: { 'has-tango-peer': '1.0.0' }, manifest: { peerDependencies: { tango: '^1.0.0' } } },
  ], async (registry) => {
    const resolve = async (project: Project, files: readonly string[] = ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml']): Promise<void> => {
      await then(project, [['install', '--lockfile-only']], { files })
    }
    const project = (dependencies: Record<string, string>, settings = ''): Project => makeProject(registry, app({ dependencies }), { 'pnpm-workspace.yaml': settings })
    const files = workspaceFiles(['p1', 'p2'])
    const off = 'autoInstallPeers: false\ndedupePeerDependents: false\n'
    await inPairs([
      // A peer that has a peer, in two projects with different versions of the inner peer (also a dependency of the dependent).
      ...[
        [{ hh: '1.0.0', y: '1.0.0' }, { hh: '1.0.0', y: '2.0.0' }],
        [{ 'hh-and-y': '1.0.0', y: '2.0.0' }, { 'hh-and-y': '1.0.0', y: '1.0.0' }],
        [{ 'hh-and-y': '2.0.0', y: '1.0.0' }, { 'hh-and-y': '1.0.0', y: '2.0.0' }],
      ].map(([first, second]) => async () => {
        await resolve(makeWorkspace(registry, { p1: { dependencies: { ...first, 'has-y-peer': '1.0.0' } }, p2: { dependencies: { ...second, 'has-y-peer': '1.0.0' } } }, off), files)
      }),
      async () => { await resolve(project({ 'hh-and-y': '1.0.0', y: '2.0.0' })) },
      // Rings of peers, at the top and in a workspace root; circular peers through aliases.
      async () => { await resolve(project({ r1: '1.0.0', r2: '1.0.0', r3: '1.0.0', 'peer-a': '1.0.0' })) },
      async () => {
        const root = { dependencies: { r1: '1.0.0', r2: '1.0.0', r3: '1.0.0', 'peer-a': '1.0.0' } }
        await resolve(makeWorkspace(registry, { pkg: { dependencies: { r1: '1.0.0' } } }, 'autoInstallPeers: false\n', root), workspaceFiles(['pkg']))
      },
      async () => { await resolve(project({ ca: '1.0.0', cb: '1.0.0', cc: '1.0.0' }, 'autoInstallPeers: false\n')) },
      async () => { await resolve(project({ da: '1.0.0', db: '2.0.0', 'alias-b': 'npm:db@1.0.0', 'alias-c': 'npm:dc@1.0.0' })) },
      async () => { await resolve(project({ fw: '5.0.0', fw4: 'npm:fw@4.0.0' })) },
      // One package with a peer under two aliases; a peer provided by the parent under its alias.
      async () => { await resolve(project({ 'has-y-peer': '1.0.0', alias: 'npm:has-y-peer@1.0.0' })) },
      async () => { await resolve(project({ tango: 'npm:tango-tango@1.0.0' })) },
      // A peer of a peer where a second top dependency brings another version of the outer peer, in one project and in two.
      async () => { await resolve(project({ ra: '1.0.0', rx: '1.0.0' })) },
      async () => { await resolve(makeWorkspace(registry, { p1: { dependencies: { ra: '1.0.0' } }, p2: { dependencies: { rx: '1.0.0' } } }), files) },
      // A peer shared through a diamond; a transitive peer waiting for its provider's final suffix.
      async () => { await resolve(project({ ts: '2.0.0', parser: '1.0.0', tsapp: '1.0.0' })) },
      async () => { await resolve(project({ fa: '1.0.0', fc: '1.0.0' })) },
    ])
  })
})

test('peers in a workspace: a root dependency under an alias of another package provides, each project its own variant, deduplicated when another project adds, a project\'s own optional peer, dedupePeers, as pnpm 11', async () => {
  await withRegistry([
    ...ABC,
    { name: 'host', version: '4.10.4' },
    { name: 'host', version: '5.0.0' },
    { name: 'foo', version: '100.0.0' },
    { name: 'plugin', version: '1.5.0', manifest: { peerDependencies: { host: '>=4.10.0' } } },
    { name: 'uses', version: '1.0.0', dependencies: { host: '4.10.4', plugin: '1.5.0' } },
    { name: 'opt-peers', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'peer-c': '^1.0.0' }, peerDependenciesMeta: { 'peer-b': { optional: true }, 'peer-c': { optional: true } } } },
    { name: 'has-opt-peer', version: '1.0.0', manifest: { peerDependencies: { 'peer-c': '^1.0.0' }, peerDependenciesMeta: { 'peer-c': { optional: true } } } },
    { name: 'uses-opt', version: '1.0.0', dependencies: { 'has-opt-peer': '1.0.0' } },
    { name: 'carrier-a', version: '1.0.0', dependencies: { 'uses-opt': '1.0.0' } },
    { name: 'carrier-b', version: '1.0.0', dependencies: { 'uses-opt': '1.0.0' } },
    { name: 'tp', version: '1.0.0', dependencies: { 'carrier-a': '1.0.0', 'carrier-b': '1.0.0' } },
    { name: 'm-b', version: '1.0.0' },
    { name: 'obs', version: '1.0.0' },
    { name: 'm-a', version: '1.0.0', manifest: { peerDependencies: { 'm-b': '^1.0.0', obs: '^1.0.0' } } },
    { name: 'm', version: '1.0.0', dependencies: { 'm-a': '1.0.0', 'm-b': '1.0.0', obs: '1.0.0' } },
  ], async (registry) => {
    const files = workspaceFiles(['p1', 'p2'])
    const off = 'autoInstallPeers: false\ndedupePeerDependents: false\n'
    const workspace = (p1: Record<string, unknown>, p2: Record<string, unknown>, settings = '', root: Record<string, unknown> = {}): Project =>
      makeWorkspace(registry, { p1, p2 }, settings, root)
    await inPairs([
      async () => {
        await then(workspace({ dependencies: { plugin: '1.5.0' } }, { dependencies: { host: '5.0.0' } }, '', { dependencies: { host: 'npm:foo@100.0.0' } }), [['install']], { files })
      },
      async () => {
        await then(workspace({ dependencies: { plugin: '1.5.0' } }, { dependencies: { host: '4.10.4', plugin: '1.5.0' } }, off), [['install', '--lockfile-only']], { files })
      },
      async () => {
        await then(workspace({ dependencies: { 'grand-with-c': '1.0.0' } }, {}, 'autoInstallPeers: false\ndedupePeerDependents: true\n'), [
          ['install'], ['add', 'abc@1.0.0', '--filter', 'p2'],
        ], { files })
      },
      async () => {
        await then(workspace(
          { dependencies: { 'opt-peers': '1.0.0' }, peerDependencies: { 'peer-c': '^1.0.0' }, peerDependenciesMeta: { 'peer-c': { optional: true } } },
          { dependencies: { 'peer-c': '1.0.0' } },
          'autoInstallPeers: false\n'
        ), [['install']], { files })
      },
      async () => {
        await then(workspace({ dependencies: { grand: '1.0.0', 'peer-c': '1.0.0' } }, { dependencies: { grand: '1.0.0', 'peer-c': '2.0.0' } }, 'dedupePeers: true\n'), [
          ['install', '--lockfile-only'],
        ], { files })
      },
      async () => {
        // Removing a direct dependency keeps the variant still used below and removes the bare one.
        await then(makeProject(registry, app({}), { 'pnpm-workspace.yaml': `${off}modulesCacheMaxAge: 0\n` }), [['add', 'uses@1.0.0', 'plugin@1.5.0'], ['remove', 'plugin']])
      },
      async () => {
        // transitivePeerDependencies stay as they are over a reinstall and an unrelated add.
        await then(makeProject(registry, app({})), [['add', 'tp@1.0.0'], ['install'], ['add', 'foo@100.0.0']])
      },
      async () => {
        // So do the dependencies of a snapshot with transitive peers over a second add.
        await then(makeProject(registry, app({})), [['add', 'm@1.0.0'], ['add', 'is-positive@1.0.0']])
      },
    ])
  })
})

test('more installs beside pnpm 11: local tarballs (one with peers), a peer a devDependency provides left out by --prod, prerelease ranges, the project\'s own peers, a pruned lockfile', async () => {
  await withRegistry([
    { name: 'bar', version: '100.0.0' },
    { name: 'foo', version: '100.0.0' },
    { name: 'types', version: '1.0.0' },
    { name: 'lib', version: '1.0.0', manifest: { peerDependencies: { types: '^1.0.0' } } },
    { name: 'pre', version: '1.1.0-beta' },
    { name: 'pre', version: '1.2.0-beta' },
    { name: 'dep', version: '1.0.0' },
  ], async (registry) => {
    await inPairs([async () => {
      // A tarball with peers: the same .pnpm directory after node_modules is installed again.
      const { tarball } = await buildPackageTarball({ name: 'tp', version: '1.0.0', manifest: { peerDependencies: { bar: '^100.0.0', foo: '^100.0.0' } } })
      const local = await then(makeProject(registry, app({ dependencies: { tp: 'file:./tp-1.0.0.tgz', bar: '100.0.0', foo: '100.0.0' } }), { 'tp-1.0.0.tgz': tarball }), [['install']])
      rmBoth(local, 'node_modules')
      await then(local, [['install']])
    }, async () => {
      // A tarball one level up, installed from the lockfile.
      const { tarball } = await buildPackageTarball({ name: 'tar-pkg', version: '1.0.0' })
      const above = pairOf(makeProject(registry, app({ dependencies: { 'tar-pkg': 'file:../tar-pkg-1.0.0.tgz' } })))
      for (const { dir } of [above.pnpmProject, above.lodeProject]) fs.writeFileSync(path.join(dir, '..', 'tar-pkg-1.0.0.tgz'), tarball)
      await then(above, [['install', '--lockfile-only'], ['install', '--frozen-lockfile']])
    }, async () => {
      const project = makeProject(registry, app({ dependencies: { lib: '1.0.0' }, devDependencies: { types: '1.0.0' } }))
      await then(project, [['install', '--lockfile-only'], ['install', '--frozen-lockfile', '--prod']])
    }, async () => {
      // After x.y.0 is out, a new project asking ^x.y.0-beta takes the prerelease already locked.
      const files = workspaceFiles(['a', 'b', 'c'])
      const pre = await then(makeWorkspace(registry, { a: { dependencies: { pre: '^1.1.0-beta' } }, b: { dependencies: { pre: '^1.2.0-beta' } }, c: {} }), [['install', '--lockfile-only']], { files })
      await registry.publish({ name: 'pre', version: '1.2.0' })
      aDayLater(pre)
      editBoth(pre, 'packages/c/package.json', () => json({ name: 'c', version: '1.0.0', dependencies: { pre: '^1.2.0-beta' } }))
      await then(pre, [['install', '--lockfile-only']], { files })
    }, async () => {
      // A link: override of a dependency that is also the project's own peer is applied (pnpm writes no .modules.yaml for links alone).
      const linked = await then(makeProject(registry, { name: 'root', version: '0.0.0', private: true, dependencies: { dep: '1.0.0' }, peerDependencies: { dep: '^1.0.0' } }, {
        'pnpm-workspace.yaml': 'overrides:\n  dep: link:fake\n',
        'fake/package.json': json({ name: 'fake-dep', version: '1.0.0', private: true }),
      }), [['install']], { modules: false })
      assert.equal(fs.readlinkSync(path.join(linked.lodeProject.dir, 'node_modules', 'dep')), '../fake')
    }, ...['', 'overrides: {}\n'].map((settings) => async () => {
      // A peerDependencies value that is no range fails, with or without (empty) overrides, writing nothing (lode's code and message differ: see the diffs file).
      const invalid = pairOf(makeWorkspace(registry, { foo: { private: true } }, settings, { peerDependencies: { foo: 'bar@1.2.3' } }))
      const { byPnpm } = await bothFail(invalid, ['install'], /^\[ERR_LODE_INVALID_\w+\] .*bar@1\.2\.3/)
      assert.match(byPnpm.stdout, /\[ERR_PNPM_INVALID_PEER_DEPENDENCY_SPECIFICATION\] The peerDependencies field named 'foo' of package 'root' has an invalid value: 'bar@1\.2\.3'/)
    }), async () => {
      // A lockfile pruned of a peer variant's base entry (as turbo prune leaves it) is refused by both, without a crash.
      const pruned = pairOf(makeProject(registry, { name: 'root', version: '1.0.0', private: true, dependencies: { 'pkg-a': 'workspace:*' } }, {
        'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\ninjectWorkspacePackages: true\n',
        'pnpm-lock.yaml': PRUNED_LOCKFILE,
        'packages/peer/package.json': json({ name: 'peer', version: '1.0.0', private: true }),
        'packages/pkg-a/package.json': json({ name: 'pkg-a', version: '1.0.0', private: true, peerDependencies: { peer: '1.0.0' } }),
      }))
      const broken = /^\[ERR_LODE_BROKEN_LOCKFILE\] .* packages\["pkg-a@file:packages\/pkg-a\(peer@1\.0\.0\)"\]\.resolution is missing/
      const { byPnpm } = await bothFail(pruned, ['install', '--frozen-lockfile'], broken)
      assert.match(byPnpm.stdout, /ERR_PNPM_RESOLUTION_SHAPE_MISMATCH/)
    }])
  })
})

/** pnpm's fixture peer-variant-missing-resolution: the injected pkg-a's base packages entry is gone. */
const PRUNED_LOCKFILE = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false
  injectWorkspacePackages: true

importers:

  .:
    dependencies:
      pkg-a:
        specifier: workspace:*
        version: 'file:packages/pkg-a(peer@1.0.0)'

  packages/peer: {}

  packages/pkg-a:
    peerDependencies:
      peer:
        specifier: 1.0.0
        version: 1.0.0

packages:

  'pkg-a@file:packages/pkg-a(peer@1.0.0)':
    dependencies:
      peer: 1.0.0

  'peer@1.0.0':
    resolution: { directory: packages/peer, type: directory }

snapshots:

  'pkg-a@file:packages/pkg-a': {}

  'pkg-a@file:packages/pkg-a(peer@1.0.0)':
    dependencies:
      peer: 1.0.0

  'peer@1.0.0': {}
`

test('install --dev, then a full install, from a lockfile too: the same node_modules, .modules.yaml and .pnpm/lock.yaml as pnpm 11', async () => {
  await withRegistry([
    { name: 'shared', version: '1.0.0' },
    { name: 'dep', version: '1.0.0', dependencies: { shared: '1.0.0' } },
    { name: 'tool', version: '1.0.0', dependencies: { shared: '1.0.0' } },
    { name: 'runner', version: '1.0.0', bin: { runner: 'index.js' } },
    { name: 'opt', version: '1.0.0' },
    { name: 'dev-runner', version: '1.0.0', bin: { 'dev-runner': 'index.js' } },
  ], async (registry) => {
    const manifest = app({
      dependencies: { dep: '1.0.0', runner: '1.0.0' },
      devDependencies: { tool: '1.0.0', 'dev-runner': '1.0.0' },
      optionalDependencies: { opt: '1.0.0' },
    })
    await then(makeProject(registry, manifest), [['install', '--dev'], ['install']])
    await then(makeProject(registry, manifest), [['install', '--lockfile-only'], ['install', '--frozen-lockfile', '--dev'], ['install', '--frozen-lockfile']])
    await then(makeProject(registry, manifest), [['install', '--prod'], ['install']])
  })
})

test('add of a name with an override saves the override\'s spec; add <name>@<version> saves the version asked for, as pnpm 11', async () => {
  await withRegistry([{ name: 'bar', version: '1.1.0' }, { name: 'bar', version: '1.0.0' }], async (registry) => {
    for (const spec of ['bar', 'bar@1.0.0']) {
      await then(makeProject(registry, app({}), { 'pnpm-workspace.yaml': 'overrides:\n  bar: 1.1.0\n' }), [['add', spec]])
    }
  })
})

test('platform packages without os or cpu are skipped by the platform their names declare, resolving or from a lockfile, as pnpm 11', async () => {
  await withRegistry([
    ...PLATFORMS.map(([os, cpu]) => ({ name: `@n/${os}-${cpu}`, version: '1.0.0' })),
    { name: 'bare-native', version: '1.0.0', manifest: { optionalDependencies: Object.fromEntries(PLATFORMS.map(([os, cpu]) => [`@n/${os}-${cpu}`, '1.0.0'])) } },
    ...PLATFORMS.map(([os, cpu]) => ({ name: `plat-${os}-${cpu}`, version: '1.0.0', manifest: { os: [os], cpu: [cpu] } })),
    { name: 'native', version: '1.0.0', manifest: { optionalDependencies: Object.fromEntries(PLATFORMS.map(([os, cpu]) => [`plat-${os}-${cpu}`, '1.0.0'])) } },
  ], async (registry) => {
    await then(makeProject(registry, app({ dependencies: { 'bare-native': '1.0.0' } }), { 'pnpm-workspace.yaml': arch(['darwin'], ['arm64']) }), [['install']])
    for (const linker of ['isolated', 'hoisted']) {
      const pair = await then(makeProject(registry, app({}), { 'pnpm-workspace.yaml': `nodeLinker: ${linker}\n${arch(['darwin'], ['arm64'])}` }), [['add', 'native@1.0.0']])
      editBoth(pair, 'pnpm-lock.yaml', (text) => text!.replace(/^ {4}(os|cpu): .*\n/gm, ''))
      rmBoth(pair, 'node_modules')
      await then(pair, [['install', '--frozen-lockfile']])
    }
  })
})

test('supportedArchitectures changed between installs: the new platform package is linked for its dependent, isolated and hoisted, as pnpm 11', async () => {
  await withRegistry([
    ...PLATFORMS.map(([os, cpu]) => ({ name: `plat-${os}-${cpu}`, version: '1.0.0', manifest: { os: [os], cpu: [cpu] } })),
    { name: 'native', version: '1.0.0', manifest: { optionalDependencies: Object.fromEntries(PLATFORMS.map(([os, cpu]) => [`plat-${os}-${cpu}`, '1.0.0'])) } },
  ], async (registry) => {
    // The package no longer supported stays a while (modulesCacheMaxAge), or goes at once; the links to it stay, as pnpm's.
    for (const [linker, cache] of [['isolated', ''], ['isolated', 'modulesCacheMaxAge: 0\n'], ['hoisted', '']]) {
      const settings = (os: string, cpu: string): string => `nodeLinker: ${linker}\n${cache}${arch([os], [cpu])}`
      const pair = await then(makeProject(registry, app({}), { 'pnpm-workspace.yaml': settings('darwin', 'arm64') }), [['add', 'native@1.0.0']])
      editBoth(pair, 'pnpm-workspace.yaml', () => settings('darwin', 'x64'))
      await then(pair, [['install']])
      editBoth(pair, 'pnpm-workspace.yaml', () => settings('linux', 'x64'))
      await then(pair, [['install', '--frozen-lockfile']])
    }
  })
})

test('supportedArchitectures narrowed with an add: the unused platform packages and the links to them go, as pnpm 11', async () => {
  await withRegistry([
    ...PLATFORMS.map(([os, cpu]) => ({ name: `plat-${os}-${cpu}`, version: '1.0.0', manifest: { os: [os], cpu: [cpu] } })),
    { name: 'native', version: '1.0.0', manifest: { optionalDependencies: Object.fromEntries(PLATFORMS.map(([os, cpu]) => [`plat-${os}-${cpu}`, '1.0.0'])) } },
    { name: 'uses-native', version: '1.0.0', dependencies: { native: '1.0.0' } },
    { name: 'dep', version: '1.0.0' },
  ], async (registry) => {
    const pair = await then(makeProject(registry, app({ dependencies: { 'uses-native': '1.0.0' } }), {
      'pnpm-workspace.yaml': `modulesCacheMaxAge: 0\n${arch(['darwin', 'linux', 'win32'], ['arm64', 'x64'])}`,
    }), [['install']])
    editBoth(pair, 'pnpm-workspace.yaml', () => `modulesCacheMaxAge: 0\n${arch(['darwin'], ['x64'])}`)
    await then(pair, [['add', 'dep@1.0.0']], { hoisted: false })
  })
})

test('from a lockfile, an optional package whose tarball cannot be fetched is skipped and the rest installed, as pnpm 11', async () => {
  await withRegistry([
    { name: 'dep', version: '1.0.0' },
    { name: 'opt', version: '1.0.0' },
    { name: 'opt-child', version: '1.0.0' },
    { name: 'has-opt', version: '1.0.0', manifest: { optionalDependencies: { 'opt-child': '1.0.0' } } },
  ], async (registry) => {
    const manifest = app({ dependencies: { dep: '1.0.0', 'has-opt': '1.0.0' }, optionalDependencies: { opt: '1.0.0' } })
    const unfetched = /opt@1\.0\.0 is an optional dependency that could not be fetched\. Excluding it from installation\./
    for (const linker of ['isolated', 'hoisted']) {
      const pair = await then(makeProject(registry, manifest, { 'pnpm-workspace.yaml': `fetchRetries: 0\nnodeLinker: ${linker}\n` }), [['install', '--lockfile-only']])
      registry.injectFaults('/opt/-/opt-1.0.0.tgz', [{ status: 404 }, { status: 404 }])
      registry.injectFaults('/opt-child/-/opt-child-1.0.0.tgz', [{ status: 404 }, { status: 404 }])
      await then(pair, [{ args: ['install', '--frozen-lockfile'], warns: unfetched }, ['install']])
      // Not recorded as skipped: an install that lays node_modules out again gets them.
      rmBoth(pair, 'node_modules')
      await then(pair, [['install', '--frozen-lockfile']])
    }
    // An install that resolves fails on it, as pnpm's does (which leaves node_modules half-written; lode changes nothing).
    const fresh = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'fetchRetries: 0\n' })
    registry.injectFaults('/opt/-/opt-1.0.0.tgz', [{ status: 404 }])
    const before = snapshot(fresh.dir)
    const failed = await lode(fresh, ['install'])
    assert.equal(failed.code, 1, failed.stdout)
    assert.match(failed.stderr, /^\[ERR_LODE_NOT_FOUND\] opt@1\.0\.0 is not in the registry/m)
    assert.deepEqual(snapshot(fresh.dir), before)
  })
})

test('a root dependency linked with link: provides peers by its version, or the graph\'s when it has none, as pnpm 11', async () => {
  await withRegistry([
    { name: 'host', version: '4.10.0' },
    { name: 'host', version: '5.0.0' },
    { name: 'plugin', version: '1.5.0', manifest: { peerDependencies: { host: '>=4.10.0' } } },
  ], async (registry) => {
    for (const local of [{ 'host-local/package.json': json({ name: 'host', version: '4.10.0' }) }, { 'host-local/package.json': json({ name: 'host' }) }, {}]) {
      const project = makeWorkspace(registry, { pkg: { dependencies: { plugin: '1.5.0' } }, pkg2: { dependencies: { host: '5.0.0' } } }, '', { dependencies: { host: 'link:host-local' } }, local)
      await then(project, [['install']], { files: workspaceFiles(['pkg', 'pkg2']) })
    }
  })
})

test('a peerDependencies value that is no range is refused with pnpm 11\'s code and message, with or without overrides', async () => {
  await withRegistry([], async (registry) => {
    for (const settings of ['', 'overrides: {}\n']) {
      const invalid = pairOf(makeWorkspace(registry, { foo: { private: true } }, settings, { peerDependencies: { foo: 'bar@1.2.3' } }))
      await bothFail(invalid, ['install'], /^\[ERR_LODE_INVALID_PEER_DEPENDENCY_SPECIFICATION\] The peerDependencies field named 'foo' of package 'root' has an invalid value: 'bar@1\.2\.3'/)
    }
  })
})

test('a convergence override every declared range already goes beyond is reported stale, as pnpm 11', async () => {
  await withRegistry([
    { name: 'child', version: '1.0.0' },
    { name: 'child', version: '1.1.0' },
    { name: 'top', version: '1.0.0', dependencies: { child: '^1.0.0' } },
  ], async (registry) => {
    await then(makeProject(registry, app({}), { 'pnpm-workspace.yaml': 'overrides:\n  "child@": 1.0.0\n' }), [
      { args: ['add', 'top@1.0.0'], warns: /The convergence override "child@": "1\.0\.0" is stale: every declared range of child also admits 1\.1\.0\. Change the override's value to 1\.1\.0/ },
    ])
  })
})

test('an override narrowing an auto-installed peer over an existing lockfile: only the overridden version is left in packages, as pnpm 11 (its test\'s point)', async () => {
  await withRegistry([
    { name: 'peer-c', version: '1.0.0' },
    { name: 'peer-c', version: '1.0.1' },
    { name: 'wants-peer-c-1', version: '1.0.0', manifest: { peerDependencies: { 'peer-c': '1' } } },
  ], async (registry) => {
    const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'wants-peer-c-1': '1.0.0' } })
    const lodeProject = cloneProject(pnpmProject)
    const packagesOf = (project: Project): string[] => [...readLockfileText(project).matchAll(/^ {2}(\S[^\n]*):\n {4}resolution:/gm)].map((match) => match[1]!)
    for (const step of [false, true]) {
      if (step) for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'overrides:\n  peer-c: 1.0.0\n')
      await pnpm(pnpmProject, ['install', '--lockfile-only'])
      const result = await lode(lodeProject, ['install', '--lockfile-only'])
      assert.equal(result.code, 0, result.stderr)
      assert.deepEqual(packagesOf(lodeProject), packagesOf(pnpmProject))
    }
    assert.deepEqual(packagesOf(lodeProject), ['peer-c@1.0.0', 'wants-peer-c-1@1.0.0'])
  })
})

test('a root workspace: range provides a peer to a project, linked into it, as pnpm 11', async () => {
  await withRegistry([
    { name: 'host', version: '5.0.0' },
    { name: 'plugin', version: '1.5.0', manifest: { peerDependencies: { host: '>=4.10.0' } } },
  ], async (registry) => {
    const project = makeWorkspace(registry, { pkg: { dependencies: { plugin: '1.5.0' } }, pkg2: { dependencies: { host: '5.0.0' } } }, '',
      { dependencies: { host: 'workspace:^4.10.0' } }, { 'packages/host/package.json': json({ name: 'host', version: '4.10.0' }) })
    await then(project, [['install']], { files: workspaceFiles(['pkg', 'pkg2']) })
  })
})

test('several aliases of a peer at the workspace root: the one in range provides, and is the one hoisted, as pnpm 11', async () => {
  await withRegistry([
    ...['1.0.0', '2.0.0', '4.10.0', '5.0.0'].map((version) => ({ name: 'host', version })),
    { name: 'plugin', version: '1.5.0', manifest: { peerDependencies: { host: '>=4.10.0' } } },
  ], async (registry) => {
    const project = makeWorkspace(registry, { pkg: { dependencies: { plugin: '1.5.0' } }, pkg2: { dependencies: { host: '5.0.0' } } }, '', { dependencies: { b: 'npm:host@1.0.0', a: 'npm:host@4.10.0', c: 'npm:host@2.0.0' } })
    await then(project, [['install']], { files: workspaceFiles(['pkg', 'pkg2']) })
  })
})
