import type { MainContext } from '../context.js'
import { createReporter } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { VERSION } from '../version.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

const childProcess = process.getBuiltinModule('node:child_process')
const path = process.getBuiltinModule('node:path')

/** `lode doctor`: pnpm 11's diagnostics of the installation and environment; exit code 1 when a check fails. */
export async function doctorCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values } = input.args!
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const [{ diagnose, renderDoctorJson, renderDoctorReport }, { config }] = await Promise.all([import('@lode/pkg-manager.reviewing.doctor'), projectConfig(input, ctx)])
  const checks = await diagnose(config, {
    version: VERSION,
    offline: values['offline'] === true,
    benchmark: values['benchmark'] === true,
    onWarning: (message) => { reporter.warn(message) },
    // lode itself, as this process was started: the script Node ran.
    installOffline: (consumer, base) => {
      const result = childProcess.spawnSync(process.execPath, [
        process.argv[1]!, 'install', '--offline', '--ignore-scripts', `--store-dir=${path.join(base, 'store')}`, `--config.cache-dir=${path.join(base, 'cache')}`,
      ], { cwd: consumer, encoding: 'utf8', timeout: 120_000, env: { ...ctx.env } })
      return { status: result.status, stderr: result.stderr ?? '' }
    },
  })
  ctx.stdout.write(`${values['json'] === true ? renderDoctorJson(checks) : renderDoctorReport(checks)}\n`)
  return checks.some((check) => check.status === 'fail') ? 1 : 0
}
