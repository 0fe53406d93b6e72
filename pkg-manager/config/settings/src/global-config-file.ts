// Its own entry point (`@lode/pkg-manager.config.settings/global-config-file`): the CLI's no-op check reads
// it before loading anything else.
const path = process.getBuiltinModule('node:path')

/**
 * pnpm 11's config directory: `$XDG_CONFIG_HOME/pnpm`, else `~/Library/Preferences/pnpm` on
 * macOS, `%LOCALAPPDATA%/pnpm/config` on Windows and `~/.config/pnpm` elsewhere.
 */
export function globalConfigDir (
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  platform: NodeJS.Platform = process.platform
): string {
  const xdg = env['XDG_CONFIG_HOME']
  return xdg !== undefined && xdg !== ''
    ? path.join(xdg, 'pnpm')
    : platform === 'darwin'
      ? path.join(home, 'Library', 'Preferences', 'pnpm')
      : platform === 'win32' && env['LOCALAPPDATA'] !== undefined
        ? path.join(env['LOCALAPPDATA'], 'pnpm', 'config')
        : path.join(home, '.config', 'pnpm')
}

/** pnpm 11's global settings file, `config.yaml` in its config directory. */
export function globalConfigFile (
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  platform: NodeJS.Platform = process.platform
): string {
  return path.join(globalConfigDir(env, home, platform), 'config.yaml')
}

/** pnpm 11's global registry and auth settings, `auth.ini` in its config directory (read as an `.npmrc`, after `~/.npmrc`). */
export function globalAuthFile (
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  platform: NodeJS.Platform = process.platform
): string {
  return path.join(globalConfigDir(env, home, platform), 'auth.ini')
}
