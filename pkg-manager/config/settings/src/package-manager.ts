import { LodeError } from '@lode/core.error'

type OnFail = 'download' | 'error' | 'warn' | 'ignore'

interface WantedPackageManager {
  name: string
  onFail: OnFail | undefined
  field: 'packageManager' | 'devEngines.packageManager'
}

const ON_FAIL: readonly string[] = ['download', 'error', 'warn', 'ignore']

/**
 * pnpm 11's check of the package manager a project asks for (the root package.json's
 * `devEngines.packageManager`, else its `packageManager` field), with `pmOnFail` over the
 * field's own `onFail`:
 * - pnpm (any version) and lode itself: lode stands in for pnpm, so nothing is said (pnpm would
 *   switch to the version asked for);
 * - another package manager: `ERR_LODE_OTHER_PM_EXPECTED` when the outcome is `error` or
 *   `download` (the default), the same sentence as a warning (returned) for `warn`, nothing for
 *   `ignore`.
 */
export function checkPackageManager (manifest: unknown, pmOnFail: OnFail | undefined): string | undefined {
  const wanted = wantedPackageManager(manifest)
  if (wanted === undefined) return undefined
  const onFail = pmOnFail ?? wanted.onFail ?? 'download'
  if (onFail === 'ignore' || wanted.name === 'pnpm' || wanted.name === 'lode') return undefined
  const name = JSON.stringify(wanted.name).slice(1, -1)
  const message = `This project is configured to use ${name}`
  if (onFail === 'warn') return message
  throw new LodeError('OTHER_PM_EXPECTED', `${message} (${wanted.field} in package.json); lode stands in for pnpm only.`, {
    hint: `Use ${name} for this project, or set pmOnFail to warn or ignore in pnpm-workspace.yaml to go on with lode, as pnpm would.`,
  })
}

function wantedPackageManager (manifest: unknown): WantedPackageManager | undefined {
  if (typeof manifest !== 'object' || manifest === null) return undefined
  const { devEngines, packageManager } = manifest as { devEngines?: unknown, packageManager?: unknown }
  const fromDevEngines = devEnginesPackageManager(devEngines)
  if (fromDevEngines !== undefined) return fromDevEngines
  if (typeof packageManager !== 'string' || packageManager === '') return undefined
  // `name@version+hash`, `@scope/name@…`, or a bare name.
  const at = packageManager.indexOf('@', packageManager.startsWith('@') ? 1 : 0)
  return { name: at === -1 ? packageManager : packageManager.slice(0, at), onFail: undefined, field: 'packageManager' }
}

/**
 * `devEngines.packageManager`: one engine, or a list where pnpm's entry wins (its `onFail`, else
 * `error` when it is the last entry and `ignore` otherwise) and otherwise the first entry counts,
 * with the last entry's `onFail` (else `error`).
 */
function devEnginesPackageManager (devEngines: unknown): WantedPackageManager | undefined {
  if (typeof devEngines !== 'object' || devEngines === null) return undefined
  const value = (devEngines as { packageManager?: unknown }).packageManager
  const field = 'devEngines.packageManager'
  const engines = (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]).filter((engine): engine is Record<string, unknown> => typeof engine === 'object' && engine !== null)
  if (engines.length === 0) return undefined
  const onFailOf = (engine: Record<string, unknown>): OnFail | undefined => typeof engine['onFail'] === 'string' && ON_FAIL.includes(engine['onFail']) ? engine['onFail'] as OnFail : undefined
  if (!Array.isArray(value)) {
    const engine = engines[0]!
    return typeof engine['name'] === 'string' && engine['name'] !== '' ? { name: engine['name'], onFail: onFailOf(engine), field } : undefined
  }
  const pnpmAt = engines.findIndex((engine) => engine['name'] === 'pnpm')
  if (pnpmAt !== -1) return { name: 'pnpm', onFail: onFailOf(engines[pnpmAt]!) ?? (pnpmAt === engines.length - 1 ? 'error' : 'ignore'), field }
  const first = engines[0]!
  if (typeof first['name'] !== 'string' || first['name'] === '') return undefined
  return { name: first['name'], onFail: onFailOf(engines.at(-1)!) ?? 'error', field }
}
