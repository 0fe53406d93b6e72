import { execFileSync } from 'node:child_process'

/** The registry from the user's npm configuration: `npm_config_registry`, else `npm config get registry`. */
export function configuredRegistry (env: NodeJS.ProcessEnv): string {
  const fromEnv = env['npm_config_registry']
  const registry = fromEnv !== undefined && fromEnv !== ''
    ? fromEnv
    : execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  return registry.endsWith('/') ? registry : `${registry}/`
}
