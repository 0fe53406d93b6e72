import hostedGitInfo from 'hosted-git-info'

// Where `lode bugs`, `lode repo` and `lode docs` send you, by pnpm 11's rules: a package's own http(s)
// URL when it has one, else the pages its repository's host keeps (hosted-git-info), else the
// repository URL itself made a web page.

type Json = Record<string, unknown>

/** `bugs.url` (or a `bugs` string) when it is http(s), else the repository's issues page. */
export function bugsUrl (manifest: Json): string | undefined {
  const bugs = urlOf(manifest['bugs'])
  if (bugs !== undefined && isHttpUrl(bugs)) return bugs
  const repository = urlOf(manifest['repository'])
  if (repository === undefined) return undefined
  const hosted = safely(() => hostedGitInfo.fromUrl(repository)?.bugs())
  if (hosted !== undefined && isHttpUrl(hosted)) return hosted
  return webUrl(repository, (parsed) => `${parsed.pathname}/issues`)
}

/** The repository's web page (its `directory` inside it), as the host shows it. */
export function repositoryUrl (manifest: Json): string | undefined {
  const repository = manifest['repository']
  const url = urlOf(repository)
  if (url === undefined) return undefined
  const directory = typeof repository === 'object' && repository !== null ? (repository as Json)['directory'] : undefined
  const dir = typeof directory === 'string' && directory !== '' ? directory : undefined
  const hosted = safely(() => { const host = hostedGitInfo.fromUrl(url); return dir === undefined ? host?.browse() : host?.browse(dir) })
  if (hosted !== undefined && isHttpUrl(hosted)) return hosted
  return webUrl(url, (parsed) => dir === undefined ? parsed.pathname : `${parsed.pathname}/tree/HEAD/${dir.replace(/^\//, '')}`)
}

/** The package's `homepage` when it is http(s), else its page on npmx.dev (pnpm 11's fallback). */
export function docsUrl (manifest: Json): string {
  const homepage = manifest['homepage']
  if (typeof homepage === 'string' && isHttpUrl(homepage)) return homepage
  return `https://npmx.dev/package/${String(manifest['name'])}`
}

function urlOf (field: unknown): string | undefined {
  const url = typeof field === 'string' ? field : typeof field === 'object' && field !== null ? (field as Json)['url'] : undefined
  return typeof url === 'string' && url !== '' ? url : undefined
}

/** An http(s) repository URL (a leading `git+` dropped) without query, fragment, trailing slashes and `.git`, its path then shaped. */
function webUrl (raw: string, shape: (parsed: URL) => string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(raw.replace(/^git\+/, ''))
  } catch {
    return undefined
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined
  parsed.search = ''
  parsed.hash = ''
  parsed.pathname = parsed.pathname.replace(/\/+$/, '').replace(/\.git$/, '')
  parsed.pathname = shape(parsed)
  return parsed.toString()
}

function isHttpUrl (value: string): boolean {
  try {
    const { protocol } = new URL(value)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

/** hosted-git-info throws on some malformed URLs: those have no host pages. */
function safely (read: () => string | undefined): string | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}
