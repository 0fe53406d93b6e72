// Fuzz targets of package.json parsing (run by fuzz.test.ts through @lode/__utils__.test-fixtures/fuzz).

import assert from 'node:assert/strict'

import { mutate } from '@lode/__utils__.test-fixtures/fuzz'
import type { FuzzTarget, MutateOptions, Random } from '@lode/__utils__.test-fixtures/fuzz'

import { checkDependencyGroups, parsePackageJson } from '../src/index.js'

const WHERE = 'fuzz/package.json'

const MANIFESTS = [
  JSON.stringify({ name: '@scope/app', version: '1.0.0', private: true, scripts: { test: 'node --test', build: 'tsc -b' }, dependencies: { react: '^18.2.0', 'left-pad': 'npm:left-pad@1.3.0' }, devDependencies: { typescript: '~5.4.0' }, optionalDependencies: { fsevents: '2.3.3' }, peerDependencies: { react: '>=17' }, peerDependenciesMeta: { react: { optional: true } } }, null, 2) + '\n',
  '{"name":"a","version":"0.0.0-pre.1","bin":{"a":"cli.js"},"dependencies":{"b":"workspace:*","c":"link:../c","d":"file:../d.tgz","e":"catalog:"},"engines":{"node":">=18"},"os":["linux"],"cpu":["x64"]}',
  '{\n\t"name": "tabs",\n\t"version": "1.0.0",\n\t"description": "é 😀 \\u00e9 \\"quoted\\"",\n\t"workspaces": ["packages/*"],\n\t"pnpm": {"overrides": {"a": "1"}}\n}\n',
]

// Fields given a value of another type: what a hand-edited manifest gets wrong.
const FIELDS = ['name', 'version', 'dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'scripts', 'bin', '__proto__', 'constructor']
const VALUES = ['1', '-1.5e300', 'true', 'null', '"text"', '""', '[]', '["a"]', '{}', '{"a": 1}', '{"a": null}', '{"a": {}}', '{"a": ["b"]}', '{"a": "1.0.0"}', '{"__proto__": "1.0.0"}',
  '{"__proto__": {"polluted": true}}', '{"constructor": "1"}', `${'['.repeat(5000)}${']'.repeat(5000)}`, `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`]

const OPTIONS: MutateOptions = {
  tokens: ['{', '}', '[', ']', ',', ':', '"', '\\', '\\u', '\\uD800', 'null', 'true', '1e999', '-0', '/*', '//'],
  corpus: MANIFESTS,
  keyLine: (key) => `"${key}": "1.0.0",`,
  nesting: [['[', ']'], ['{"a":', '}'], ['[{"a":', '}]']],
}

export const packageJson: FuzzTarget = {
  generate (random: Random) {
    if (random.chance(0.3)) {
      const fields = Array.from({ length: 1 + random.int(3) }, () => `"${random.pick(FIELDS)}": ${random.pick(VALUES)}`)
      return `${random.chance(0.1) ? '\uFEFF' : ''}{${fields.join(', ')}}`
    }
    return mutate(random, random.pick(MANIFESTS), OPTIONS)
  },
  check (input) {
    const text = input as string
    let manifest: Record<string, unknown>
    try {
      manifest = parsePackageJson(text, WHERE)
      checkDependencyGroups(manifest, WHERE)
    } catch (err) {
      const { code, message, hint } = err as { code?: unknown, message?: unknown, hint?: unknown }
      if (!(err instanceof Error) || err.name !== 'LodeError' || typeof code !== 'string' || !code.startsWith('ERR_LODE_')) throw err
      assert.ok(typeof message === 'string' && message.includes(WHERE), `the message names the file: ${String(message)}`)
      assert.ok(typeof hint === 'string' && hint !== '', 'a hint')
      return code
    }
    // What a project's manifest is read as downstream (the install's HookedManifest).
    assert.equal(Object.getPrototypeOf(manifest), Object.prototype)
    for (const field of ['name', 'version']) assert.ok(manifest[field] === undefined || typeof manifest[field] === 'string', field)
    for (const group of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const [alias, spec] of Object.entries({ ...manifest[group] as Record<string, unknown> })) assert.equal(typeof spec, 'string', `${group}.${alias}`)
    }
    for (const meta of Object.values({ ...manifest['peerDependenciesMeta'] as Record<string, unknown> })) assert.ok(typeof meta === 'object' && meta !== null)
    return 'read'
  },
}
