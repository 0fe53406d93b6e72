import type { Config } from '@lode/pkg-manager.config.settings'
import { pingRegistry } from '@lode/pkg-manager.registry.access'

const fs = process.getBuiltinModule('node:fs')
const os = process.getBuiltinModule('node:os')
const path = process.getBuiltinModule('node:path')

// pnpm 11's `doctor` checks, on lode's own directories: each says pass, warn or fail, what it found,
// and for a warning or a failure what to do.

export interface Check {
  title: string
  status: 'pass' | 'warn' | 'fail'
  detail?: string | undefined
  fix?: string | undefined
  /** With --benchmark: how long the check took. */
  durationMs?: number | undefined
}

export interface DoctorOptions {
  /** lode's version. */
  version: string
  /** No check that needs the network (--offline). */
  offline: boolean
  /** Time the filesystem and install checks (--benchmark). */
  benchmark: boolean
  /** Installs a `file:` dependency offline with lode itself, in `consumer` (its store and cache under `base`); its exit code and stderr. */
  installOffline: (consumer: string, base: string) => { status: number | null, stderr: string }
  onWarning: (message: string) => void
}

/** Every check, in pnpm's order. */
export async function diagnose (config: Config, opts: DoctorOptions): Promise<Check[]> {
  return [
    { title: 'Versions', status: 'pass', detail: `lode ${opts.version}, Node.js ${process.versions.node}` },
    writableDir('Cache directory', config.cacheDir),
    writableDir('Store directory', config.storeDir),
    await filesystem(config, opts),
    await connectivity(config, opts),
    await installSmokeTest(opts),
  ]
}

/** A directory lode writes into: made if missing (lode makes it when it first needs it), then written once. */
function writableDir (title: string, dir: string): Check {
  try {
    fs.mkdirSync(dir, { recursive: true })
    const probe = path.join(dir, `.lode-doctor-write-${process.pid}`)
    fs.writeFileSync(probe, '')
    fs.rmSync(probe, { force: true })
    return { title, status: 'pass', detail: dir }
  } catch {
    return { title, status: 'fail', detail: `no write access to ${dir}`, fix: 'Fix the directory permissions or point the setting at a writable path.' }
  }
}

/** Which of reflink, hardlink and symlink work in the store's filesystem (installs hard link from the store). */
async function filesystem (config: Config, opts: DoctorOptions): Promise<Check> {
  const title = 'Filesystem'
  let probe: string
  try {
    probe = await fs.promises.mkdtemp(path.join(config.storeDir, '.lode-doctor-'))
  } catch {
    probe = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'lode-doctor-'))
  }
  const started = Date.now()
  try {
    const source = path.join(probe, 'source')
    await fs.promises.writeFile(source, 'lode-doctor')
    const works = {
      reflink: attempt(() => { fs.copyFileSync(source, path.join(probe, 'reflink'), fs.constants.COPYFILE_FICLONE_FORCE) }),
      hardlink: attempt(() => { fs.linkSync(source, path.join(probe, 'hardlink')) }),
      symlink: attempt(() => { fs.symlinkSync(source, path.join(probe, 'symlink')) }),
    }
    const available = Object.entries(works).filter(([, ok]) => ok).map(([name]) => name)
    const status = works.reflink || works.hardlink ? 'pass' : 'warn'
    return {
      title,
      status,
      detail: available.length > 0 ? `available: ${available.join(', ')}` : 'only copying is available',
      fix: status === 'warn' ? 'Neither reflink nor hardlink works between the store and this project; installs will copy files and be slower. Put the store on the same filesystem as your projects.' : undefined,
      durationMs: opts.benchmark ? Date.now() - started : undefined,
    }
  } finally {
    await fs.promises.rm(probe, { recursive: true, force: true })
  }
}

function attempt (work: () => void): boolean {
  try {
    work()
    return true
  } catch {
    return false
  }
}

/** One ping of the default registry (skipped offline). */
async function connectivity (config: Config, opts: DoctorOptions): Promise<Check> {
  const title = 'Registry connectivity'
  if (opts.offline) return { title, status: 'pass', detail: 'skipped (--offline)' }
  const started = Date.now()
  try {
    await pingRegistry({ ...config, fetchTimeout: Math.min(config.fetchTimeout, 15_000) }, { onWarning: opts.onWarning })
    return { title, status: 'pass', detail: `${config.registry} (${Date.now() - started}ms)` }
  } catch (err) {
    return { title, status: 'fail', detail: `could not reach ${config.registry}: ${(err as Error).message}`, fix: 'Check your network, proxy, and registry configuration.' }
  }
}

/** An offline install of a `file:` dependency in a scratch directory, by lode itself: does it link? */
async function installSmokeTest (opts: DoctorOptions): Promise<Check> {
  const title = 'Install smoke test'
  const base = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'lode-doctor-install-'))
  const started = Date.now()
  try {
    const provider = path.join(base, 'provider')
    const consumer = path.join(base, 'consumer')
    fs.mkdirSync(provider)
    fs.mkdirSync(consumer)
    fs.writeFileSync(path.join(provider, 'package.json'), JSON.stringify({ name: 'lode-doctor-fixture', version: '0.0.0' }))
    fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({
      name: 'lode-doctor-consumer', version: '0.0.0', private: true, dependencies: { 'lode-doctor-fixture': 'file:../provider' },
    }))
    const result = opts.installOffline(consumer, base)
    if (result.status !== 0) {
      const last = result.stderr.split('\n').filter((line) => line.trim() !== '').at(-1)
      return { title, status: 'fail', detail: `offline "file:" install failed${last === undefined ? '' : `: ${last}`}`, fix: 'Run "lode install" in a scratch project to see the full error.' }
    }
    if (!fs.existsSync(path.join(consumer, 'node_modules', 'lode-doctor-fixture', 'package.json'))) {
      return { title, status: 'fail', detail: 'install reported success but the dependency was not linked' }
    }
    return { title, status: 'pass', detail: 'offline "file:" install linked its dependency', durationMs: opts.benchmark ? Date.now() - started : undefined }
  } finally {
    await fs.promises.rm(base, { recursive: true, force: true })
  }
}
