import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { inTerminal, lodeBin, lodeExactly, makeProject } from './helpers.js'

// Text a registry, a tarball or a manifest gives lode reaches the terminal printable: no control
// character (ESC, CR, BEL, C1, bidi overrides) a terminal would act on, only their escapes.

// An OSC 52 clipboard write ("pwned"), then a line erase, a right-to-left override and a one-byte CSI.
const OSC52 = '\x1b]52;c;cHduZWQ=\x07'
const OSC52_SHOWN = String.raw`\u001b]52;c;cHduZWQ=\u0007`
// A version the registry's `latest` points at: not semver, and pnpm 11 installs it too. No CR or
// LF: a URL drops them, and its tarball would not be found.
const EVIL_VERSION = `1.0.0-x${OSC52}\x1b[2K\u202eevil\x9b31m\x07`
const EVIL_VERSION_SHOWN = String.raw`1.0.0-x\u001b]52;c;cHduZWQ=\u0007\u001b[2K\u202eevil\u009b31m\u0007`
// A tail for ranges and messages: a carriage return and a newline that would forge a line of lode's.
const HOSTILE = `${OSC52}\x1b[2K\r\n[WARN] forged\u202e\x9b31m\x7f`
const HOSTILE_SHOWN = String.raw`\u001b]52;c;cHduZWQ=\u0007\u001b[2K\r\n[WARN] forged\u202e\u009b31m\u007f`

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'wanted', version: '1.0.0' },
    { name: 'peer-host', version: '1.0.0', manifest: { peerDependencies: { wanted: `^9.0.0${HOSTILE}` } } },
    { name: 'deprecated-one', version: '1.0.0', deprecated: `gone${HOSTILE}` },
    { name: 'evil-version', version: EVIL_VERSION },
    { name: 'missing-tarball', version: EVIL_VERSION },
    // Its script (lode's header quotes it) holds the sequence in a shell comment; its output is coloured.
    { name: 'evil-build', version: '1.0.0', manifest: { scripts: { postinstall: `node -e "console.log('\\x1b[32mbuilt\\x1b[39m')" #${OSC52}\u202e` } } },
  ])
  // A prerelease is not moved to `latest` by a publish: the registry points it there.
  for (const name of ['evil-version', 'missing-tarball']) registry.setDistTag(name, 'latest', EVIL_VERSION)
})
after(async () => { await registry.close() })

