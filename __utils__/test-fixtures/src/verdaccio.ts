import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'

/**
 * A real registry that takes publishes: verdaccio, in a child process on 127.0.0.1 (a free port),
 * with its storage in a temp directory and no uplink (nothing is fetched from elsewhere). One user
 * is made at start; `token` authenticates as that user (publishing needs it).
 */
export class Verdaccio {
  private constructor (
    readonly url: string,
    readonly token: string,
    private readonly child: ChildProcess,
    private readonly storage: string
  ) {}

  static async start (): Promise<Verdaccio> {
    const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-verdaccio-'))
    const config = {
      storage: path.join(storage, 'storage'),
      self_path: storage,
      auth: { htpasswd: { file: path.join(storage, 'htpasswd'), max_users: 10 } },
      uplinks: {},
      packages: { '**': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' } },
      web: { enable: false },
      log: { type: 'stdout', format: 'json', level: 'fatal' },
      max_body_size: '100mb',
    }
    const verdaccio = createRequire(import.meta.url).resolve('verdaccio')
    // The child starts the server and prints its port (verdaccio's logger and process handlers stay out of the tests' process).
    const script = `
      const { runServer } = require(${JSON.stringify(verdaccio)});
      runServer(JSON.parse(process.env.LODE_VERDACCIO_CONFIG)).then((app) => {
        const server = app.listen(0, '127.0.0.1', () => { process.stdout.write('port ' + server.address().port + '\\n') });
      }, (err) => { console.error(err); process.exit(1) });
    `
    const child = spawn(process.execPath, ['-e', script], {
      env: { ...process.env, LODE_VERDACCIO_CONFIG: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    const port = await new Promise<number>((resolve, reject) => {
      let stdout = ''
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString()
        const match = /port (\d+)/.exec(stdout)
        if (match !== null) resolve(Number(match[1]))
      })
      child.on('exit', (code) => { reject(new Error(`verdaccio exited with ${code ?? 'a signal'}: ${stderr}`)) })
    })
    const url = `http://127.0.0.1:${port}/`
    const response = await fetch(`${url}-/user/org.couchdb.user:lode`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lode', password: 'lode-test-password' }),
    })
    if (!response.ok) throw new Error(`verdaccio refused the test user: ${response.status} ${await response.text()}`)
    const { token } = await response.json() as { token: string }
    return new Verdaccio(url, token, child, storage)
  }

  /** `.npmrc` lines that point at this registry, with the token. */
  npmrc (): string {
    return `registry=${this.url}\n//${this.url.replace(/^http:\/\//, '')}:_authToken=${this.token}\n`
  }

  /** The packument of a package, or undefined when it is not published. */
  async packument (name: string): Promise<Record<string, unknown> | undefined> {
    const response = await fetch(`${this.url}${name.replace('/', '%2f')}`, { headers: { authorization: `Bearer ${this.token}` } })
    if (response.status === 404) return undefined
    return await response.json() as Record<string, unknown>
  }

  async close (): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve))
      this.child.kill()
      await exited
    }
    fs.rmSync(this.storage, { recursive: true, force: true })
  }
}
