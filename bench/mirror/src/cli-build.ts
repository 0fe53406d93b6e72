// Fills a mirror directory from the configured registry with everything the lockfiles need, frozen
// at the cut-off. Incremental: run it again after adding a fixture.
//
//   node bench/mirror/dist/src/cli-build.js --dir DIR --cutoff 2026-11-01T00:00:00Z [--concurrency N] LOCKFILE...
import { parseArgs } from 'node:util'

import { buildMirror } from './build.js'
import { configuredRegistry } from './config.js'

const usage = 'usage: cli-build.js --dir DIR --cutoff ISO-DATE [--concurrency N] LOCKFILE...'
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dir: { type: 'string' },
    cutoff: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
  },
})
const cutoff = new Date(values.cutoff ?? '')
const concurrency = Number(values.concurrency)
if (values.dir === undefined || Number.isNaN(cutoff.getTime()) || positionals.length === 0
  || !(Number.isInteger(concurrency) && concurrency > 0)) {
  console.error(usage)
  process.exit(2)
}

const upstream = configuredRegistry(process.env)
const started = performance.now()
const result = await buildMirror({
  lockfiles: positionals,
  upstream,
  dir: values.dir,
  cutoff,
  concurrency,
  log: (line) => { console.error(line) },
})
console.log(`mirror ${values.dir}: ${result.packuments} packuments, ${result.tarballs} tarballs, ${result.fetched} fetched now from ${upstream} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
