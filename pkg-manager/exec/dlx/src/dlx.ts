import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { parsePackageJson } from '@lode/fs.package-json'
import { getConfig, type Config, type ConfigOverrides } from '@lode/pkg-manager.config.settings'
import type { InstallEvent } from '@lode/pkg-manager.installing.installer'

/** What dlx asks of `add` (core's): the packages saved with exact versions and installed in `config.dir`. */
export type DlxAdd = (opts: {
  config: Config
  dependencies: readonly string[]
  exact: true
  now: () => number
  onEvent?: (event: InstallEvent) => void
}) => Promise<unknown>

export interface DlxOptions {
  /** What to install, as on pnpm's command line (`cowsay`, `create-vite@6`). */
  packages: readonly string[]
  /** pnpm's `--allow-build`: dependencies whose builds may run, besides the packages asked for. */
  allowBuild: readonly string[]
  /** The settings of the directory lode runs in (its registry, store, cache directory). */
  config: Config
  env: Readonly<Record<string, string | undefined>>
  overrides: ConfigOverrides
  now: () => number
  onEvent?: (event: InstallEvent) => void
}

/**
 * pnpm's `dlx`: the packages installed in a directory of their own under
 * `<cacheDir>/dlx/<key>/`, cached by what was asked for (the specs, the registry, the builds
 * allowed, the platform and Node's major version) for `dlxCacheMaxAge` minutes (`config`'s). `<key>/pkg` links
 * to the install in use; a new one replaces it only once it is complete, and a failed one is
 * removed. Returns the install's directory (its `node_modules/.bin` holds the commands).
 */
export async function dlxInstall (opts: DlxOptions, add: DlxAdd): Promise<{ dir: string, cached: boolean }> {
  const key = createHash('sha256').update(JSON.stringify([
    [...opts.packages].sort(),
    opts.config.registry,
    [...opts.allowBuild].sort(),
    { engine: `${process.platform};${process.arch};node${process.versions.node.split('.')[0]!}` },
  ])).digest('hex').slice(0, 32)
  const cacheDir = path.join(opts.config.cacheDir, 'dlx', key)
  const link = path.join(cacheDir, 'pkg')
  const stat = fs.lstatSync(link, { throwIfNoEntry: false })
  const maxAge = opts.config.dlxCacheMaxAge * 60_000
  if (stat?.isSymbolicLink() === true && stat.mtimeMs + maxAge >= opts.now() && fs.existsSync(path.join(link, 'node_modules'))) {
    return { dir: fs.realpathSync(link), cached: true }
  }
  const prepareDir = path.join(cacheDir, `${Date.now().toString(36)}-${process.pid.toString(36)}`)
  fs.mkdirSync(prepareDir, { recursive: true })
  try {
    fs.writeFileSync(path.join(prepareDir, 'package.json'), '{}\n')
    // The packages asked for may build, and so may those named by --allow-build; other builds are left out quietly.
    const allowed = [...new Set([...opts.packages.map(nameOfSpec), ...opts.allowBuild])]
    fs.writeFileSync(path.join(prepareDir, 'pnpm-workspace.yaml'), `strictDepBuilds: false\nallowBuilds:\n${allowed.map((name) => `  ${JSON.stringify(name)}: true`).join('\n')}\n`)
    // The install reads the machine's settings; the registry is the one where lode runs (its project's, too).
    const overrides = { registry: opts.config.registry, ...opts.overrides }
    const config = getConfig({ dir: prepareDir, env: opts.env, overrides, lodeVersion: opts.config.lodeVersion })
    const onEvent = opts.onEvent === undefined ? {} : { onEvent: opts.onEvent }
    await add({ config, dependencies: opts.packages, exact: true, now: opts.now, ...onEvent })
  } catch (err) {
    fs.rmSync(prepareDir, { recursive: true, force: true })
    throw err
  }
  // The new install takes the place of the old one in one step: a link made aside, then renamed over `pkg`.
  const tmpLink = `${link}.${process.pid}`
  fs.rmSync(tmpLink, { force: true })
  fs.symlinkSync(path.basename(prepareDir), tmpLink)
  fs.renameSync(tmpLink, link)
  return { dir: prepareDir, cached: false }
}

/**
 * The command `dlx <package>` runs, as pnpm picks it: the installed package's only bin, or among
 * several the one named as the package (without its scope). None, or several and none so named,
 * is an error naming them.
 */
export function dlxBin (dir: string): string {
  const manifest = parsePackageJson(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), path.join(dir, 'package.json'))
  const name = Object.keys(manifest['dependencies'] as Record<string, string> | undefined ?? {})[0]
  if (name === undefined) throw new LodeError('DLX_NO_BIN', 'No package was installed.')
  const file = path.join(dir, 'node_modules', name, 'package.json')
  const pkg = parsePackageJson(fs.readFileSync(file, 'utf8'), file)
  const bin = pkg['bin']
  const bins = typeof bin === 'string' ? [name.replace(/^@[^/]+\//, '')] : bin !== null && typeof bin === 'object' ? Object.keys(bin) : []
  if (bins.length === 1) return bins[0]!
  if (bins.length === 0) throw new LodeError('DLX_NO_BIN', `No binaries found in ${name}`)
  const own = name.replace(/^@[^/]+\//, '')
  if (bins.includes(own)) return own
  throw new LodeError('DLX_MULTIPLE_BINS', `Could not determine executable to run. ${name} has multiple binaries: ${bins.join(', ')}`, {
    hint: `Try one of the following:\n${bins.map((one) => `lode --package=${name} dlx ${one}`).join('\n')}\n`,
  })
}

/** `cowsay@1.6.0` → `cowsay`, `@s/x@1` → `@s/x`, `alias@npm:x` → `alias`. */
function nameOfSpec (spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0)
  return at === -1 ? spec : spec.slice(0, at)
}
