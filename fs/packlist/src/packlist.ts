import fs from 'node:fs'
import path from 'node:path'

import packlist from 'npm-packlist'

/**
 * The files `npm pack` would put in the package of `dir` (npm-packlist, as pnpm 11 uses it: the
 * `files` field, `.npmignore` or `.gitignore`, the files always or never packed), relative and
 * `/`-separated, sorted. `manifest` is the package.json npm-packlist reads (the one to be packed).
 * In a workspace (`workspaceDir` above `dir`) without its own `.npmignore`, the ignore files between
 * the workspace root and the package count too, as pnpm has npm-packlist read them. Only what stays
 * inside the package is listed: a file or symlink whose real target is outside `dir` (a link to
 * `/etc/passwd` in a repository) is left out; `symlinks: false` leaves every symlink out.
 */
export async function packedFiles (
  dir: string,
  manifest: Record<string, unknown>,
  opts: { workspaceDir?: string | undefined, symlinks?: boolean } = {}
): Promise<string[]> {
  const root = path.resolve(dir)
  const tree = {
    path: root,
    package: packlistManifest(manifest),
    isProjectRoot: true,
    isLink: false,
    edgesOut: new Map(),
  } as unknown as Parameters<typeof packlist>[0]
  tree.target = tree
  const workspaceDir = opts.workspaceDir === undefined ? undefined : path.resolve(opts.workspaceDir)
  const inWorkspace = workspaceDir !== undefined && workspaceDir !== root && !path.relative(workspaceDir, root).startsWith('..')
  const walkOptions = inWorkspace && !fs.existsSync(path.join(root, '.npmignore')) ? { prefix: workspaceDir, workspaces: [root] } : undefined
  const realRoot = fs.realpathSync(root)
  const files = (await packlist(tree, walkOptions)).map((entry) => entry.replace(/^\.[/\\]/, '').split(path.sep).join('/'))
  return files.filter((file) => staysInside(root, realRoot, file, opts.symlinks !== false)).sort()
}

/** A regular file, or a symlink to one inside the package, whose real place is inside it. */
function staysInside (root: string, realRoot: string, file: string, symlinks: boolean): boolean {
  const full = path.join(root, file)
  const stat = fs.lstatSync(full, { throwIfNoEntry: false })
  if (stat === undefined || (stat.isSymbolicLink() && !symlinks) || (!stat.isFile() && !stat.isSymbolicLink())) return false
  try {
    const relative = path.relative(realRoot, fs.realpathSync(full))
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
  } catch {
    return false
  }
}

/** The manifest as npm-packlist reads it (pnpm's normalization): `./` dropped from main, browser and bins, a bin string named. */
function packlistManifest (manifest: Record<string, unknown>): Record<string, unknown> {
  const strip = (file: string): string => file.replace(/^\.[/\\]/, '')
  const out: Record<string, unknown> = { ...manifest, bundleDependencies: [] }
  delete out['bundledDependencies']
  if (typeof out['main'] === 'string') out['main'] = strip(out['main'])
  if (typeof out['browser'] === 'string') out['browser'] = strip(out['browser'])
  const bin = out['bin']
  if (typeof bin === 'string') {
    out['bin'] = { [typeof manifest['name'] === 'string' && manifest['name'] !== '' ? manifest['name'] : 'bin']: strip(bin) }
  } else if (bin !== null && typeof bin === 'object') {
    out['bin'] = Object.fromEntries(Object.entries(bin).map(([key, value]) => [key, typeof value === 'string' ? strip(value) : value]))
  }
  return out
}
