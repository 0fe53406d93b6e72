import { execFile } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import tls from 'node:tls'
import { promisify } from 'node:util'

const run = promisify(execFile)
const fixtures = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures')

/** The self-signed certificate the hosts are served with: give it to lode and pnpm as `cafile`. */
export const HOSTED_GIT_CERT = path.join(fixtures, 'hosted-git-cert.pem')

// Fixed identities and dates: a commit is the same whoever makes it, and when.
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'lode test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'lode test', GIT_COMMITTER_EMAIL: 'test@example.invalid', GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
}

export async function git (args: string[], cwd: string): Promise<string> {
  return (await run('git', args, { cwd, env: { ...process.env, ...GIT_ENV } })).stdout
}

/** One commit of a repository: its files (by path), and the tags to put on it (`name` or `{ name, annotated }`). */
export interface CommitSpec {
  files: Record<string, string>
  tags?: Array<string | { name: string, annotated: true }>
  /** A branch to create at this commit. */
  branch?: string
}

/** A bare repository at `<root>/<name>.git` with these commits, one after the other on `main`; returns their hashes. */
export async function makeRepo (
  root: string,
  name: string,
  commits: CommitSpec[]
): Promise<{ dir: string, url: string, commits: string[] }> {
  const work = path.join(root, 'work', name)
  fs.mkdirSync(work, { recursive: true })
  await git(['init', '-q', '-b', 'main'], work)
  const hashes: string[] = []
  for (const [i, commit] of commits.entries()) {
    for (const [file, content] of Object.entries(commit.files)) {
      fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true })
      fs.writeFileSync(path.join(work, file), content)
    }
    await git(['add', '-A'], work)
    await git(['commit', '-q', '--allow-empty', '-m', `commit ${i}`], work)
    hashes.push((await git(['rev-parse', 'HEAD'], work)).trim())
    for (const tag of commit.tags ?? []) {
      if (typeof tag === 'string') await git(['tag', tag], work)
      else await git(['tag', '-a', tag.name, '-m', tag.name], work)
    }
    if (commit.branch !== undefined) await git(['branch', commit.branch], work)
  }
  const dir = path.join(root, `${name}.git`)
  fs.mkdirSync(path.dirname(dir), { recursive: true })
  await git(['clone', '-q', '--bare', work, dir], root)
  return { dir, url: `file://${dir}`, commits: hashes }
}

/**
 * The hosts of hosted git repositories (GitHub's web pages and codeload archives), on 127.0.0.1:
 * an HTTP proxy that answers CONNECT for them with TLS of its own (`HOSTED_GIT_CERT`), so lode and
 * pnpm (`https-proxy` in .npmrc) reach it instead of the real hosts. A repository `<user>/<repo>`
 * is `<root>/<user>/<repo>.git`; it is public while `publicRepos` has it (a HEAD on its page
 * answers 200, else 404); its archives are `git archive` of the commit. With `refuse`, every
 * CONNECT is refused (no host reachable). `requests` lists what was asked.
 */
export class HostedGitProxy {
  readonly requests: string[] = []
  readonly publicRepos = new Set<string>()
  refuse = false
  url = ''
  private readonly proxy: http.Server
  private readonly hosts: http.Server

  private constructor (private readonly root: string) {
    const context = tls.createSecureContext({ key: fs.readFileSync(path.join(fixtures, 'hosted-git-key.pem')), cert: fs.readFileSync(HOSTED_GIT_CERT) })
    this.hosts = http.createServer((req, res) => { void this.answer(req, res) })
    // Plain HTTP through the proxy, and tunnels to anything but the hosts, go on only to 127.0.0.1 (the test registry).
    this.proxy = http.createServer((req, res) => {
      const target = URL.parse(req.url ?? '')
      if (target === null || target.hostname !== '127.0.0.1') {
        res.writeHead(502).end()
        return
      }
      req.pipe(http.request(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }).on('error', () => { res.destroy() }))
    })
    this.proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      this.requests.push(`CONNECT ${req.url ?? ''}`)
      const [hostname, port] = (req.url ?? '').split(':')
      if (hostname === '127.0.0.1') {
        const upstream = net.connect(Number(port), hostname, () => {
          socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
          upstream.write(head)
          upstream.pipe(socket).pipe(upstream)
        })
        upstream.on('error', () => { socket.destroy() })
        socket.on('error', () => { upstream.destroy() })
        return
      }
      if (this.refuse) {
        socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')
        return
      }
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      this.hosts.emit('connection', new tls.TLSSocket(socket, { isServer: true, secureContext: context }))
    })
  }

  static async start (root: string): Promise<HostedGitProxy> {
    const proxy = new HostedGitProxy(root)
    await new Promise<void>((resolve) => proxy.proxy.listen(0, '127.0.0.1', resolve))
    proxy.url = `http://127.0.0.1:${(proxy.proxy.address() as AddressInfo).port}`
    return proxy
  }

  private async answer (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const host = req.headers.host ?? ''
    this.requests.push(`${req.method ?? ''} https://${host}${req.url ?? ''}`)
    const page = /^\/([^/]+)\/([^/]+)$/.exec(req.url ?? '')
    if (host === 'github.com' && req.method === 'HEAD' && page !== null) {
      res.writeHead(this.publicRepos.has(`${page[1]!}/${page[2]!}`) ? 200 : 404).end()
      return
    }
    const archive = /^\/([^/]+)\/([^/]+)\/tar\.gz\/([0-9a-f]{40})$/.exec(req.url ?? '')
    if (host === 'codeload.github.com' && req.method === 'GET' && archive !== null && this.publicRepos.has(`${archive[1]!}/${archive[2]!}`)) {
      const [, user, repo, commit] = archive
      const result = await run('git', ['archive', '--format=tar.gz', `--prefix=${user!}-${repo!}-${commit!.slice(0, 7)}/`, commit!], { cwd: path.join(this.root, user!, `${repo!}.git`), encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })
      res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-length': result.stdout.length }).end(result.stdout)
      return
    }
    res.writeHead(404).end()
  }

  async close (): Promise<void> {
    this.proxy.closeAllConnections()
    this.hosts.closeAllConnections()
    await new Promise<void>((resolve) => this.proxy.close(() => { resolve() }))
  }
}
