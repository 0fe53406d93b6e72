import { LodeError, printable } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { createReporter } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { editThenInstall } from './edit-then-install.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

// pnpm 11's `link <dir>` and `unlink`: a local directory linked through pnpm-workspace.yaml's
// `overrides` (`name: link:<dir>`) and, when the project does not depend on it yet, package.json's
// dependencies; then an install. A failed install puts both files back as they were.

/** A path, as pnpm tells one from a package name (`./x`, `../x`, `/x`, `~/x`, `C:\x`). */
const FILESPEC = /^(?:[.]|~[/]|[/\\]|[a-zA-Z]:)/

export async function linkCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { positionals, values } = input.args!
  if (positionals.length === 0) throw new LodeError('LINK_BAD_PARAMS', 'You must provide a parameter. Usage: lode link <dir>')
  const names = positionals.filter((param) => !FILESPEC.test(param))
  if (names.length > 0) throw new LodeError('LINK_BAD_PARAMS', `Cannot link by package name. Use a relative or absolute path instead, e.g. "lode link ./${names[0]}"`)
  const { rootDir, projectDir } = await locate(values['dir'] as string | undefined, ctx)
  const manifest = readJson(path.join(projectDir, 'package.json')) ?? {}
  const overrides = { ...await workspaceOverrides(rootDir) }
  for (const param of positionals) {
    const dir = path.resolve(ctx.cwd, param.startsWith('~/') ? path.join(ctx.env['HOME'] ?? '', param.slice(2)) : param)
    const name = linkedName(dir)
    overrides[name] = `link:${path.relative(rootDir, dir).split(path.sep).join('/')}`
    const groups = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']
    if (groups.every((group) => (manifest[group] as Record<string, unknown> | undefined)?.[name] === undefined)) {
      manifest['dependencies'] = { ...manifest['dependencies'] as object | undefined, [name]: `link:${path.relative(projectDir, dir).split(path.sep).join('/')}` }
    }
  }
  const code = await editThenInstall([path.join(projectDir, 'package.json'), path.join(rootDir, 'pnpm-workspace.yaml'), path.join(rootDir, 'pnpm-lock.yaml')], ctx, input, async () => {
    writeManifest(path.join(projectDir, 'package.json'), manifest)
    await updateOverrides(rootDir, overrides)
  })
  if (code === 0) {
    const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
    for (const param of positionals) {
      const warning = linkedPeersWarning(path.resolve(ctx.cwd, param.startsWith('~/') ? path.join(ctx.env['HOME'] ?? '', param.slice(2)) : param))
      if (warning !== undefined) reporter.warn(warning)
    }
  }
  return code
}

/** pnpm's warning for a linked package with peer dependencies: a link does not resolve them from the project's node_modules. */
function linkedPeersWarning (dir: string): string | undefined {
  const manifest = readJson(path.join(dir, 'package.json'))
  const peers = manifest?.['peerDependencies']
  if (peers === null || typeof peers !== 'object' || Object.keys(peers).length === 0) return undefined
  const name = printable(typeof manifest?.['name'] === 'string' ? manifest['name'] : path.basename(dir))
  const list = Object.entries(peers).map(([peer, range]) => `  - ${printable(peer)}@${printable(typeof range === 'string' ? range : JSON.stringify(range))}`).join(', ')
  return `The package ${name}, which you have just linked, has the following peerDependencies specified in its package.json:\n\n${list}\n\n` +
    'The linked in dependency will not resolve the peer dependencies from the target node_modules.\n' +
    'This might cause issues in your project. To resolve this, you may use the "file:" protocol to reference the local dependency.'
}

/** `lode unlink [<name>...]`: the `link:` overrides (all, or those named) and the dependencies they added go; then an install. */
export async function unlinkCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { positionals, values } = input.args!
  const { rootDir } = await locate(values['dir'] as string | undefined, ctx)
  const overrides = await workspaceOverrides(rootDir)
  if (overrides === undefined) {
    ctx.stdout.write('Nothing to unlink\n')
    return 0
  }
  const removed = Object.entries(overrides).filter(([name, spec]) => spec.startsWith('link:') && (positionals.length === 0 || positionals.includes(name)))
  const removedNames = new Set(removed.map(([name]) => name))
  const kept = Object.fromEntries(Object.entries(overrides).filter(([name]) => !removedNames.has(name)))
  const manifestFile = path.join(rootDir, 'package.json')
  const manifest = readJson(manifestFile)
  const dependencies = manifest?.['dependencies'] as Record<string, string> | undefined
  let changed = false
  for (const [name, spec] of removed) {
    // The dependency `link` added points where the override did.
    const target = path.resolve(rootDir, spec.slice('link:'.length))
    const own = dependencies?.[name]
    if (own?.startsWith('link:') === true && path.resolve(rootDir, own.slice('link:'.length)) === target) {
      delete dependencies![name]
      changed = true
    }
  }
  return await editThenInstall([manifestFile, path.join(rootDir, 'pnpm-workspace.yaml'), path.join(rootDir, 'pnpm-lock.yaml')], ctx, input, async () => {
    if (removed.length > 0) await updateOverrides(rootDir, Object.keys(kept).length === 0 ? null : kept)
    if (changed && manifest !== undefined) writeManifest(manifestFile, manifest)
  })
}

/** The workspace's root (or the project's directory outside one), and the project lode runs in. */
async function locate (dirOption: string | undefined, ctx: MainContext): Promise<{ rootDir: string, projectDir: string }> {
  const { findWorkspaceDir } = await import('@lode/pkg-manager.core')
  const cwd = path.resolve(ctx.cwd, dirOption ?? '.')
  let projectDir = cwd
  while (!fs.existsSync(path.join(projectDir, 'package.json')) && path.dirname(projectDir) !== projectDir) projectDir = path.dirname(projectDir)
  const rootDir = await findWorkspaceDir(cwd) ?? projectDir
  return { rootDir, projectDir: projectDir.startsWith(rootDir) ? projectDir : rootDir }
}

function linkedName (dir: string): string {
  const manifest = readJson(path.join(dir, 'package.json'))
  const name = typeof manifest?.['name'] === 'string' ? manifest['name'] : path.basename(dir)
  if (!/^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name) || name.length > 214) {
    throw new LodeError('INVALID_DEPENDENCY_NAME', `Cannot link "${dir}" under the invalid package name ${JSON.stringify(name)}`, {
      hint: 'A package is linked under the "name" field of its package.json, or under its directory name if it has no "name" field. That name must be a valid npm package name.',
    })
  }
  return name
}

async function workspaceOverrides (rootDir: string): Promise<Record<string, string> | undefined> {
  const { readWorkspaceYaml } = await import('@lode/pkg-manager.config.settings')
  const overrides = readWorkspaceYaml(rootDir)['overrides']
  return overrides !== null && typeof overrides === 'object' ? overrides as Record<string, string> : undefined
}

async function updateOverrides (rootDir: string, overrides: Record<string, string> | null): Promise<void> {
  const { updateWorkspaceYaml } = await import('@lode/pkg-manager.config.settings/workspace-yaml')
  await updateWorkspaceYaml(rootDir, { overrides })
}

function readJson (file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/** package.json written back with the indentation and the final newline it had (two spaces and a newline when new). */
function writeManifest (file: string, manifest: Record<string, unknown>): void {
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined
  const indent = /^[{[]\r?\n([ \t]+)/.exec(before ?? '')?.[1] ?? '  '
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, indent)}${before === undefined || before.endsWith('\n') ? '\n' : ''}`)
}
