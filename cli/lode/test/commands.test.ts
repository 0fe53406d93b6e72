import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { PNPM_ONLY_COMMANDS } from '../src/commands/registry.js'
import { lode, lodeExactly, makeProject, pnpmBin } from './helpers.js'

// The CLI's commands as modules behind one registry: each command's help, pnpm's flag forms, and
// pnpm's command names never taken for scripts.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'alpha', version: '1.0.0' },
    { name: 'alpha', version: '1.2.0' },
  ])
})
after(async () => { await registry.close() })

function readJson (file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
}

test('lode --help lists the commands; lode help <cmd> and lode <cmd> --help print the command\'s options', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0' })
  const main = await lode(project, ['--help'])
  assert.equal(main.code, 0, main.stderr)
  for (const name of ['install, i', 'add', 'remove, rm', 'update, up', 'rebuild, rb', 'run', 'exec']) assert.match(main.stdout, new RegExp(`^  ${name}`, 'm'))
  const bare = await lode(project, [])
  assert.equal(bare.code, 1, 'lode without a command fails, with the help')
  assert.match(bare.stdout, /^Usage: lode <command>/)
  const viaHelp = await lode(project, ['help', 'add'])
  const viaFlag = await lode(project, ['add', '--help'])
  assert.equal(viaHelp.code, 0, viaHelp.stderr)
  assert.equal(viaFlag.code, 0, viaFlag.stderr)
  assert.equal(viaHelp.stdout, viaFlag.stdout)
  assert.match(viaHelp.stdout, /^Usage: lode add /)
  assert.match(viaHelp.stdout, /^ {2}-D, --save-dev {2,}Save to devDependencies$/m)
  assert.match(viaHelp.stdout, /--lockfile-only/)
  assert.doesNotMatch(viaHelp.stdout, /--frozen-lockfile/, 'only add\'s options')
  const install = await lode(project, ['i', '-h'])
  assert.match(install.stdout, /--frozen-lockfile/)
  assert.match(install.stdout, /Aliases: i$/m)
  const pnpmOnly = await lode(project, ['help', 'env'])
  assert.equal(pnpmOnly.code, 1)
  assert.match(pnpmOnly.stderr, /^\[ERR_LODE_COMMAND_NOT_IMPLEMENTED\] "env" is a pnpm command lode does not have: it manages Node\.js and pnpm installations\./)
  assert.match(pnpmOnly.stderr, /lode does not manage Node\.js versions: use pnpm env/)
  for (const [name, said] of [['self-update', /Update lode with the tool that installed it/], ['with', /use pnpm with/], ['setup', /use pnpm setup/], ['runtime', /use pnpm runtime/]] as const) {
    assert.match((await lode(project, [name])).stderr, said, name)
  }
  assert.match((await lode(project, ['star'])).stderr, /^\[ERR_LODE_COMMAND_NOT_IMPLEMENTED\] "star" is a pnpm command lode does not have yet\./)
  const unknown = await lode(project, ['help', 'nope'])
  assert.equal(unknown.code, 1)
  assert.match(unknown.stderr, /^\[ERR_LODE_UNKNOWN_COMMAND\] Unknown command "nope"/)
  assert.equal(fs.readdirSync(project.dir).join(), 'package.json', 'help writes nothing')
})

test('a pnpm command lode does not have is refused by name, never run as the script of that name', async () => {
  const script = 'node -e "require(\'fs\').writeFileSync(\'ran\', \'\')"'
  const project = makeProject(registry, { name: 'p', version: '1.0.0', scripts: { env: script, lint: script } })
  const refused = await lodeExactly(project, ['env'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_COMMAND_NOT_IMPLEMENTED\] "env" is a pnpm command lode does not have: /)
  assert.match(refused.stderr, /lode run env/)
  assert.equal(fs.existsSync(path.join(project.dir, 'ran')), false, 'the script did not run')
  const run = await lodeExactly(project, ['run', 'env'])
  assert.equal(run.code, 0, run.stderr)
  assert.equal(fs.existsSync(path.join(project.dir, 'ran')), true, 'lode run runs it')
  fs.rmSync(path.join(project.dir, 'ran'))
  // A name that is no command of pnpm's runs the script, as `pnpm lint` does.
  const lint = await lodeExactly(project, ['lint'])
  assert.equal(lint.code, 0, lint.stderr)
  assert.equal(fs.existsSync(path.join(project.dir, 'ran')), true)
})

test('every command name of pnpm 11 (read from its own bundle) is a command of lode\'s or refused by name, none unknown', async () => {
  // pnpm declares each command's names as `commandNames = [...]`; its bundle numbers the copies.
  const bundle = fs.readFileSync(path.join(path.dirname(pnpmBin), '..', 'dist', 'pnpm.mjs'), 'utf8')
  const names = [...new Set([...bundle.matchAll(/\bcommandNames\d* = \[([^\]]*)\]/g)].flatMap((match) => JSON.parse(`[${match[1]!}]`) as string[]))].sort()
  assert.ok(names.length > 100 && names.includes('install') && names.includes('view'), `pnpm's command names: ${names.join(' ')}`)
  const project = makeProject(registry, { name: 'p', version: '1.0.0' })
  const unknown: string[] = []
  for (let i = 0; i < names.length; i += 8) {
    await Promise.all(names.slice(i, i + 8).map(async (name) => {
      const help = await lodeExactly(project, ['help', name])
      if (help.code === 0 ? !help.stdout.startsWith('Usage: lode ') : !help.stderr.startsWith(`[ERR_LODE_COMMAND_NOT_IMPLEMENTED] "${name}" is a pnpm command`)) unknown.push(name)
    }))
  }
  assert.deepEqual(unknown, [])
  // The other way: every name lode refuses is pnpm's (a name pnpm does not have runs the script of that name).
  assert.deepEqual(PNPM_ONLY_COMMANDS.filter((name) => !names.includes(name)), [])
})

