// Serves a mirror directory on 127.0.0.1, behind a latency proxy when --rtt or --bandwidth is given.
// Prints one line, `mirror <url>`, once clients can use the URL; runs until SIGTERM or SIGINT.
//
//   node bench/mirror/dist/src/serve.js --dir DIR [--port N] [--rtt MS] [--bandwidth MBIT] [--upstream-fill]
//
// --port is the port clients use: the proxy's when there is one. --upstream-fill fetches what the
// mirror lacks from the configured registry, cut off at the mirror's cut-off, and stores it.
import { parseArgs } from 'node:util'

import { configuredRegistry } from './config.js'
import { readCutoff } from './layout.js'
import { startLatencyProxy } from './proxy.js'
import type { LatencyProxy } from './proxy.js'
import { startMirrorServer } from './server.js'
import type { MirrorServerOptions } from './server.js'

const usage = 'usage: serve.js --dir DIR [--port N] [--rtt MS] [--bandwidth MBIT] [--upstream-fill]'
const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    port: { type: 'string' },
    rtt: { type: 'string' },
    bandwidth: { type: 'string' },
    'upstream-fill': { type: 'boolean', default: false },
  },
})

function fail (message: string): never {
  console.error(message)
  process.exit(2)
}

function numberFlag (flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (value === '' || !Number.isFinite(n) || n < 0) fail(`--${flag} takes a non-negative number, not ${JSON.stringify(value)}\n${usage}`)
  return n
}

const dir = values.dir ?? fail(usage)
const port = numberFlag('port', values.port)
const rttMs = numberFlag('rtt', values.rtt)
const bandwidthMbit = numberFlag('bandwidth', values.bandwidth)
if (bandwidthMbit === 0) fail('--bandwidth must be above 0')
const withProxy = rttMs !== undefined || bandwidthMbit !== undefined

const serverOptions: MirrorServerOptions = {
  dir,
  log: (line) => { console.error(line) },
}
if (!withProxy && port !== undefined) serverOptions.port = port
if (values['upstream-fill']) {
  serverOptions.cutoff = readCutoff(dir) ?? fail(`${dir}/mirror.json is missing: build the mirror first (cli-build.js)`)
  serverOptions.upstream = configuredRegistry(process.env)
}
const server = await startMirrorServer(serverOptions)
let proxy: LatencyProxy | undefined
if (withProxy) {
  proxy = await startLatencyProxy({
    target: server.url,
    rttMs: rttMs ?? 0,
    ...(bandwidthMbit === undefined ? {} : { bandwidthBytesPerSec: bandwidthMbit * 1e6 / 8 }),
    ...(port === undefined ? {} : { port }),
  })
  server.setPublicUrl(proxy.url)
}
console.log(`mirror ${proxy?.url ?? server.url}`)

async function shutdown (): Promise<void> {
  await proxy?.close()
  await server.close()
  const stats = server.stats()
  console.error(`mirror: ${stats.requests} requests, ${stats.misses} misses, ${(stats.bytes / 1e6).toFixed(1)} MB sent`)
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    shutdown().then(() => process.exit(0), (err: unknown) => {
      console.error(err)
      process.exit(1)
    })
  })
}
