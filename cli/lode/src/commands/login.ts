import type { Interface } from 'node:readline'

import type { MainContext } from '../context.js'
import { openInBrowser } from '../open-url.js'
import { createReporter } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

const readline = process.getBuiltinModule('node:readline')

/**
 * `lode login` (`adduser`): pnpm 11's, the token written into pnpm's `auth.ini`. The registry's web
 * login prints where to authenticate (on a terminal, Enter opens it); a registry without one asks
 * for a username, password and email, on a terminal only.
 */
export async function loginCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values } = input.args!
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const [{ login }, { dir, workspaceDir, config }] = await Promise.all([import('@lode/pkg-manager.registry.access'), projectConfig(input, ctx)])
  const terminal = ctx.stdin?.()
  const interactive = terminal?.isTTY === true && ctx.stdout.isTTY === true
  let lines: Interface | undefined
  try {
    const message = await login(config, {
      authFile: await authFile(dir, workspaceDir, ctx),
      scope: values['scope'] as string | undefined,
      onWarning: (message) => { reporter.warn(message) },
      onInfo: (message) => { ctx.stdout.write(`${message}\n`) },
      onAuthUrl: (url) => {
        ctx.stdout.write(`Authenticate your account at:\n${url}\n`)
        if (!interactive || !/^https?:/.test(url)) return
        ctx.stdout.write('Press ENTER to open the URL in your browser.\n')
        lines = readline.createInterface({ input: terminal })
        lines.once('line', () => { openInBrowser(new URL(url).href, ctx.env) })
      },
      askCredentials: interactive
        ? async () => {
          const { input: ask } = await import('../prompt.js')
          const username = await ask({ message: 'Username:', input: terminal, output: ctx.stdout })
          const password = username === undefined ? undefined : await ask({ message: 'Password:', mask: true, input: terminal, output: ctx.stdout })
          const email = password === undefined ? undefined : await ask({ message: 'Email (this IS public):', input: terminal, output: ctx.stdout })
          if (username === undefined || password === undefined || email === undefined) return undefined
          return { username, password, email }
        }
        : undefined,
      askOtp: interactive
        ? async () => await (await import('../prompt.js')).input({ message: 'This operation requires a one-time password.\nEnter OTP:', input: terminal, output: ctx.stdout })
        : undefined,
    })
    ctx.stdout.write(`${message}\n`)
  } finally {
    lines?.close()
  }
  return 0
}

/** `lode logout`: the default registry's token revoked, and taken out of pnpm's `auth.ini`. */
export async function logoutCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const reporter = createReporter((input.args!.values['reporter'] ?? 'default') as ReporterName, ctx)
  const [{ logout }, { dir, workspaceDir, config }] = await Promise.all([import('@lode/pkg-manager.registry.access'), projectConfig(input, ctx)])
  const message = await logout(config, {
    authFile: await authFile(dir, workspaceDir, ctx),
    onWarning: (text) => { reporter.warn(text) },
    onInfo: (text) => { reporter.print(text) },
  })
  ctx.stdout.write(`${message}\n`)
  return 0
}

/** pnpm 11's `auth.ini`, in its config directory. */
async function authFile (dir: string, workspaceDir: string | undefined, ctx: MainContext): Promise<string> {
  const { configFiles } = await import('@lode/pkg-manager.config.settings')
  return configFiles({ location: 'global', dir, workspaceDir: workspaceDir ?? dir, env: ctx.env }).ini
}
