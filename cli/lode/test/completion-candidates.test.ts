import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import type { CommandSpec } from '../src/commands/types.js'
import { completionCandidates, splitWords } from '../src/completion/candidates.js'
import type { CompletionContext } from '../src/completion/candidates.js'
import { renderCandidates } from '../src/completion/render.js'

// completion/candidates.ts and completion/render.ts: what the completion server offers for a line, and how each shell reads it.

const commands: CommandSpec[] = [
  {
    names: ['run', 'run-script'],
    summary: 'Run a script',
    usage: [],
    description: '',
    options: { 'if-present': { type: 'boolean', help: 'No error without the script' }, reporter: { type: 'string', arg: '<default|silent>', help: 'How to report' } },
    run: async () => await Promise.resolve(0),
  },
  { names: ['remove', 'rm'], summary: 'Remove', usage: [], description: '', options: { filter: { type: 'string', short: 'F', help: 'Select', arg: '<selector>' } }, run: async () => await Promise.resolve(0) },
]

function context (manifest: Record<string, unknown>): CompletionContext {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-candidates-'))
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest))
  fs.mkdirSync(path.join(dir, 'sub'))
  const projectNames = async (): Promise<string[]> => await Promise.resolve(['app', '@s/lib'])
  return { commands, valueOptions: new Set(['--filter', '-F', '--dir']), cwd: path.join(dir, 'sub'), projectNames }
}

async function names (line: string, ctx: CompletionContext): Promise<string[]> {
  return (await completionCandidates(line, ctx)).map((candidate) => candidate.name)
}

test('splitWords splits as a shell does: quotes and backslashes taken off, a trailing space an empty word', () => {
  assert.deepEqual(splitWords('lode run '), ['lode', 'run', ''])
  assert.deepEqual(splitWords('lode  "a b" c\\ d \'e\''), ['lode', 'a b', 'c d', 'e'])
  assert.deepEqual(splitWords('lode --filter=x'), ['lode', '--filter=x'])
  assert.deepEqual(splitWords(''), [''])
})

test('completionCandidates: commands, then by the command: options, listed values, scripts from the nearest package.json, dependencies, --filter\'s projects', async () => {
  const ctx = context({ scripts: { build: 'tsc', bench: 'node b' }, dependencies: { a: '1' }, devDependencies: { b: '1', a: '1' } })
  assert.deepEqual(await names('lode r', ctx), ['run', 'run-script', 'remove', 'rm'])
  assert.deepEqual(await names('lode --filter app r', ctx), ['run', 'run-script', 'remove', 'rm'], 'an option\'s value is not the command')
  assert.deepEqual(await names('lode pm run b', ctx), ['build', 'bench'])
  assert.deepEqual(await names('lode run --', ctx), ['--if-present', '--reporter'])
  assert.deepEqual(await names('lode run --reporter ', ctx), ['default', 'silent'])
  assert.deepEqual(await names('lode rm -F ', ctx), ['app', '@s/lib'])
  assert.deepEqual(await names('lode rm --filter=@', ctx), ['--filter=@s/lib'])
  assert.deepEqual(await names('lode rm ', ctx), ['a', 'b'])
  assert.deepEqual(await names('lode rm --filter x ', ctx), ['a', 'b'])
  assert.deepEqual(await names('lode --', ctx), ['--help', '--version', '--filter', '--recursive', '--workspace-root', '--dir'])
  assert.deepEqual(await names('lode run build -- --', ctx), [])
  assert.deepEqual(await names('lode unknown ', ctx), [])
})

test('renderCandidates: names for bash, name:description for zsh (colons escaped), name<TAB>description for fish and pwsh; unsafe text left out', () => {
  const candidates = [{ name: 'build', description: 'tsc -b' }, { name: 'a:b' }, { name: 'evil\u001b[2J' }, { name: 'two words' }, { name: 'ok', description: 'bad\nline' }, { name: 'back\\slash' }]
  assert.equal(renderCandidates(candidates, 'bash'), 'build\na:b\nok\nback\\slash\n')
  assert.equal(renderCandidates(candidates, 'zsh'), 'build:tsc -b\na\\:b\nok\nback\\slash\n')
  assert.equal(renderCandidates(candidates, 'fish'), 'build\ttsc -b\na:b\nok\n')
  assert.equal(renderCandidates(candidates, 'pwsh'), 'build\ttsc -b\na:b\nok\nback\\slash\n')
  assert.equal(renderCandidates([], 'bash'), '')
})
