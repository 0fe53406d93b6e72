// Run by `pnpm exec node resolve-check.js <list.json>` in an installed project: resolves every
// importer's direct dependencies from the importer's directory, as the importer's code would, and
// prints `unresolved <importer> <name>` for each that Node cannot find.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const list = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Array<{ importer: string, deps: string[] }>
let resolved = 0
for (const { importer, deps } of list) {
  const dir = path.resolve(importer)
  const require = createRequire(path.join(dir, 'package.json'))
  for (const dep of deps) {
    // A package may export neither its package.json nor a require() entry (an ESM-only or a
    // types-only package): then the installed directory is what there is to find.
    const found = [`${dep}/package.json`, dep].some((spec) => {
      try {
        require.resolve(spec)
        return true
      } catch {
        return false
      }
    }) || fs.existsSync(path.join(dir, 'node_modules', dep, 'package.json'))
    if (found) resolved++
    else console.log(`unresolved ${importer} ${dep}`)
  }
}
console.log(`resolved ${resolved}`)
