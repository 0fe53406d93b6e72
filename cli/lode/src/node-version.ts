// The Node.js versions lode runs on (package.json's engines). bin/lode says the same in its first
// lines, written out there because it must run before any module is loaded.

const MINIMUM = [22, 13] as const

/** What to tell a user whose Node.js is older than lode needs; undefined when it is new enough. */
export function unsupportedNode (version: string): { message: string, hint: string } | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  if (major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1])) return undefined
  return {
    message: `lode needs Node.js ${MINIMUM.join('.')} or newer; this is Node.js ${version}.`,
    hint: 'Install Node.js 24 LTS (or 22.13+) and run lode with it.',
  }
}
