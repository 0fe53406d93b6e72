// Fails on an import cycle: between the files of a package (type-only imports and dynamic imports
// count: a cycle held by types is still two files that cannot be read apart) and between the
// workspace's packages (their package.json dependencies). `npm run lint` runs it; a directory given
// as the argument is checked instead of this repository (scripts/test/layers.test.mjs).
import fs from 'node:fs'
import path from 'node:path'
import process from 'node:process'

import { workspacePackageDirs } from './workspace-packages.mjs'

const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'))
const packageDirs = workspacePackageDirs(root)

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'|import\('(\.{1,2}\/[^']+)'\)/g

/** The cycles of a graph (each once, as the path that closes it), by depth-first search. */
function cycles (graph) {
  const found = []
  const state = new Map()
  const stack = []
  const visit = (node) => {
    state.set(node, 'open')
    stack.push(node)
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(node, 'done')
  }
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node)
  return found
}

const problems = []
for (const dir of packageDirs) {
  const src = path.join(root, dir, 'src')
  if (!fs.existsSync(src)) continue
  const graph = new Map()
  for (const file of fs.readdirSync(src, { recursive: true }).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))) {
    const text = fs.readFileSync(path.join(src, file), 'utf8')
    const targets = [...text.matchAll(IMPORT)].map((m) => path.join(path.dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts')))
    graph.set(file, new Set(targets))
  }
  for (const cycle of cycles(graph)) problems.push(`${dir}: files import each other: ${cycle.join(' → ')}`)
}
const byName = new Map(packageDirs.map((dir) => [JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')).name, dir]))
const packageGraph = new Map([...byName].map(([name, dir]) => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'))
  return [name, new Set(Object.keys(manifest.dependencies ?? {}).filter((dep) => byName.has(dep)))]
}))
for (const cycle of cycles(packageGraph)) problems.push(`packages depend on each other: ${cycle.join(' → ')}`)

if (problems.length > 0) {
  process.stderr.write(`check-imports: ${problems.length} import ${problems.length === 1 ? 'cycle' : 'cycles'}:\n  ${problems.join('\n  ')}\n`)
  process.exit(1)
}
