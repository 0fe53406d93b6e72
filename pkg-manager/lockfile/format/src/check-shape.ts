/**
 * The runtime form of `types.ts`: what the install relies on in a lockfile's sections (maps where
 * it iterates, strings where it reads dependency paths and specifiers). Fields lode does not know
 * are not checked: they are kept as read and written back.
 */

type Shape =
  | 'string' | 'boolean' | 'number' | 'map' | 'any' | 'stringOrNull'
  | { list: Shape, orOne?: true }
  | { values: Shape }
  | { fields: Readonly<Record<string, Shape>>, required?: readonly string[] }

const STRING_MAP: Shape = { values: 'string' }
const STRINGS: Shape = { list: 'string' }
/** `os`, `cpu`, `libc`: a list, or one string as the manifest wrote it; pnpm writes `[null]` for a registry's null (and skips it when it checks). */
const STRING_OR_STRINGS: Shape = { list: 'stringOrNull', orOne: true }
const RESOLVED: Shape = { fields: { specifier: 'string', version: 'string' }, required: ['specifier', 'version'] }
const RESOLVED_MAP: Shape = { values: RESOLVED }

const LOCKFILE: Shape = {
  fields: {
    settings: { fields: { autoInstallPeers: 'boolean', dedupePeers: 'boolean', excludeLinksFromLockfile: 'boolean', peersSuffixMaxLength: 'number', injectWorkspacePackages: 'boolean' } },
    catalogs: { values: RESOLVED_MAP },
    overrides: STRING_MAP,
    packageExtensionsChecksum: 'string',
    pnpmfileChecksum: 'string',
    // The hash, or pnpm 9's `{ hash, path }` (read as the hash).
    patchedDependencies: 'map',
    ignoredOptionalDependencies: STRINGS,
    importers: {
      values: {
        fields: {
          dependencies: RESOLVED_MAP,
          devDependencies: RESOLVED_MAP,
          optionalDependencies: RESOLVED_MAP,
          dependenciesMeta: { values: 'map' },
          publishDirectory: 'string',
        },
      },
    },
    packages: {
      values: {
        fields: {
          resolution: 'map',
          version: 'string',
          engines: STRING_MAP,
          cpu: STRING_OR_STRINGS,
          os: STRING_OR_STRINGS,
          libc: STRING_OR_STRINGS,
          deprecated: 'string',
          hasBin: 'boolean',
          peerDependencies: STRING_MAP,
          peerDependenciesMeta: { values: { fields: { optional: 'boolean' } } },
        },
        required: ['resolution'],
      },
    },
    snapshots: {
      values: {
        fields: {
          dependencies: STRING_MAP,
          optionalDependencies: STRING_MAP,
          transitivePeerDependencies: STRINGS,
          optional: 'boolean',
        },
      },
    },
    time: STRING_MAP,
  },
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const NAMES: Record<string, string> = { string: 'a string', boolean: 'true or false', number: 'a number', map: 'a map', stringOrNull: 'a string' }

/** Where `value` (a parsed lockfile's root) differs from the lockfile's shape, as `path is not what`; undefined when it does not. */
export function lockfileShapeError (value: Record<string, unknown>): string | undefined {
  const problem = check(value, LOCKFILE)
  if (problem === undefined) return undefined
  return `${problem.path.reverse().map((key, i) => typeof key === 'number' ? `[${key}]` : step(key, i === 0)).join('')} ${problem.what}`
}

/** What is wrong, and where: the keys from the inside out (the path is built only for a problem, on the way back). */
interface Problem { path: Array<string | number>, what: string }

function check (value: unknown, shape: Shape): Problem | undefined {
  if (shape === 'any') return undefined
  if (typeof shape === 'string') {
    const ok = shape === 'map' ? isMap(value) : shape === 'stringOrNull' ? typeof value === 'string' || value === null : typeof value === shape
    return ok ? undefined : { path: [], what: `is not ${NAMES[shape]!}` }
  }
  if ('list' in shape) {
    if (shape.orOne === true && !Array.isArray(value)) return check(value, shape.list)
    if (!Array.isArray(value)) return { path: [], what: 'is not a list' }
    for (let i = 0; i < value.length; i++) {
      const problem = check(value[i], shape.list)
      if (problem !== undefined) return within(problem, i)
    }
    return undefined
  }
  if (!isMap(value)) return { path: [], what: 'is not a map' }
  if ('values' in shape) {
    for (const key of Object.keys(value)) {
      const problem = check(value[key], shape.values)
      if (problem !== undefined) return within(problem, key)
    }
    return undefined
  }
  for (const field of shape.required ?? []) {
    if (!Object.hasOwn(value, field)) return { path: [field], what: 'is missing' }
  }
  for (const field in shape.fields) {
    if (!Object.hasOwn(value, field)) continue
    const problem = check(value[field], shape.fields[field]!)
    if (problem !== undefined) return within(problem, field)
  }
  return undefined
}

function within (problem: Problem, key: string | number): Problem {
  problem.path.push(key)
  return problem
}

/** `.dependencies`, `["packages/a"]`: a path a reader can find in the file. */
function step (key: string, first: boolean): string {
  const shown = key.length > 100 ? `${key.slice(0, 100)}…` : key
  if (/^[A-Za-z_][\w-]*$/.test(shown)) return first ? shown : `.${shown}`
  return `[${JSON.stringify(shown)}]`
}