test('--flag=false and --flag=true set a boolean option as --no-flag and --flag do', async () => {
  const manifest = { name: 'p', version: '1.0.0', dependencies: { alpha: '^1.0.0' } }
  // In CI a lockfile is frozen by default: without pnpm-lock.yaml, a frozen install fails.
  const frozen = makeProject(registry, manifest)
  const refused = await lode(frozen, ['install', '--lockfile-only', '--frozen-lockfile=true'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_NO_LOCKFILE\] /)
  assert.equal(fs.existsSync(path.join(frozen.dir, 'pnpm-lock.yaml')), false)
  const project = makeProject(registry, manifest)
  const result = await lode(project, ['install', '--lockfile-only', '--frozen-lockfile=false'], { CI: 'true' })
  assert.equal(result.code, 0, result.stderr)
  assert.match(fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8'), /alpha@1\.2\.0:/)
  const bad = await lode(project, ['install', '--frozen-lockfile=maybe'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] .*--frozen-lockfile/)
})

test('--config.<key>=<value> sets a setting for the command; one lode does not take is refused before anything is written', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { alpha: '1.0.0' } })
  const storeDir = path.join(project.home, 'cli-store')
  const result = await lode(project, ['install', `--config.store-dir=${storeDir}`])
  assert.equal(result.code, 0, result.stderr)
  assert.ok(fs.existsSync(storeDir), 'the store is where --config.store-dir says')
  assert.equal(readJson(path.join(project.dir, 'node_modules', 'alpha', 'package.json'))['version'], '1.0.0')
  const other = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { alpha: '1.0.0' } })
  const refused = await lode(other, ['install', '--config.hoist-workspace-packages=false'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_UNSUPPORTED_CLI_SETTING\] --config\.hoist-workspace-packages is not a setting lode takes on the command line\./)
  assert.deepEqual(fs.readdirSync(other.dir), ['package.json'], 'nothing written')
  const notBoolean = await lode(other, ['install', '--config.offline=maybe'])
  assert.equal(notBoolean.code, 1)
  assert.match(notBoolean.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] --config\.offline is "maybe"; it takes true or false\./)
  // Without `=`, a boolean setting leaves the next argument to the command.
  const added = await lode(other, ['add', '--config.prefer-offline', 'alpha@1.0.0'])
  assert.equal(added.code, 0, added.stderr)
  assert.deepEqual(readJson(path.join(other.dir, 'package.json'))['dependencies'], { alpha: '1.0.0' })
})

test('-- ends the options: what follows is positional; an option a command does not have is refused naming it', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0' })
  const added = await lodeExactly(project, ['add', '--reporter=append-only', '--save-exact', '--', 'alpha'])
  assert.equal(added.code, 0, added.stderr)
  assert.deepEqual(readJson(path.join(project.dir, 'package.json'))['dependencies'], { alpha: '1.2.0' })
  const before = fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8')
  const unknown = await lode(project, ['install', '--save-exact'])
  assert.equal(unknown.code, 1)
  assert.match(unknown.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] .*'--save-exact'/)
  assert.match(unknown.stderr, /lode install --help/)
  assert.equal(fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8'), before)
})

test('--network-concurrency and --config.network-concurrency bound the requests at once; a count that is not a whole number of 1 or more is refused before anything is written', async () => {
  const names = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6']
  const own = await TestRegistry.start(names.map((name) => ({ name, version: '1.0.0' })))
  try {
    // Requests the server is answering at once: each is answered 30 ms after it arrives, and counted out just before.
    let answering = 0
    let most = 0
    own.responseDelay = () => {
      most = Math.max(most, ++answering)
      setTimeout(() => { answering-- }, 30)
      return 30
    }
    const manifest = { name: 'p', version: '1.0.0', dependencies: Object.fromEntries(names.map((name) => [name, '1.0.0'])) }
    const installs = async (args: string[]): Promise<number> => {
      most = 0
      const project = makeProject(own, manifest)
      const result = await lode(project, ['install', ...args])
      assert.equal(result.code, 0, result.stderr)
      for (const name of names) assert.ok(fs.existsSync(path.join(project.dir, 'node_modules', name, 'package.json')), name)
      return most
    }
    assert.equal(await installs(['--network-concurrency', '1']), 1)
    assert.equal(await installs(['--config.network-concurrency=2']), 2)
    assert.ok(await installs([]) > 2, 'by default the six packuments are asked for at once')

    for (const args of [['--network-concurrency=0'], ['--network-concurrency', '1.5'], ['--network-concurrency=-1'], ['--config.network-concurrency=many']]) {
      const project = makeProject(own, manifest)
      const refused = await lode(project, ['install', ...args])
      assert.equal(refused.code, 1, args.join(' '))
      assert.match(refused.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] --(config\.)?network-concurrency is "[^"]*"; it takes a whole number, 1 or more\./)
      assert.deepEqual(fs.readdirSync(project.dir), ['package.json'], 'nothing written')
    }
  } finally {
    await own.close()
  }
})
