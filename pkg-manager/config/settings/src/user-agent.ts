/**
 * The pnpm release whose behaviour lode reproduces (lockfile, layout, settings, messages). Scripts
 * see it in `npm_config_user_agent`, where tools that check which package manager runs them
 * (only-allow, which-pm-runs) read the first `name/version`: lode stands in for this pnpm.
 */
export const PNPM_VERSION = '11.28.11'

/**
 * `pnpm/<version> lode/<version> npm/? node/<version> <platform> <arch>`: pnpm's user agent with lode
 * named after the package manager it stands in for, sent to registries and given to scripts.
 */
export function lodeUserAgent (lodeVersion: string): string {
  return `pnpm/${PNPM_VERSION} lode/${lodeVersion} npm/? node/${process.version} ${process.platform} ${process.arch}`
}
