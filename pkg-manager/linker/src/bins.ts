import fs from 'node:fs/promises'
import path from 'node:path'

import { hasErrno } from '@lode/fs.error'
import { parsePackageJson } from '@lode/fs.package-json'
import { cmdShim } from '@zkochan/cmd-shim'

/** A package whose executables go into a `.bin` directory. */
export interface BinProvider {
  /** Its directory (with its `package.json`). */
  dir: string
  /** Directories a shim puts on `NODE_PATH`, as pnpm's `extendNodePath` does. */
  nodePath: string[]
  /** A linked directory (a workspace project): its files are the user's, so pnpm leaves their modes alone. */
  linked?: boolean
}

/**
 * Writes a shell shim in `binDir` for every executable the providers declare (`bin` as a string or
 * a map, or `directories.bin`), and makes each target executable (a linked one's aside). When two providers declare one
 * name, the package named like the command wins, else the first; names in `exclude` are left
 * alone. Returns the names written.
 */
export async function linkBins (binDir: string, providers: readonly BinProvider[], opts: LinkBinsOptions = {}): Promise<string[]> {
  const exclude = opts.exclude ?? new Set()
  const chosen = new Map<string, { target: string, provider: BinProvider, ownName: boolean }>()
  for (const provider of providers) {
    // A link may point at a directory with no package.json (or none at all): no bins there.
    const manifest = await readManifest(provider.dir, opts.manifests).catch((err: unknown): Record<string, unknown> => {
      if (provider.linked === true && hasErrno(err, 'ENOENT')) return {}
      throw err
    })
    const name = typeof manifest['name'] === 'string' ? manifest['name'] : ''
    for (const [command, file] of await binsOf(provider.dir, manifest)) {
      if (exclude.has(command)) continue
      const current = chosen.get(command)
      const ownName = name.replace(/^@[^/]+\//, '') === command
      if (current === undefined || (ownName && !current.ownName)) chosen.set(command, { target: path.join(provider.dir, file), provider, ownName })
    }
  }
  if (chosen.size === 0) return []
  await fs.mkdir(binDir, { recursive: true })
  await Promise.all([...chosen].map(async ([command, { target, provider }]) => {
    try {
      if (provider.linked === true) await fs.access(target)
      else await fs.chmod(target, 0o755)
    } catch (err) {
      if (hasErrno(err, 'ENOENT')) return // a declared file the package does not ship: no command
      throw err
    }
    await cmdShim(target, path.join(binDir, command), { createCmdFile: false, createPwshFile: false, nodePath: provider.nodePath })
  }))
  return [...chosen.keys()]
}

export interface LinkBinsOptions {
  /** Commands not to write (already written from a provider that takes precedence). */
  exclude?: ReadonlySet<string>
  /** Manifests already read, by package directory: one install reads each bin package once. */
  manifests?: Map<string, Promise<Record<string, unknown>>>
}

function readManifest (dir: string, cache: Map<string, Promise<Record<string, unknown>>> | undefined): Promise<Record<string, unknown>> {
  const file = path.join(dir, 'package.json')
  let manifest = cache?.get(dir)
  if (manifest === undefined) {
    manifest = fs.readFile(file, 'utf8').then((text) => parsePackageJson(text, file))
    cache?.set(dir, manifest)
  }
  return manifest
}

/** command → file inside the package, from `bin` or `directories.bin`; unsafe names and paths are dropped. */
async function binsOf (dir: string, manifest: Record<string, unknown>): Promise<Array<[string, string]>> {
  const name = typeof manifest['name'] === 'string' ? manifest['name'] : undefined
  const bin = manifest['bin']
  let entries: Array<[string, string]> = []
  if (typeof bin === 'string' && name !== undefined) entries = [[name.replace(/^@[^/]+\//, ''), bin]]
  else if (typeof bin === 'object' && bin !== null) entries = Object.entries(bin).filter((e): e is [string, string] => typeof e[1] === 'string')
  else {
    const binDir = (manifest['directories'] as { bin?: unknown } | undefined)?.bin
    if (typeof binDir === 'string') {
      const files = await fs.readdir(path.join(dir, binDir)).catch(() => [] as string[])
      entries = files.map((file) => [file, path.join(binDir, file)])
    }
  }
  return entries
    .map(([command, file]): [string, string] => [command.replace(/^@[^/]+\//, ''), file])
    .filter(([command, file]) => /^[^/\\:*?"<>|]+$/.test(command) && command !== '.' && command !== '..' && !path.normalize(file).startsWith('..') && !path.isAbsolute(file))
}
