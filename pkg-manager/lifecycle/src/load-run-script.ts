import type runScript from '@npmcli/run-script'

/**
 * @npmcli/run-script and what it loads (which, node-gyp's finder, promise-spawn), imported when a
 * script first runs: most installs run none, and an install's start-up is measured in ms.
 */
export async function loadRunScript (): Promise<typeof runScript> {
  return (await import('@npmcli/run-script')).default
}
