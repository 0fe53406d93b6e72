import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/** The package managers the benchmark races, each installed from the npm registry at a fixed version. */
export const TOOL_PACKAGES: Record<string, string> = {
  pnpm11: 'npm:pnpm@11.28.11',
  pnpm12: 'npm:pnpm@12.21.0',
  bun: 'npm:bun@1.4.4',
}

export type ToolName = 'lode' | 'pnpm11' | 'pnpm12' | 'bun' | 'bun-isolated'
export const TOOL_NAMES: readonly ToolName[] = ['lode', 'pnpm11', 'pnpm12', 'bun', 'bun-isolated']
export const DEFAULT_TOOLS: readonly ToolName[] = ['lode', 'pnpm11', 'pnpm12', 'bun']

/** Where one tool keeps its state in the work dir: its project copy, its store and caches. */
export interface ToolDirs {
  project: string
  /** Everything "cache" means for this tool: store, metadata cache, HOME. Deleted as one. */
  cache: string
  store: string
}

export interface Tool {
  name: ToolName
  version: string
  /** The lockfile this tool reads and writes. */
  lockfile: 'pnpm-lock.yaml' | 'bun.lock'
  /** The command line of `install` (or `update`, `add`) with the tool's own store and cache. */
  command: (kind: 'install' | 'update' | 'add', dirs: ToolDirs, extra: string[]) => { file: string, args: string[], env: Record<string, string> }
}

export interface ToolPaths {
  /** The Node that runs lode and pnpm 11 (the toolchain's Node 24). */
  node: string
  /** lode's CLI entry. */
  lodeBin: string
  /** Where `installTools` put the other tools. */
  toolsDir: string
}

/** Installs pnpm 11, pnpm 12 and bun with the system npm into `toolsDir` (once; no lockfile, so no registry host is recorded). */
export function installTools (toolsDir: string, log: (line: string) => void): void {
  const manifest = { private: true, dependencies: TOOL_PACKAGES }
  const manifestFile = path.join(toolsDir, 'package.json')
  const wanted = JSON.stringify(manifest, null, 2) + '\n'
  const installed = fs.existsSync(path.join(toolsDir, 'node_modules', '.installed')) &&
    fs.readFileSync(manifestFile, 'utf8') === wanted
  if (installed) return
  log(`installing ${Object.values(TOOL_PACKAGES).join(', ')} into ${toolsDir}`)
  fs.mkdirSync(toolsDir, { recursive: true })
  fs.writeFileSync(manifestFile, wanted)
  execFileSync('npm', ['install', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: toolsDir, stdio: 'inherit' })
  fs.writeFileSync(path.join(toolsDir, 'node_modules', '.installed'), '')
}

function versionOf (dir: string): string {
  return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version
}

/**
 * pnpm 12's native binary, from the platform package of the same version (pnpm 11's JS launcher
 * otherwise). The version check matters: pnpm 12's platform package sits at the top of the tools'
 * node_modules, where pnpm 11 would find it too.
 */
function pnpmExecutable (modules: string, pkgDir: string): { file: string, viaNode: boolean } {
  const platformDir = path.join(modules, '@pnpm', `exe.${process.platform}-${process.arch}`)
  if (fs.existsSync(path.join(platformDir, 'pnpm')) && versionOf(platformDir) === versionOf(pkgDir)) {
    return { file: path.join(platformDir, 'pnpm'), viaNode: false }
  }
  return { file: path.join(pkgDir, 'bin', 'pnpm.mjs'), viaNode: true }
}

/** Variables that would leak the developer's own settings, CI mode or update checks into a run. */
function baseEnv (dirs: ToolDirs): Record<string, string> {
  return {
    HOME: path.join(dirs.cache, 'home'),
    XDG_CACHE_HOME: path.join(dirs.cache, 'xdg-cache'),
    XDG_DATA_HOME: path.join(dirs.cache, 'xdg-data'),
    XDG_STATE_HOME: path.join(dirs.cache, 'xdg-state'),
    XDG_CONFIG_HOME: path.join(dirs.cache, 'xdg-config'),
    npm_config_update_notifier: 'false',
    pnpm_config_update_notifier: 'false',
    COREPACK_ENABLE_STRICT: '0',
  }
}

export function loadTools (paths: ToolPaths, names: readonly ToolName[]): Tool[] {
  const modules = path.join(paths.toolsDir, 'node_modules')
  return names.map((name): Tool => {
    switch (name) {
      case 'lode':
        return {
          name,
          version: versionOf(path.resolve(paths.lodeBin, '..', '..')),
          lockfile: 'pnpm-lock.yaml',
          command: (kind, dirs, extra) => ({
            file: paths.node,
            args: [paths.lodeBin, kind, '--store-dir', dirs.store, '--cache-dir', path.join(dirs.cache, 'meta'), '--ignore-scripts', ...extra],
            env: baseEnv(dirs),
          }),
        }
      case 'pnpm11':
      case 'pnpm12': {
        const pkgDir = path.join(modules, name)
        const exe = pnpmExecutable(modules, pkgDir)
        return {
          name,
          version: versionOf(pkgDir),
          lockfile: 'pnpm-lock.yaml',
          command: (kind, dirs, extra) => {
            const args = [kind, '--store-dir', dirs.store, '--ignore-scripts', ...extra]
            return exe.viaNode
              ? { file: paths.node, args: [exe.file, ...args], env: baseEnv(dirs) }
              : { file: exe.file, args, env: baseEnv(dirs) }
          },
        }
      }
      case 'bun':
      case 'bun-isolated': {
        const pkgDir = path.join(modules, 'bun')
        const native = path.join(modules, '@oven', `bun-${process.platform}-${process.arch}`, 'bin', 'bun')
        const file = fs.existsSync(native) ? native : path.join(pkgDir, 'bin', 'bun.exe')
        return {
          name,
          version: versionOf(pkgDir),
          lockfile: 'bun.lock',
          command: (kind, dirs, extra) => ({
            file,
            args: [kind, '--ignore-scripts', ...(name === 'bun-isolated' ? ['--linker', 'isolated'] : []), ...extra],
            env: { ...baseEnv(dirs), BUN_INSTALL_CACHE_DIR: path.join(dirs.cache, 'bun') },
          }),
        }
      }
    }
    throw new Error(`unknown tool ${String(name)}`)
  })
}
