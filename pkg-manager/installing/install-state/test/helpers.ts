import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import type { Config } from '@lode/pkg-manager.config.settings'
import { getConfig } from '@lode/pkg-manager.config.settings'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { writeInstallState } from '../src/install-state.js'
import { writePnpmWorkspaceState } from '../src/pnpm-workspace-state.js'
import { quickKey } from '../src/quick-check.js'
import type { QuickKey } from '../src/quick-check.js'

/** A sandbox: `project/` (a package.json, a lockfile, node_modules with `.modules.yaml`), `home/`, and `outside/` beside them. */
export interface Sandbox {
  root: string
  dir: string
  outside: string
  env: Record<string, string>
  quick: QuickKey
  config: Config
}

const LOCKFILE = "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .: {}\n"

export function sandbox (): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-state-'))
  const dir = path.join(root, 'project')
  const outside = path.join(root, 'outside')
  const home = path.join(root, 'home')
  fs.mkdirSync(path.join(dir, 'node_modules', '.pnpm'), { recursive: true })
  fs.mkdirSync(path.join(outside, 'x', 'a'), { recursive: true })
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0' }))
  fs.writeFileSync(path.join(dir, 'pnpm-lock.yaml'), LOCKFILE)
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret', { mode: 0o600 })
  fs.writeFileSync(path.join(outside, 'x', 'keep.txt'), 'precious')
  fs.writeFileSync(path.join(outside, 'pid'), '1')
  const env = { HOME: home, XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_CACHE_HOME: path.join(home, '.cache') }
  const config = getConfig({ dir, env, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: () => 'http://127.0.0.1:9/' })
  fs.writeFileSync(path.join(dir, 'node_modules', '.modules.yaml'), JSON.stringify({
    layoutVersion: 5,
    storeDir: path.join(config.storeDir, 'v11'),
    virtualStoreDir: config.virtualStoreDir,
  }, undefined, 2))
  return { root, dir, outside, env, quick: quickKey({ cwd: dir, env, flags: {}, version: '0.0.0' }), config }
}

/** lode's record of a complete install of the sandbox, with the quick key: as the CLI leaves it. */
export async function writeState (box: Sandbox): Promise<Record<string, unknown>> {
  const { installInputs } = await import('../src/install-state.js')
  const inputs = (await installInputs({ config: box.config }))!
  await writeInstallState({ config: box.config, quickKey: box.quick.key }, inputs, 0)
  return JSON.parse(fs.readFileSync(path.join(box.dir, 'node_modules', '.lode-state.json'), 'utf8')) as Record<string, unknown>
}

/** pnpm's record of the sandbox's install, as lode writes it after one. */
export async function writePnpmState (box: Sandbox): Promise<void> {
  const lockfile: Lockfile = { lockfileVersion: '9.0', importers: { '.': {} } }
  await writePnpmWorkspaceState({
    config: box.config,
    projects: [{ id: '.', dir: box.dir }],
    selected: undefined,
    include: { dependencies: true, devDependencies: true, optionalDependencies: true },
    lockfile,
    now: Date.now,
  }, (message) => { throw new Error(message) })
}

export { snapshot } from '@lode/__utils__.test-fixtures'
