// Peak memory of `lode install` of one package whose packument is large: a registry on 127.0.0.1
// (in this process) serves a generated packument of the asked size, gzipped, and each install runs
// in a process of its own under /usr/bin/time -v, with a fresh cache and store. By hand only:
//
//   bash scripts/run.sh node bench/packument-memory/run.mjs [--sizes 0,100,400] [--runs 1]
//
// See README.md for the options and what the figures mean.
import { Buffer } from 'node:buffer'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import process from 'node:process'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import { createGunzip, createGzip, gzipSync } from 'node:zlib'

// The test fixtures' tar header (built by `npm run build`, which the benchmark needs anyway).
import { ustarHeader } from '../../__utils__/test-fixtures/dist/src/tarball.js'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '0,100,400' },
    versions: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '1' },
    ascii: { type: 'boolean', default: false },
    identity: { type: 'boolean', default: false },
    full: { type: 'boolean', default: false },
    shape: { type: 'string', default: 'readme' },
    'max-size': { type: 'string' },
    'work-dir': { type: 'string', default: path.join(os.tmpdir(), 'lode-packument-memory') },
    lode: { type: 'string', default: path.join(import.meta.dirname, '..', '..', 'cli', 'lode', 'bin', 'lode') },
  },
})

const NAME = 'big-packument'
const MB = 1024 * 1024
const workDir = path.resolve(values['work-dir'])
fs.mkdirSync(workDir, { recursive: true })

// Words for readmes: text that gzips about as real readmes do (3-4×), not a run of one byte.
const WORDS = ('the of and to in is for that with on as are this be by it from or an at install package module ' +
  'function return value options default config version release node npm registry tarball dependency build test ' +
  'error warning file directory path string number object array callback promise stream buffer event').split(' ')

function * readmeChunks (bytes, seed, ascii) {
  let state = seed >>> 0
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0)
  let left = bytes
  while (left > 0) {
    const words = []
    for (let i = 0; i < 2000; i++) words.push(WORDS[next() % WORDS.length])
    // Real readmes have a few characters past ASCII (an em dash, ©, an emoji): one is enough to
    // make a JavaScript string of the document two bytes a character.
    let line = `## ${words.slice(0, 4).join(' ')}${ascii ? '' : ' — ✓'}\n\n${words.join(' ')}\n\n`
    if (line.length > left) line = line.slice(0, left)
    left -= Buffer.byteLength(line)
    yield line
  }
}

const tarball = makeTarball()

/** A tarball of package/package.json alone, for the latest version (the one installed). */
function makeTarball () {
  const manifest = Buffer.from(JSON.stringify({ name: NAME, version: latestVersion() }))
  const header = ustarHeader('package/package.json', manifest.length)
  const padding = Buffer.alloc((512 - (manifest.length % 512)) % 512)
  const body = gzipSync(Buffer.concat([header, manifest, padding, Buffer.alloc(1024)]))
  return { body, integrity: `sha512-${createHash('sha512').update(body).digest('base64')}` }
}

function latestVersion () {
  return `1.0.${Number(values.versions) - 1}`
}

/** Writes the packument (about `sizeMb` MB of JSON) gzipped to `file`, version by version. */
async function writePackument (file, sizeMb, registryUrl) {
  const count = Number(values.versions)
  const perVersion = Math.max(0, Math.floor((sizeMb * MB - 1 * MB) / count) - 600)
  const ascii = values.ascii
  async function * chunks () {
    const time = { created: '2020-01-01T00:00:00.000Z', modified: '2020-01-01T00:00:00.000Z' }
    yield `{"_id":"${NAME}","name":"${NAME}","dist-tags":{"latest":"${latestVersion()}"},"modified":"2020-01-01T00:00:00.000Z","versions":{`
    for (let i = 0; i < count; i++) {
      const version = `1.0.${i}`
      time[version] = '2020-01-01T00:00:00.000Z'
      const doc = {
        name: NAME,
        version,
        description: 'A package whose metadata is large, for lode\'s memory benchmark.',
        main: 'index.js',
        scripts: { test: 'node test.js' },
        _npmUser: { name: 'someone', email: 'someone@example.com' },
        maintainers: [{ name: 'someone', email: 'someone@example.com' }],
        dist: { tarball: `${registryUrl}${NAME}/-/${NAME}-${latestVersion()}.tgz`, integrity: tarball.integrity, fileCount: 1, unpackedSize: 100 },
        readmeFilename: 'README.md',
      }
      const head = JSON.stringify(doc).slice(0, -1)
      if (values.shape === 'dependencies' && version !== latestVersion()) {
        // The bulk in what lode keeps: dependencies (of versions never installed).
        yield `${i === 0 ? '' : ','}${JSON.stringify(version)}:${head},"dependencies":{`
        for (let k = 0, left = perVersion; left > 0; k++) {
          const entry = `${k === 0 ? '' : ','}"@scope/dependency-${i}-${k}":"^${k % 10}.${i % 100}.0 || ${WORDS[k % WORDS.length]}"`
          left -= entry.length
          yield entry
        }
        yield '}}'
      } else {
        yield `${i === 0 ? '' : ','}${JSON.stringify(version)}:${head},"readme":"`
        if (values.shape === 'readme') for (const chunk of readmeChunks(perVersion, i + 1, ascii)) yield JSON.stringify(chunk).slice(1, -1)
        yield '"}'
      }
    }
    yield `},"time":${JSON.stringify(time)},"readme":"`
    for (const chunk of readmeChunks(MB / 2, 0, ascii)) yield JSON.stringify(chunk).slice(1, -1)
    yield `","users":{"someone":true},"license":"MIT"}`
  }
  const temp = `${file}.${process.pid}.tmp`
  await pipeline(chunks, createGzip({ level: 6 }), fs.createWriteStream(temp))
  fs.renameSync(temp, file)
}

