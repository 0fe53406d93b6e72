// Writes each package's tsconfig.json (project references from its workspace dependencies) and the
// root tsconfig.json that references every package. Run after adding a package or a dependency.
import fs from 'node:fs'
import path from 'node:path'

import { workspacePackageDirs } from './workspace-packages.mjs'

const root = path.resolve(import.meta.dirname, '..')
const dirs = workspacePackageDirs(root)
const byName = new Map(dirs.map((dir) => [JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')).name, dir]))

for (const dir of dirs) {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'))
  const deps = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((n) => byName.has(n)).sort()
  const include = ['src', 'test'].filter((d) => fs.existsSync(path.join(root, dir, d)))
  const tsconfig = {
    extends: path.relative(dir, 'tsconfig.base.json'),
    compilerOptions: { rootDir: '.', outDir: 'dist' },
    include,
    references: deps.map((n) => ({ path: path.relative(dir, byName.get(n)) })),
  }
  fs.writeFileSync(path.join(root, dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2) + '\n')
}
const rootConfig = { files: [], references: dirs.map((dir) => ({ path: dir })) }
fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify(rootConfig, null, 2) + '\n')
