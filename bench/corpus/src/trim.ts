import fs from 'node:fs'
import path from 'node:path'

/**
 * A dependency of an importer that cannot be resolved because the registry has no version for it,
 * or for one of its own dependencies (`why`). The registry a machine reaches may be a mirror that
 * lacks versions a repository asks for: then neither tool can resolve the repository, and (b)
 * resolves it again without that dependency (both tools, the same manifests).
 */
export interface Missing {
  importer: string
  name: string
  why: string
}

/**
 * The importers' dependencies to leave out for pnpm's ERR_PNPM_NO_MATCHING_VERSION: the one it
 * names when it is a direct dependency, else every direct dependency on the package whose
 * dependency it is (none when that package is deeper down: then nothing is left out).
 */
export function missingDependencies (output: string, project: string, importers: Array<{ importer: string, deps: string[] }>): Missing[] {
  const match = /No matching version found for (\S+) while fetching it[\s\S]*?This error happened while installing (?:a direct dependency of (\S+)|the dependencies of (\S+))/.exec(output)
  if (match === null) return []
  const wanted = match[1]!
  if (match[2] !== undefined) return [{ importer: path.relative(project, match[2]) || '.', name: wanted.slice(0, wanted.lastIndexOf('@')), why: wanted }]
  const parent = match[3]!.slice(0, match[3]!.lastIndexOf('@'))
  return importers.filter((i) => i.deps.includes(parent)).map((i) => ({ importer: i.importer, name: parent, why: `${match[3]!} needs ${wanted}` }))
}

/** Removes the dependency from its importer's manifest; the manifest's path, relative to the project, or null when it was not there. */
export function removeDependency (project: string, missing: Missing): string | null {
  const file = path.join(missing.importer, 'package.json')
  const text = fs.readFileSync(path.join(project, file), 'utf8')
  const manifest = JSON.parse(text) as Record<string, Record<string, string> | undefined>
  let removed = false
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    if (manifest[field]?.[missing.name] !== undefined) {
      delete manifest[field][missing.name]
      removed = true
    }
  }
  if (!removed) return null
  const indent = /^[ \t]+/m.exec(text)?.[0] ?? '  '
  fs.writeFileSync(path.join(project, file), JSON.stringify(manifest, null, indent) + '\n')
  return file
}
