import type { MainContext } from '../context.js'
import { writeLodeError } from '../report-error.js'
import { createReporter, formatDuration } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { VERSION } from '../version.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

/** `lode rebuild [names…]`: the build scripts of installed packages (all that have them and are allowed, or the named ones). */
export async function rebuildCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals: names } = input.args!
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const { print, warn, style } = reporter
  const { checkPackageManager, getConfig, readProjectManifest, rebuild } = await import('@lode/pkg-manager.core')
  const started = Date.now()
  try {
    const storeDir = values['store-dir'] as string | undefined
    const config = getConfig({
      dir: path.resolve(ctx.cwd, values['dir'] as string | undefined ?? '.'),
      env: ctx.env,
      overrides: { ...storeDir === undefined ? {} : { storeDir }, ...input.args!.config },
      lodeVersion: VERSION,
    })
    for (const warning of config.warnings) warn(warning)
    const otherPackageManager = checkPackageManager(await readProjectManifest(config.dir), config.pmOnFail)
    if (otherPackageManager !== undefined) warn(otherPackageManager)
    const built = await rebuild({
      config,
      names,
      onWarning: (message) => { warn(message) },
      // Each build's lines, as an install prints them.
      onLifecycle: (log) => { reporter.onEvent({ type: 'lifecycle', ...log, dir: path.relative(config.dir, log.dir).split(path.sep).join('/') || '.' }) },
    })
    print(built.length === 0 ? 'Nothing to rebuild' : `Rebuilt ${built.length} ${built.length === 1 ? 'package' : 'packages'}: ${built.join(', ')}`)
    print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
    return 0
  } catch (err) {
    return writeLodeError(err, ctx.stderr, style().error)
  }
}
