// The mirror's on-disk layout, shared by the builder and the server:
//
//   <dir>/mirror.json                          { "cutoff": ISO date }
//   <dir>/packuments/<name, / as +>.full.json  full packument (Accept: application/json)
//   <dir>/packuments/<name, / as +>.abbr.json  abbreviated packument (install-v1)
//   <dir>/tarballs/<path after the registry>   e.g. tarballs/@babel/core/-/core-7.29.7.tgz
import fs from 'node:fs'
import path from 'node:path'

/** Stands for the mirror's URL (no trailing slash) in stored tarball URLs; the server fills it in. */
export const MIRROR_PLACEHOLDER = '{{MIRROR}}'

export type PackumentKind = 'full' | 'abbr'

// npm's rules for new names are stricter; this also admits legacy names (capitals) and nothing that
// could step out of a folder (no leading dot, no path separators beyond the scope's).
const NAME = /^(?:@[\w~-][\w.~-]*\/)?[\w~-][\w.~-]*$/

export function isPackageName (name: string): boolean {
  return NAME.test(name)
}

export function packumentFile (dir: string, name: string, kind: PackumentKind): string {
  return path.join(dir, 'packuments', `${name.replace('/', '+')}.${kind}.json`)
}

/**
 * Where the tarball at `urlPath` (a registry-relative URL path, percent-encoded or not) is kept, or
 * undefined when the path is unsafe (`..`, `.`, empty segments, NUL) or not valid percent-encoding.
 */
export function tarballFile (dir: string, urlPath: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  const segments = decoded.split('/')
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\0') || s.includes('\\'))) return undefined
  return path.join(dir, 'tarballs', ...segments)
}

let tempCounter = 0

/** Writes through a temporary file and a rename, so a reader never sees half a file. */
export async function writeAtomic (file: string, data: string | Buffer): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true })
  const temp = `${file}.${process.pid}.${tempCounter++}.tmp`
  await fs.promises.writeFile(temp, data)
  await fs.promises.rename(temp, file)
}

export function readCutoff (dir: string): Date | undefined {
  let text: string
  try {
    text = fs.readFileSync(path.join(dir, 'mirror.json'), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
  const cutoff = new Date((JSON.parse(text) as { cutoff?: unknown }).cutoff as string)
  if (Number.isNaN(cutoff.getTime())) throw new Error(`${path.join(dir, 'mirror.json')} has no valid cutoff`)
  return cutoff
}

/** Records the cut-off of a new mirror; a mirror built with another cut-off is refused. */
export async function claimMirrorDir (dir: string, cutoff: Date): Promise<void> {
  const existing = readCutoff(dir)
  if (existing === undefined) {
    await writeAtomic(path.join(dir, 'mirror.json'), JSON.stringify({ cutoff: cutoff.toISOString() }) + '\n')
  } else if (existing.getTime() !== cutoff.getTime()) {
    throw new Error(`${dir} holds a mirror cut off at ${existing.toISOString()}, not ${cutoff.toISOString()}: delete the directory to build it again`)
  }
}
