import fs from 'node:fs'
import path from 'node:path'

import { isSafeBinName, joinInside } from '@lode/core.safe-name'
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
  /**
   * Where a link points (a workspace project's directory): its package.json is read (once per
   * install, however many projects link it) there, while the shims go through the link.
   */
  target?: string
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
    const manifest = await readManifest(provider.target ?? provider.dir, opts.manifests).catch((err: unknown): Record<string, unknown> => {
      if (provider.linked === true && hasErrno(err, 'ENOENT')) return {}
      throw err
    })
    const name = typeof manifest['name'] === 'string' ? manifest['name'] : ''
    for (const [command, file] of binsOf(provider.dir, manifest)) {
      if (exclude.has(command)) continue
      const current = chosen.get(command)
      const ownName = name.replace(/^@[^/]+\//, '') === command
      if (current === undefined || (ownName && !current.ownName)) chosen.set(command, { target: path.join(provider.dir, file), provider, ownName })
    }
  }
  if (chosen.size === 0) return []
  fs.mkdirSync(binDir, { recursive: true })
  for (const [command, { target, provider }] of chosen) {
    try {
      if (provider.linked === true) fs.accessSync(target)
      else fs.chmodSync(target, 0o755)
    } catch (err) {
      if (hasErrno(err, 'ENOENT')) continue // a declared file the package does not ship: no command
      throw err
    }
    await cmdShim(target, path.join(binDir, command), { createCmdFile: false, createPwshFile: false, nodePath: provider.nodePath, fs: syncFs })
  }
  return [...chosen.keys()]
}

/**
 * cmd-shim's file operations, done synchronously: a shim is a few small reads and writes, each
 * cheaper than its round trip through libuv's threads (a workspace's few hundred shims took
 * 100 ms of an install's end the asynchronous way).
 */
const syncFs = {
  promises: {
    chmod: settled(fs.chmodSync),
    // linkBins made the directory before any shim.
    mkdir: async () => { await Promise.resolve() },
    // cmd-shim reads a target only for its first line (the shebang).
    readFile: settled(readHead),
    stat: settled(fs.statSync),
    unlink: settled(fs.unlinkSync),
    writeFile: settled(fs.writeFileSync),
  },
} as unknown as typeof fs

/** A synchronous call as a settled promise. */
function settled<A extends unknown[], R> (fn: (...args: A) => R): (...args: A) => Promise<R> {
  return async (...args) => await new Promise<R>((resolve) => { resolve(fn(...args)) })
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
    manifest = settled(() => parsePackageJson(fs.readFileSync(file, 'utf8'), file))()
    cache?.set(dir, manifest)
  }
  return manifest
}

/** command → file inside the package, from `bin` or `directories.bin`; unsafe names and paths are dropped. */
function binsOf (dir: string, manifest: Record<string, unknown>): Array<[string, string]> {
  const name = typeof manifest['name'] === 'string' ? manifest['name'] : undefined
  const bin = manifest['bin']
  let entries: Array<[string, string]> = []
  if (typeof bin === 'string' && name !== undefined) entries = [[name.replace(/^@[^/]+\//, ''), bin]]
  else if (typeof bin === 'object' && bin !== null) entries = Object.entries(bin).filter((e): e is [string, string] => typeof e[1] === 'string')
  else {
    const binDir = (manifest['directories'] as { bin?: unknown } | undefined)?.bin
    // A directory outside the package is not listed at all.
    const binPath = typeof binDir === 'string' ? joinInside(dir, binDir) : undefined
    if (binPath !== undefined) entries = readdirOrNothing(binPath).map((file) => [file, path.join(binDir as string, file)])
  }
  return entries
    .map(([command, file]): [string, string] => [command.replace(/^@[^/]+\//, ''), file])
    .filter(([command, file]) => isSafeBinName(command) && joinInside(dir, file) !== undefined)
}

function readdirOrNothing (dir: string): string[] {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

/** The first 4 KiB of a file, as text: a shebang line is in it, and a bin can be a large bundle or a native executable. */
function readHead (file: string): string {
  const fd = fs.openSync(file, 'r')
  try {
    const head = Buffer.allocUnsafe(4096)
    return head.toString('utf8', 0, fs.readSync(fd, head, 0, head.length, 0))
  } finally {
    fs.closeSync(fd)
  }
}
