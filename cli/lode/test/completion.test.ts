import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { before, test } from 'node:test'
import { promisify } from 'node:util'

import { failure, lodeBin, lodeExactly, pnpmBin, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

// `lode completion bash`, sourced into a real bash and driven as the shell drives it on Tab: COMP_WORDS,
// COMP_CWORD, COMP_LINE and COMP_POINT set, the function called, COMPREPLY read. Beside it, the
// candidates pnpm 11's completion server offers for the same lines, and pnpm's refusals.

const run = promisify(execFile)
let workspace: Project
let binDir: string

before(() => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-completion-'))
  const dir = path.join(root, 'ws')
  const home = path.join(root, 'home')
  fs.mkdirSync(home)
  const write = (file: string, content: string): void => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), content)
  }
  write('package.json', JSON.stringify({
    name: 'root',
    scripts: { build: 'tsc', test: 'node --test', 'x$(touch${IFS}pwned)': 'echo', 'two\nlines': 'echo' },
    devDependencies: { typescript: '5.0.0' },
    dependencies: { '@scope/lib': '1.0.0' },
  }))
  write('pnpm-workspace.yaml', 'packages:\n  - pkgs/*\n')
  write('pkgs/alpha/package.json', '{"name":"@ws/alpha"}')
  write('pkgs/beta/package.json', '{"name":"beta"}')
  workspace = { dir, home }
  // `lode` on PATH, as the script calls it.
  binDir = path.join(root, 'bin')
  fs.mkdirSync(binDir)
  fs.writeFileSync(path.join(binDir, 'lode'), `#!/bin/sh\nexec '${process.execPath}' '${lodeBin}' "$@"\n`, { mode: 0o755 })
})

/** What bash offers on Tab at the end of `line`, with lode's script sourced. */
async function tab (line: string, script = 'completion.bash'): Promise<string[]> {
  const driver = `
source "${path.join(binDir, script)}"
line="$1"
read -ra COMP_WORDS <<< "$line"
[[ "$line" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
COMP_LINE="$line"
COMP_POINT=\${#line}
_lode_completion
printf '%s\\n' "\${COMPREPLY[@]}"
`
  const { stdout } = await run('bash', ['-c', driver, 'bash', line], {
    cwd: workspace.dir,
    env: { PATH: `${binDir}:${process.env['PATH'] ?? ''}`, HOME: workspace.home, COMP_WORDBREAKS: ' \t\n"\'><=;|&(:' },
  })
  return stdout.split('\n').filter((word) => word !== '')
}

test('bash: commands, a command\'s options, an option\'s values, scripts, dependencies and --filter\'s projects, as bash completes them', async () => {
  const script = await lodeExactly(workspace, ['completion', 'bash'])
  assert.equal(script.code, 0, script.stderr)
  fs.writeFileSync(path.join(binDir, 'completion.bash'), script.stdout)
  assert.deepEqual(await tab('lode ru'), ['run', 'run-script'])
  assert.deepEqual(await tab('lode run '), ['build', 'test', 'x\\$\\(touch\\$\\{IFS\\}pwned\\)'])
  assert.deepEqual(await tab('lode run b'), ['build'])
  assert.deepEqual(await tab('lode --filter '), ['root', '@ws/alpha', 'beta'])
  assert.deepEqual(await tab('lode -F be'), ['beta'])
  // `=` is a word break: bash keeps `--filter=` on the line and replaces what follows it.
  assert.deepEqual(await tab('lode run --filter=be'), ['beta'])
  assert.deepEqual(await tab('lode add --save-p'), ['--save-prod', '--save-peer'])
  assert.deepEqual(await tab('lode publish --access '), ['public', 'restricted'])
  assert.deepEqual(await tab('lode remove '), ['@scope/lib', 'typescript'])
  assert.deepEqual(await tab('lode completion '), ['bash', 'fish', 'pwsh', 'zsh'])
  assert.deepEqual(await tab('lode --vers'), ['--version'])
  assert.deepEqual(await tab('lode run build -- '), [], 'past --, the words are the script\'s')
  // A script's name is offered quoted; bash ran none of it.
  assert.equal(fs.existsSync(path.join(workspace.dir, 'pwned')), false)
})

test('the scripts for zsh, fish and PowerShell ask the same server, in their formats', async () => {
  for (const [shell, registers] of [['zsh', /compdef _lode_completion lode/], ['fish', /complete -c lode -f -a '\(__lode_completion\)'/], ['pwsh', /Register-ArgumentCompleter -Native -CommandName 'lode'/]] as const) {
    const script = await lodeExactly(workspace, ['completion', shell])
    assert.equal(script.code, 0, script.stderr)
    assert.match(script.stdout, registers)
    assert.match(script.stdout, /lode completion-server/)
    assert.match(script.stdout, new RegExp(`SHELL.*${shell}`))
  }
  const server = async (line: string, shell: string): Promise<string> =>
    (await run(process.execPath, [lodeBin, 'completion-server'], { cwd: workspace.dir, env: { PATH: process.env['PATH'] ?? '', HOME: workspace.home, COMP_LINE: line, SHELL: shell } })).stdout
  assert.equal(await server('lode run b', 'zsh'), 'build:tsc\n')
  assert.equal(await server('lode run b', 'fish'), 'build\ttsc\n')
  assert.equal(await server('lode run b', 'pwsh'), 'build\ttsc\n')
  assert.equal(await server('lode --filter @ws', 'zsh'), '@ws/alpha\n')
  assert.match(await server('lode ad', 'fish'), /^add\tAdd /m)
})

test('the candidates that are no options are pnpm 11\'s: scripts, dependencies, project names', async () => {
  const pnpmServer = async (words: string[]): Promise<string[]> => {
    const line = `${words.join(' ')} `
    const { stdout } = await run(process.execPath, [pnpmBin, 'completion-server', '--', ...words, ''], {
      cwd: workspace.dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: workspace.home, COMP_CWORD: String(words.length), COMP_LINE: line, COMP_POINT: String(line.length), SHELL: 'bash' },
    })
    return stdout.split('\n').filter((word) => word !== '' && !word.startsWith('-'))
  }
  for (const words of [['pnpm', 'run'], ['pnpm', '--filter'], ['pnpm', 'remove']]) {
    const pnpm = (await pnpmServer(words)).filter((name) => !/\s/.test(name)).sort()
    const lode = (await tab(`lode ${words.slice(1).join(' ')} `)).map((word) => word.replaceAll('\\', '')).sort()
    assert.deepEqual(lode, pnpm, words.join(' '))
  }
})

test('completion refuses what pnpm 11 refuses: no shell, a shell it has no script for, more than a shell', async () => {
  for (const args of [['completion'], ['completion', 'tcsh'], ['completion', 'bash', 'zsh']]) {
    const pnpm = await pnpmExactly(workspace, args)
    const lode = await lodeExactly(workspace, args)
    assert.notEqual(pnpm.code, 0, args.join(' '))
    assert.equal(lode.code, 1, args.join(' '))
    assert.equal(failure(lode).replace('`lode completion`', '`pnpm completion`'), failure(pnpm), args.join(' '))
  }
})
