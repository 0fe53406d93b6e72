import type { MainContext } from '../context.js'
import { writeLodeError } from '../report-error.js'
import { createReporter, formatDuration } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { VERSION } from '../version.js'
import { includeOf } from './inspect.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

/** `lode fetch`: the lockfile's packages into the store, nothing linked (pnpm's `fetch`, for container image layers and offline installs). */
export async function fetchCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values } = input.args!
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const started = Date.now()
  try {
    const { fetchPackages } = await import('@lode/pkg-manager.core')
    const { config } = await projectConfig(input, ctx)
    const fetched = await fetchPackages({ config, now: () => Date.now(), include: includeOf(values), onEvent: reporter.onEvent })
    reporter.print(`Progress: resolved ${fetched.packages}, reused ${fetched.reused}, downloaded ${fetched.downloaded}, added 0, done`)
    reporter.print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
    return 0
  } catch (err) {
    return writeLodeError(err, ctx.stderr, reporter.style().error)
  }
}
