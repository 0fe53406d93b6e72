import path from 'node:path'

import { LodeError } from '@lode/core.error'

// Through process.getBuiltinModule, not `import`: the no-op's quick check loads this module, and an
// ESM import of node:fs builds a facade that runs its lazy getters (fs streams: ~19 ms).
const fs = process.getBuiltinModule('node:fs')

/**
 * Refuses a `node_modules` that is a symlink out of its project into a directory that is neither
 * empty nor a `node_modules` lode or pnpm laid out (one with `.modules.yaml`). A repository can
 * carry `node_modules` as a symlink (`node_modules/` in .gitignore does not match one): followed, an
 * install would link packages over what is in `~/.config` or wherever it leads. A link a user made
 * to put node_modules on another disk leads to an empty directory first, then to its own layout.
 * (Its own subpath, `@lode/core.safe-name/modules-dir`, without the name rule's dependency: the
 * install lock checks it before anything else loads.)
 */
export function assertOwnModulesDir (modulesDir: string): void {
  const stats = fs.lstatSync(modulesDir, { throwIfNoEntry: false })
  if (stats?.isSymbolicLink() !== true) return
  let target: string
  try {
    target = fs.realpathSync(modulesDir)
  } catch {
    // A link that leads nowhere: the caller's mkdir says so.
    return
  }
  const relative = path.relative(fs.realpathSync(path.dirname(modulesDir)), target)
  if (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)) return
  let entries: string[]
  try {
    entries = fs.readdirSync(target)
  } catch {
    return
  }
  // lode's own files (`.lode-install.lock`, which the install takes before it links) do not count.
  if (entries.every((entry) => entry.startsWith('.lode-')) || entries.includes('.modules.yaml')) return
  throw new LodeError('INVALID_MODULES_DIR', `${modulesDir} is a symlink to ${target}, a directory outside the project that holds other files than a node_modules: lode does not install into it.`, {
    hint: 'If the repository carries this link, remove it (lode makes node_modules itself). If you made it to keep node_modules elsewhere, point it at an empty directory.',
  })
}