// What no output may hold: C0 controls but LF and tab, DEL, C1, the line and paragraph separators, bidi controls.
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const UNPRINTABLE = /[\0-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/** Asserts that `output`, as bytes, holds no control byte but LF and tab, and as text no C1 or bidi control. */
function assertPrintable (output: string, what: string): void {
  const bytes = Buffer.from(output)
  const control = bytes.findIndex((byte) => (byte < 0x20 && byte !== 0x0a && byte !== 0x09) || byte === 0x7f)
  assert.equal(control, -1, `${what}: a control byte 0x${bytes[control]?.toString(16)} at ${control}:\n${JSON.stringify(output)}`)
  assert.doesNotMatch(output, UNPRINTABLE, `${what}: ${JSON.stringify(output)}`)
}

function project (dependencies: Record<string, string>, workspaceYaml = ''): ReturnType<typeof makeProject> {
  return makeProject(registry, { name: 'p', version: '1.0.0', dependencies }, workspaceYaml === '' ? {} : { 'pnpm-workspace.yaml': workspaceYaml })
}

test('a version, a peer range and a deprecation from the registry are printed escaped by install and add, with each reporter', async () => {
  for (const reporter of ['append-only', 'default']) {
    const p = project({ 'peer-host': '1.0.0', 'deprecated-one': '1.0.0' })
    const installed = await lodeExactly(p, ['install', `--reporter=${reporter}`])
    assert.equal(installed.code, 0, installed.stderr)
    assertPrintable(installed.stdout + installed.stderr, `install --reporter=${reporter}`)
    // The range on its one line, its CR and LF shown: no line of the output is the forged one.
    assert.ok(installed.stdout.split('\n').includes(`  ✕ missing peer wanted@^9.0.0${HOSTILE_SHOWN} (wanted by peer-host@1.0.0)`), installed.stdout)
    assert.ok(!installed.stdout.split('\n').some((line) => line.startsWith('[WARN] forged')), installed.stdout)
    const added = await lodeExactly(p, ['add', 'evil-version', `--reporter=${reporter}`])
    assert.equal(added.code, 0, added.stderr)
    assertPrintable(added.stdout + added.stderr, `add --reporter=${reporter}`)
    assert.ok(added.stdout.split('\n').includes(`+ evil-version ${EVIL_VERSION_SHOWN}`), added.stdout)
  }
})

test('--reporter ndjson: the lines are printable and parse to the registry\'s strings as they are', async () => {
  const p = project({ 'peer-host': '1.0.0', 'deprecated-one': '1.0.0' })
  const added = await lodeExactly(p, ['add', 'evil-version', '--reporter=ndjson'])
  assert.equal(added.code, 0, added.stderr)
  assertPrintable(added.stdout + added.stderr, 'add --reporter=ndjson')
  const events = added.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  const summary = events.find((event) => event['type'] === 'summary') as { changes: Array<{ alias: string, version: string }> }
  assert.equal(summary.changes.find((change) => change.alias === 'evil-version')?.version, EVIL_VERSION)
  const peers = events.find((event) => event['type'] === 'peer-issues') as { issues: Array<{ range: string }> }
  assert.equal(peers.issues[0]?.range, `^9.0.0${HOSTILE}`)
})

test('a build\'s header quotes its script escaped; the build\'s own output is the script\'s, as in pnpm', async () => {
  const p = project({ 'evil-build': '1.0.0' }, 'allowBuilds:\n  evil-build: true\n')
  const installed = await lodeExactly(p, ['install', '--reporter=append-only'])
  assert.equal(installed.code, 0, installed.stderr)
  const lines = installed.stdout.split('\n')
  assert.ok(lines.includes(`.../node_modules/evil-build postinstall$ node -e "console.log('\\x1b[32mbuilt\\x1b[39m')" #${OSC52_SHOWN}\\u202e`), installed.stdout)
  assert.ok(lines.includes('.../node_modules/evil-build postinstall: \x1b[32mbuilt\x1b[39m'), installed.stdout)
  assertPrintable(lines.filter((line) => !line.endsWith('postinstall: \x1b[32mbuilt\x1b[39m')).join('\n') + installed.stderr, 'install with a build')
})

test('errors quoting a hostile name, spec, command or version print it escaped, the label as lode colours it', async () => {
  const missing = `/missing-tarball/-/missing-tarball-${EVIL_VERSION}.tgz`
  // Once for each reporter below.
  registry.injectFaults(missing, [{ status: 404 }, { status: 404 }])
  const cases: Array<{ dependencies: Record<string, string>, args: string[], code: string }> = [
    { dependencies: { [`evil${OSC52}\u202e\x9b`]: '1.0.0' }, args: ['install'], code: 'ERR_LODE_INVALID_DEPENDENCY_NAME' },
    { dependencies: {}, args: ['add', `wanted@^1${OSC52}\r\n`], code: 'ERR_LODE_INVALID_SPEC' },
    { dependencies: {}, args: [`nope${OSC52}`], code: 'ERR_LODE_UNKNOWN_COMMAND' },
    { dependencies: {}, args: ['add', 'missing-tarball'], code: 'ERR_LODE_NOT_FOUND' },
  ]
  for (const { dependencies, args, code } of cases) {
    for (const reporter of ['append-only', 'default']) {
      const failed = await lodeExactly(project(dependencies), [...args, `--reporter=${reporter}`])
      assert.equal(failed.code, 1, `${code}: ${failed.stdout}`)
      assert.ok(failed.stderr.startsWith(`[${code}] `), failed.stderr)
      assert.ok(failed.stderr.includes(OSC52_SHOWN), failed.stderr)
      assertPrintable(failed.stdout + failed.stderr, `${args.join(' ')} --reporter=${reporter}`)
    }
  }
  // Where colours show, the label is lode's own sequence, and only it.
  const coloured = await lodeExactly(project({}), ['add', `wanted@^1${OSC52}`], { FORCE_COLOR: '1' })
  const label = '\x1b[41m\x1b[30m ERR_LODE_INVALID_SPEC \x1b[39m\x1b[49m '
  assert.ok(coloured.stderr.startsWith(label), JSON.stringify(coloured.stderr))
  assertPrintable(coloured.stderr.slice(label.length), 'a coloured error')
})

test('on a terminal (--reporter default), only lode\'s own sequences reach it: the progress line, the labels', async () => {
  const p = project({ 'peer-host': '1.0.0' })
  const output = await inTerminal(lodeBin, ['add', 'evil-version'], p, [])
  assert.ok(output.includes(`+ evil-version ${EVIL_VERSION_SHOWN}`), JSON.stringify(output))
  assert.ok(output.includes(HOSTILE_SHOWN), JSON.stringify(output))
  // The terminal writes LF as CR LF; lode's own: the progress line rewritten, the WARN label's colours.
  const own = ['\r\x1b[2K', '\x1b[30;43m', '\x1b[39;49m']
  assert.ok(own.every((sequence) => output.includes(sequence)), JSON.stringify(output))
  assertPrintable(own.reduce((text, sequence) => text.replaceAll(sequence, ''), output.replaceAll('\r\n', '\n')), 'a terminal')
})
