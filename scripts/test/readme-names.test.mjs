// Every function a README (or ARCHITECTURE.md) names as a call, `name(…)`, exists in the
// repository's source: a rename that leaves a README behind fails here, not in a reader's search.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

const root = path.resolve(import.meta.dirname, '../..')
// The repository's own files, found by walking it (the dogfood pass runs in a copy without .git).
const SKIPPED = new Set(['node_modules', 'dist', 'toolchain', '.cache', '.work', 'fixtures'])
const tracked = walk('')

/** The files below `dir` (relative to the root, `/`-separated), never into SKIPPED or hidden directories. */
function walk (dir) {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = dir === '' ? entry.name : `${dir}/${entry.name}`
    if (entry.isDirectory()) return SKIPPED.has(entry.name) || entry.name.startsWith('.') ? [] : walk(file)
    return entry.isFile() ? [file] : []
  })
}
// Node's own, named in READMEs as they are called (`os.tmpdir()`).
const NODE = new Set(['os', 'fs', 'path', 'process', 'module', 'JSON', 'Date', 'Math'])

/** The names the source defines: functions, classes, constants, methods, and functions held by properties. */
function definedNames () {
  const names = new Set()
  for (const file of tracked.filter((f) => f.endsWith('.ts') && f.includes('/src/') && fs.existsSync(path.join(root, f)))) {
    const text = fs.readFileSync(path.join(root, file), 'utf8')
    for (const m of text.matchAll(/(?:function\*?|class|const|let|interface|type)\s+([A-Za-z_$][\w$]*)/g)) names.add(m[1])
    for (const m of text.matchAll(/^\s+(?:(?:async|static|get|private|readonly)\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^>\n]*>)?\s*\(/gm)) names.add(m[1])
    for (const m of text.matchAll(/^\s+([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s*)?\(/gm)) names.add(m[1])
  }
  return names
}

test('every function the READMEs and ARCHITECTURE.md name exists in the source', () => {
  const defined = definedNames()
  const missing = []
  for (const doc of tracked.filter((f) => (f.endsWith('README.md') || f === 'ARCHITECTURE.md') && fs.existsSync(path.join(root, f)))) {
    for (const m of fs.readFileSync(path.join(root, doc), 'utf8').matchAll(/`([A-Za-z_$][\w$.]*)\(/g)) {
      const parts = m[1].split('.')
      if (parts.length > 1 && NODE.has(parts[0])) continue
      if (!defined.has(parts.at(-1))) missing.push(`${doc}: ${m[1]}`)
    }
  }
  assert.deepEqual(missing, [], 'named in a README, defined nowhere')
})
