// The workspace's package directories (relative to `root`), from pnpm-workspace.yaml's `packages`:
// each pattern is a path whose segments may be `*` (`pkg-manager/*`, `pkg-manager/*/*`); a directory
// it names is a package when it has a package.json. Shared by gen-tsconfigs and check-imports.
import fs from 'node:fs'
import path from 'node:path'

export function workspacePackageDirs (root) {
  const workspace = fs.readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8')
  const packagesBlock = workspace.split(/^packages:\s*$/m)[1]?.split(/^\S/m)[0] ?? ''
  const patterns = [...packagesBlock.matchAll(/^ {2}- (\S+)$/gm)].map((m) => m[1].replace(/^['"]|['"]$/g, ''))
  const found = new Set()
  for (const pattern of patterns) {
    let dirs = ['']
    for (const segment of pattern.split('/')) {
      dirs = dirs.flatMap((dir) => segment !== '*'
        ? [path.posix.join(dir, segment)]
        : (fs.existsSync(path.join(root, dir)) ? fs.readdirSync(path.join(root, dir), { withFileTypes: true }) : [])
            .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
            .map((entry) => path.posix.join(dir, entry.name)))
    }
    for (const dir of dirs.sort()) if (fs.existsSync(path.join(root, dir, 'package.json'))) found.add(dir)
  }
  // In the patterns' order (the tiers, bottom first), each pattern's packages by name.
  return [...found]
}