const server = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url ?? '/')
  if (url.endsWith('.tgz')) {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': tarball.body.length })
    res.end(tarball.body)
    return
  }
  if (url !== `/${NAME}` || served === undefined) {
    res.writeHead(404, { 'content-type': 'application/json' })
    res.end('{"error":"Not found"}')
    return
  }
  const gzipped = !values.identity && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
  const headers = { 'content-type': 'application/json', etag: `"${served.etag}"` }
  if (gzipped) {
    res.writeHead(200, { ...headers, 'content-encoding': 'gzip', 'content-length': served.gzipped.length })
    res.end(served.gzipped)
  } else {
    res.writeHead(200, { ...headers, 'content-length': served.size })
    fs.createReadStream(served.file).pipe(createGunzip()).pipe(res)
  }
})

/** @type {{ file: string, gzipped: Buffer, size: number, etag: string } | undefined} */
let served

await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const registryUrl = `http://127.0.0.1:${server.address().port}/`

/** Runs one install in a fresh home under /usr/bin/time -v: its peak RSS (bytes), wall time (s) and exit code. */
async function install (runDir) {
  const project = path.join(runDir, 'project')
  const home = path.join(runDir, 'home')
  fs.mkdirSync(project, { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { [NAME]: latestVersion() } }))
  const settings = ['minimumReleaseAge: 0', ...values['max-size'] === undefined ? [] : [`packumentMaxSize: ${values['max-size']}`]]
  if (values.full) settings.push('trustPolicy: no-downgrade')
  fs.writeFileSync(path.join(project, 'pnpm-workspace.yaml'), `${settings.join('\n')}\n`)
  fs.writeFileSync(path.join(home, '.npmrc'), `registry=${registryUrl}\n`)
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
  }
  const child = spawn('/usr/bin/time', ['-v', process.execPath, values.lode, 'install'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => { stdout += chunk })
  child.stderr.on('data', (chunk) => { stderr += chunk })
  const code = await new Promise((resolve) => child.on('close', resolve))
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]) * 1024
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(stderr)
  const seconds = wall === null ? NaN : Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3])
  const installed = fs.existsSync(path.join(project, 'node_modules', NAME, 'package.json'))
  const output = `${stdout}${stderr.replace(/\n\tCommand being timed[\s\S]*$/, '')}`.trim()
  return { code, rss, seconds, installed, output }
}

const rows = []
for (const sizeMb of values.sizes.split(',').map(Number)) {
  const file = path.join(workDir, `${NAME}-${sizeMb}mb-${values.versions}v${values.ascii ? '-ascii' : ''}.json.gz`)
  // The tarball URLs name the registry's port: written anew for each run of this script.
  process.stderr.write(`writing a ${sizeMb} MB packument...\n`)
  await writePackument(file, sizeMb, registryUrl)
  const gzipped = fs.readFileSync(file)
  let size = 0
  await pipeline(fs.createReadStream(file), createGunzip(), async function (source) {
    for await (const chunk of source) size += chunk.length
  })
  served = { file, gzipped, size, etag: createHash('sha1').update(gzipped).digest('hex') }
  for (let run = 0; run < Number(values.runs); run++) {
    const runDir = fs.mkdtempSync(path.join(workDir, 'run-'))
    try {
      const result = await install(runDir)
      if (result.code !== 0 || !result.installed) {
        process.stderr.write(`install of the ${sizeMb} MB packument failed (exit ${result.code}):\n${result.output}\n`)
      }
      rows.push({ sizeMb, body: size, gzipped: gzipped.length, ...result })
      process.stderr.write(`${sizeMb} MB: peak RSS ${(result.rss / MB).toFixed(0)} MiB, ${result.seconds.toFixed(2)} s, exit ${result.code}\n`)
    } finally {
      fs.rmSync(runDir, { recursive: true, force: true })
    }
  }
  fs.rmSync(file, { force: true })
}
server.close()

// The smallest size is the control: the same versions without their readmes.
const control = rows.find((row) => row.sizeMb === Math.min(...rows.map((r) => r.sizeMb)))
const lines = [
  `${values.versions} versions${values.ascii ? ', ASCII only' : ''}${values.identity ? ', sent uncompressed' : ', sent gzipped'}`,
  '',
  '| packument (JSON) | gzipped | peak RSS | over the control | × body | wall | exit |',
  '|---|---|---|---|---|---|---|',
]
for (const row of rows) {
  const over = row.rss - (control?.rss ?? 0)
  lines.push(`| ${(row.body / MB).toFixed(0)} MiB | ${(row.gzipped / MB).toFixed(1)} MiB | ${(row.rss / MB).toFixed(0)} MiB | ${(over / MB).toFixed(0)} MiB | ` +
    `${(over / row.body).toFixed(2)} | ${row.seconds.toFixed(2)} s | ${row.code} |`)
}
process.stdout.write(`${lines.join('\n')}\n`)
