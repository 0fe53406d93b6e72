import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { isValidPackageName } from '@lode/core.safe-name'

/**
 * The directory of an installed package, as pnpm 12's `edit` finds it: `<name>` in the project's
 * node_modules (its real directory, in the virtual store), `<name>/<dep>` (a scoped name counts as
 * one) in that package's node_modules, and so on. Every name passes the package name rule first: a
 * path given is never a path into elsewhere.
 */
export function installedPackageDir (projectDir: string, packagePath: string): string {
  const segments = packagePath.split('/')
  const names: string[] = []
  for (let i = 0; i < segments.length; i++) names.push(segments[i]!.startsWith('@') ? `${segments[i]!}/${segments[++i] ?? ''}` : segments[i]!)
  let dir = projectDir
  // Where the next name is looked for: the project's node_modules, then a package's own, and the
  // node_modules it sits in (its siblings there are its dependencies, in pnpm's layout).
  let candidates = [path.join(projectDir, 'node_modules')]
  let under = candidates[0]!
  for (const name of names) {
    if (!isValidPackageName(name)) {
      throw new LodeError('INVALID_PACKAGE_NAME', `"${packagePath}" is not a package path: "${name}" is not a package name.`, { hint: 'lode edit <name> or <name>/<dependency>, as lode list shows them.' })
    }
    const found = candidates.map((modulesDir) => realDirectory(path.join(modulesDir, name))).find((real) => real !== undefined)
    if (found === undefined) throw new LodeError('PACKAGE_NOT_FOUND', `Could not find package '${name}' under '${under}'`, { hint: 'Install it first; lode list shows what is installed.' })
    dir = found
    under = found
    const containing = name.includes('/') ? path.dirname(path.dirname(found)) : path.dirname(found)
    candidates = [path.join(found, 'node_modules'), ...path.basename(containing) === 'node_modules' ? [containing] : []]
  }
  return dir
}

function realDirectory (file: string): string | undefined {
  try {
    const real = fs.realpathSync(file)
    return fs.statSync(real).isDirectory() ? real : undefined
  } catch {
    return undefined
  }
}
