// Fuzz target of the workspace's project list (run by fuzz.test.ts through @lode/__utils__.test-fixtures/fuzz): the
// `packages` globs of pnpm-workspace.yaml and the projects' package.json files, through
// findWorkspaceProjects, workspaceDependencies, sortProjects and filterProjects.

import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { mutate } from '@lode/__utils__.test-fixtures/fuzz'
import type { FuzzTarget, MutateOptions, Random } from '@lode/__utils__.test-fixtures/fuzz'

import { filterProjects, findWorkspaceProjects, sortProjects, workspaceDependencies } from '../src/index.js'

// One workspace for every input: each check writes the three projects' manifests over the last ones.
// It is two levels down in a directory of its own, so that `../*` and `../../*` stay in it.
const top = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-workspace-fuzz-'))
const root = path.join(top, 'x', 'workspace')
fs.mkdirSync(path.join(top, 'x', 'sibling'), { recursive: true })
fs.writeFileSync(path.join(top, 'x', 'sibling', 'package.json'), '{"name":"sibling"}')
const PROJECTS = ['packages/a', 'packages/b', 'apps/c']
for (const [file, content] of Object.entries({
  'package.json': '{"name":"root","private":true}',
  'packages/d/nested/e/package.json': '{"name":"e","version":"1.0.0"}',
  'packages/b/node_modules/dep/package.json': '{"name":"dep"}',
  '.hidden/f/package.json': '{"name":"f"}',
  'tools/readme.md': 'no project here',
})) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
  fs.writeFileSync(path.join(root, file), content)
}
for (const project of PROJECTS) fs.mkdirSync(path.join(root, project), { recursive: true })
// A directory link, and one to the root itself (a cycle for a glob that follows links).
fs.symlinkSync(path.join(root, 'apps'), path.join(root, 'packages', 'linked'))
fs.symlinkSync(root, path.join(root, 'packages', 'loop'))

const NAMES = ['a', 'b', 'c', '@scope/a', 'e', 'root', '', '__proto__', 'constructor']
const manifest = (random: Random): string => JSON.stringify({
  name: random.pick(NAMES),
  version: random.pick(['1.0.0', '2.0.0-beta.1', '*']),
  dependencies: Object.fromEntries(Array.from({ length: random.int(4) }, () => [random.pick(NAMES), random.pick(['workspace:*', 'workspace:^', 'workspace:a@*', 'workspace:../b', 'workspace:../../apps/c', 'link:../a', 'file:../../apps/c', '^1.0.0', 'workspace:@scope/a@1'])])),
  devDependencies: { [random.pick(NAMES)]: 'workspace:*' },
  peerDependencies: { [random.pick(NAMES)]: random.pick(['workspace:*', '^1']) },
})

const PATTERNS = ['packages/*', 'packages/**', 'apps/*', '!packages/b', '!**/c', '*', '**', '.', '', '../*', '../../*', 'packages/../apps/*', './packages/*', 'packages/*/',
  'packages//*', 'packages/[ab]', 'packages/{a,b}', 'packages/+(a|b)', '!(packages)/**', 'packages/a\\', '\\*', '**/node_modules/**', 'node_modules/*', '.hidden/*', '.*/*',
  'packages/*/nested/*', 'packages/loop/packages/loop/*', 'packages/linked/*', '{a,b}'.repeat(12), `${'*'.repeat(60)}z`, `${'**/'.repeat(30)}x`, 'a'.repeat(5000), '[', '(', '!', '!!packages/*',
  '#', 'packages/\0', 'packages/é', '~/*', 'C:\\x', `${'*a'.repeat(8)}*b`]
const SELECTORS = ['a', '@scope/*', '*', '!b', 'a...', '...a', 'a^...', '...^b', '{packages/a}', './packages', '{packages/*}', '{**}', 'c{apps}', '...', '!', '[HEAD]', `{${'*a'.repeat(6)}*b}`, '__proto__...']

const OPTIONS: MutateOptions = {
  tokens: ['*', '**', '/', '!', '{', '}', '[', ']', '(', ')', '|', '+', '@', '?', '\\', '.', '..', ',', '"', ':'],
  corpus: PATTERNS,
  keyLine: (key) => key,
  nesting: [['{', '}'], ['(', ')'], ['[', ']'], ['**/', '']],
}
const MANIFEST_OPTIONS: MutateOptions = {
  tokens: ['{', '}', '[', ']', ',', ':', '"', 'null', '1', '"workspace:*"'],
  corpus: [],
  keyLine: (key) => `"${key}": "workspace:*",`,
  nesting: [['[', ']'], ['{"a":', '}']],
}

interface Input { patterns: string[], manifests: string[], selectors: string[] }

export const projects: FuzzTarget = {
  generate (random: Random): Input {
    const patterns = Array.from(
      { length: 1 + random.int(3) },
      () => random.chance(0.3) ? mutate(random, random.pick(PATTERNS), OPTIONS).slice(0, 10_000) : random.pick(PATTERNS)
    )
      // Nothing above the fuzz's own directory: `/**` or `../../../**` would list the machine's files.
      .map((pattern) => /^!?(?:[/\\]|[A-Za-z]:)/.test(pattern) || (pattern.match(/\.\.(?:[/\\]|$)/g)?.length ?? 0) > 2 ? 'packages/*' : pattern)
    const manifests = PROJECTS.map(() => {
      const text = manifest(random)
      return random.chance(0.2) ? mutate(random, text, { ...MANIFEST_OPTIONS, corpus: [text] }) : text
    })
    return { patterns, manifests, selectors: Array.from({ length: 1 + random.int(2) }, () => random.pick(SELECTORS)) }
  },
  async check (input) {
    const { patterns, manifests, selectors } = input as Input
    PROJECTS.forEach((project, i) => { fs.writeFileSync(path.join(root, project, 'package.json'), manifests[i]!) })
    let found
    try {
      found = await findWorkspaceProjects(root, patterns)
    } catch (err) {
      return assertCoded(err)
    }
    assert.equal(found[0]?.id, '.', 'the root first')
    assert.equal(new Set(found.map((project) => project.id)).size, found.length, 'each project once')
    const edges = workspaceDependencies(found)
    assert.equal(sortProjects(found, edges).length, found.length)
    try {
      filterProjects(found, selectors, root)
    } catch (err) {
      return assertCoded(err, false)
    }
    return 'found'
  },
}

/** A `LodeError` with an `ERR_LODE_` code and a hint, naming a file of the workspace (unless the error is about a --filter). */
function assertCoded (err: unknown, namesFile = true): string {
  const { code, message, hint } = err as { code?: unknown, message?: unknown, hint?: unknown }
  if (!(err instanceof Error) || err.name !== 'LodeError' || typeof code !== 'string' || !code.startsWith('ERR_LODE_')) throw err
  if (namesFile) assert.ok(typeof message === 'string' && message.includes(top), `the message names the file: ${String(message)}`)
  assert.ok(typeof hint === 'string' && hint !== '', 'a hint')
  return code
}
