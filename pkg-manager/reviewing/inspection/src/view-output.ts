// What `lode view` prints, as pnpm 11 prints it without colors: the summary sections, the fields
// asked for (`lode view react version dist.tarball`), or JSON.

type Json = Record<string, unknown>

export function renderView (info: Json, fields: readonly string[], opts: { json: boolean, now: number }): string {
  if (fields.length > 0) return renderFields(info, fields, opts.json)
  if (opts.json) return JSON.stringify(info, null, 2)
  return SECTIONS.flatMap((section) => section(info, opts.now)).join('\n')
}

function renderFields (info: Json, fields: readonly string[], json: boolean): string {
  const values = fields.map((field) => [field, fieldOf(info, field)] as const)
  if (json) return JSON.stringify(fields.length === 1 ? values[0]![1] : Object.fromEntries(values), null, 2)
  if (fields.length === 1) return plain(values[0]![1])
  return values.map(([field, value]) =>
    typeof value === 'object' && value !== null ? `${field} = ${JSON.stringify(value)}` : typeof value === 'string' ? `${field} = '${value}'` : `${field} = ${plain(value)}`,
  ).join('\n')
}

/** `a.b.c` looked up member by member, own members only (`constructor` of a document is nothing). */
function fieldOf (info: Json, field: string): unknown {
  let value: unknown = info
  for (const part of field.split('.')) {
    value = typeof value === 'object' && value !== null && Object.hasOwn(value, part) ? (value as Json)[part] : undefined
  }
  return value
}

function plain (value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'object' ? JSON.stringify(value, null, 2) : scalar(value)
}

/** A scalar as text; an object (an old `{ type }` license, say) as its `type` or JSON, never `[object Object]`. */
function scalar (value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value)
  const type = (value as Json)['type']
  return typeof type === 'string' ? type : JSON.stringify(value)
}

type Section = (info: Json, now: number) => string[]

const str = (value: unknown): string | undefined => typeof value === 'string' && value !== '' ? value : undefined

const SECTIONS: readonly Section[] = [
  (info) => {
    const parts: string[] = []
    if (str(info['name']) !== undefined && str(info['version']) !== undefined) parts.push(`${String(info['name'])}@${String(info['version'])}`)
    if (info['license'] !== undefined && info['license'] !== null && info['license'] !== '') parts.push(scalar(info['license']))
    parts.push(info['depsCount'] !== undefined ? `deps: ${scalar(info['depsCount'])}` : 'deps: none')
    if (info['versionsCount'] !== undefined) parts.push(`versions: ${scalar(info['versionsCount'])}`)
    return [parts.join(' | ')]
  },
  (info) => [str(info['description']), str(info['homepage'])].filter((line) => line !== undefined),
  (info) => str(info['deprecated']) === undefined ? [] : ['', `DEPRECATED! - ${String(info['deprecated'])}`],
  (info) => Array.isArray(info['keywords']) && info['keywords'].length > 0 ? ['', `keywords: ${info['keywords'].map(String).join(', ')}`] : [],
  (info) => {
    const bins = binNames(info['bin'], info['name'])
    return bins.length === 0 ? [] : ['', `bin: ${bins.join(', ')}`]
  },
  (info) => {
    const dist = info['dist']
    if (typeof dist !== 'object' || dist === null) return []
    const { tarball, shasum, integrity, unpackedSize } = dist as Json
    return ['', 'dist',
      ...str(tarball) === undefined ? [] : [`.tarball: ${String(tarball)}`],
      ...str(shasum) === undefined ? [] : [`.shasum: ${String(shasum)}`],
      ...str(integrity) === undefined ? [] : [`.integrity: ${String(integrity)}`],
      ...typeof unpackedSize === 'number' ? [`.unpackedSize: ${formatBytes(unpackedSize)}`] : []]
  },
  (info) => {
    const deps = info['dependencies']
    if (typeof deps !== 'object' || deps === null || Object.keys(deps).length === 0) return []
    return ['', 'dependencies:', Object.entries(deps as Json).map(([name, range]) => `${name}: ${String(range)}`).join(', ')]
  },
  (info) => {
    const maintainers = Array.isArray(info['maintainers']) ? info['maintainers'] as unknown[] : []
    return maintainers.length === 0 ? [] : ['', 'maintainers:', ...maintainers.map((person) => `- ${formatPerson(person)}`)]
  },
  (info) => {
    const tags = info['distTags']
    if (typeof tags !== 'object' || tags === null || Object.keys(tags).length === 0) return []
    return ['', 'dist-tags:', ...Object.entries(tags as Json).map(([tag, version]) => `${tag}: ${String(version)}`)]
  },
  (info, now) => {
    const published = publishedLine(info, now)
    return published === undefined ? [] : ['', published]
  },
]

/** A bin's command names: the object's keys, or the package's name without its scope. */
function binNames (bin: unknown, name: unknown): string[] {
  if (typeof bin === 'object' && bin !== null) return Object.keys(bin)
  if (typeof bin !== 'string' || bin === '' || typeof name !== 'string' || name === '') return []
  return [name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name]
}

function formatPerson (person: unknown): string {
  const { name, email } = (typeof person === 'object' && person !== null ? person : { name: person }) as Json
  return str(email) === undefined ? String(name) : `${String(name)} <${String(email)}>`
}

/** Decimal units with at most two decimals, as pnpm prints sizes. */
function formatBytes (bytes: number): string {
  if (bytes === 0) return '0 B'
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB']
  const unit = Math.min(Math.floor(Math.log(bytes) / Math.log(1000)), units.length - 1)
  return `${Math.round(bytes / 1000 ** unit * 100) / 100} ${units[unit]!}`
}

function publishedLine (info: Json, now: number): string | undefined {
  const version = str(info['version'])
  const time = info['time']
  if (version === undefined || typeof time !== 'object' || time === null) return undefined
  const when = (time as Json)[version]
  const date = typeof when === 'string' ? new Date(when) : undefined
  if (date === undefined || Number.isNaN(date.getTime())) return undefined
  const ago = timeAgo(now - date.getTime()) ?? 'just now'
  const publisher = publisherOf(info)
  return publisher === undefined ? `published ${ago}` : `published ${ago} by ${publisher}`
}

function timeAgo (ms: number): string | undefined {
  if (Number.isNaN(ms) || ms < 0) return undefined
  const minutes = Math.floor(ms / 60_000)
  const hours = Math.floor(minutes / 60)
  const days = Math.floor(hours / 24)
  const largest = [['year', Math.floor(days / 365)], ['month', Math.floor(days / 30)], ['day', days], ['hour', hours], ['minute', minutes]] as const
  const found = largest.find(([, count]) => count > 0)
  if (found === undefined) return 'a few seconds ago'
  return `${found[1]} ${found[0]}${found[1] === 1 ? '' : 's'} ago`
}

function publisherOf (info: Json): string | undefined {
  const npmUser = info['_npmUser']
  if (typeof npmUser === 'object' && npmUser !== null && str((npmUser as Json)['name']) !== undefined) return formatPerson(npmUser)
  const maintainers = Array.isArray(info['maintainers']) ? info['maintainers'] as unknown[] : []
  if (maintainers.length > 0) return maintainers.length === 1 ? formatPerson(maintainers[0]) : `${formatPerson(maintainers[0])} et al.`
  return info['author'] === undefined || info['author'] === null || info['author'] === '' ? undefined : scalar(info['author'])
}
