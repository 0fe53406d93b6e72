import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'

import { assertValidDependencyName, assertValidDependencyNames, isInsideDir, isSafeBinName, isValidPackageName, joinInside, joinModulesDir, own } from '@lode/core.safe-name'

const VALID = ['lodash', '@babel/core', 'JSONStream', 'a', 'constructor', 'hasOwnProperty', 'toString', 'x.y', 'x-y_z', '@a/b.c', 'http', 'has~tilde', 'a'.repeat(250)]
const INVALID = [
  '', '.', '..', '../x', '../../../../../../outside/x', '@scope/../../x', '@scope/..', '@scope/.x', '.bin', '.pnpm', '_private', '__proto__', '-dash',
  'node_modules', 'NODE_MODULES', 'favicon.ico', 'a/b', 'a\\b', '@a/b/c', '@/x', '@a', ' x', 'x ', 'a%2fb', 'a\0b', 'é', 'a:b', '/abs', 'C:\\x', 'a\ud800', '@s/\udc00x',
]

test('package names: what old packages use passes, anything that could climb out of node_modules or shadow its own files fails', () => {
  for (const name of VALID) assert.equal(isValidPackageName(name), true, name)
  for (const name of INVALID) assert.equal(isValidPackageName(name), false, JSON.stringify(name))
  assert.equal(isValidPackageName(undefined), false)
  assert.equal(isValidPackageName(42), false)
  // Checked twice: the memo answers as the rule does.
  for (const name of VALID) assert.equal(isValidPackageName(name), true, name)
  for (const name of INVALID) assert.equal(isValidPackageName(name), false, JSON.stringify(name))
})

test('an invalid dependency name is ERR_LODE_INVALID_DEPENDENCY_NAME naming the name and who declared it', () => {
  assert.throws(() => { assertValidDependencyName('../../evil', 'evil-pkg@1.0.0') }, (err: Error & { code?: string, hint?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_DEPENDENCY_NAME')
    assert.match(err.message, /evil-pkg@1\.0\.0/)
    assert.match(err.message, /"\.\.\/\.\.\/evil"/)
    assert.match(err.hint ?? '', /@scope\/name/)
    return true
  })
  assert.doesNotThrow(() => { assertValidDependencyName('@scope/ok', 'x') })
  assert.throws(() => { assertValidDependencyNames({ ok: '1', '.pnpm': '1' }, 'package.json') }, { code: 'ERR_LODE_INVALID_DEPENDENCY_NAME' })
  assert.doesNotThrow(() => { assertValidDependencyNames({ ok: '1', constructor: '1' }, 'package.json') })
  assert.doesNotThrow(() => { assertValidDependencyNames(undefined, 'package.json') })
})

test('joinModulesDir: a valid alias lands inside the directory; an invalid one is refused before any path is made', () => {
  const modules = path.join(path.sep, 'p', 'node_modules')
  assert.equal(joinModulesDir(modules, 'a'), path.join(modules, 'a'))
  assert.equal(joinModulesDir(modules, '@s/a'), path.join(modules, '@s', 'a'))
  for (const alias of ['../x', '@s/../../x', '.bin', 'node_modules', '']) {
    assert.throws(() => joinModulesDir(modules, alias), { code: 'ERR_LODE_INVALID_DEPENDENCY_NAME' }, alias)
  }
})

test('isInsideDir: the directory itself and what is under it; not its parent, a sibling, or a name that only starts with ..', () => {
  const dir = path.join(path.sep, 'w', 'ws')
  assert.equal(isInsideDir(dir, dir), true)
  assert.equal(isInsideDir(dir, path.join(dir, 'a', 'b')), true)
  assert.equal(isInsideDir(dir, path.join(dir, '..cache', 'out')), true)
  assert.equal(isInsideDir(dir, path.join(dir, '..')), false)
  assert.equal(isInsideDir(dir, path.join(path.sep, 'w', 'ws2')), false)
  assert.equal(isInsideDir(dir, path.join(path.sep, 'w')), false)
})

test('joinInside: relative paths that stay inside are joined; absolute ones, climbs out and NUL bytes are not', () => {
  const dir = path.join(path.sep, 'pkg')
  assert.equal(joinInside(dir, 'bin/cli.js'), path.join(dir, 'bin', 'cli.js'))
  assert.equal(joinInside(dir, './bin/../cli.js'), path.join(dir, 'cli.js'))
  assert.equal(joinInside(dir, '.'), dir)
  for (const bad of ['..', '../x', 'a/../../x', '/etc/passwd', 'C:\\x', '\\\\server\\share', 'a\0b']) {
    assert.equal(joinInside(dir, bad), undefined, bad)
  }
})

test('bin names: one file name, no separators or . and ..', () => {
  for (const ok of ['tsc', 'my-cli', '.hidden', 'a.b', '$']) assert.equal(isSafeBinName(ok), true, ok)
  for (const bad of ['', '.', '..', 'a/b', '../x', 'a\\b', 'a:b', 'a\0b']) assert.equal(isSafeBinName(bad), false, JSON.stringify(bad))
})

test('own: a key that is an Object.prototype member is found only when the record has it', () => {
  const deps: Record<string, string> = { a: '1' }
  assert.equal(own(deps, 'a'), '1')
  for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) assert.equal(own(deps, key), undefined, key)
  assert.equal(own({ constructor: '2' }, 'constructor'), '2')
  assert.equal(own(undefined, 'a'), undefined)
})
