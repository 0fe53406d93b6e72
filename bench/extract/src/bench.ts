// bench/extract: imports every tarball of a fixture's lockfile into a cold store through the
// store pool, beside the floor (the same tarballs unpacked by `tar -xzf` and hashed by `sha512sum`,
// two processes in parallel), alternating runs, and prints the medians and the ratio lode/floor.
//
//   npm run bench:extract -- [--fixture DIR] [--runs N] [--work-dir DIR] [--threads N]
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'

import { importIntoStore } from './import.js'
import type { ImportStats } from './import.js'
import { configuredRegistry, downloadMissing, lockedTarballs } from './tarballs.js'

const benchDir = path.resolve(import.meta.dirname, '..', '..', '..')
const { values } = parseArgs({
  options: {
    fixture: { type: 'string', default: path.join(benchDir, 'fixtures', 'alotta-files') },
    runs: { type: 'string', default: '3' },
    'work-dir': { type: 'string', default: path.join(benchDir, '.work') },
    threads: { type: 'string' },
  },
})
const runs = Number(values.runs)
const workDir = path.resolve(values['work-dir'])
const cacheDir = path.join(benchDir, '.cache', 'tarballs')
const clock = (): number => performance.now()

const tarballs = lockedTarballs(path.join(values.fixture, 'pnpm-lock.yaml'), cacheDir)
const registry = configuredRegistry(process.env)
const downloaded = await downloadMissing(registry, tarballs, { concurrency: 16, log: (line) => { console.log(line) } })
console.log(`${tarballs.length} tarballs of ${path.basename(values.fixture)} (${downloaded} downloaded now, the rest cached in ${path.relative(process.cwd(), cacheDir)})`)

function median (xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function runFloor (): Promise<number> {
  const out = path.join(workDir, 'floor')
  fs.rmSync(out, { recursive: true, force: true })
  fs.mkdirSync(out, { recursive: true })
  const halves = [0, 1].map((half) => tarballs.filter((_, i) => i % 2 === half).map((t) => t.file))
  const script = `
    set -e
    i=0
    while IFS= read -r t; do d="$2/$i"; mkdir -p "$d"; tar --warning=no-unknown-keyword -xzf "$t" -C "$d"; i=$((i+1)); done < "$1"
    find "$2" -type f -print0 | xargs -0 sha512sum > /dev/null
  `
  const started = clock()
  await Promise.all(halves.map(async (files, half) => {
    const list = path.join(workDir, `floor-${half}.txt`)
    fs.writeFileSync(list, files.join('\n') + '\n')
    const dir = path.join(out, String(half))
    await new Promise<void>((resolve, reject) => {
      const child = spawn('bash', ['-c', script, 'floor', list, dir], { stdio: 'inherit' })
      child.on('error', reject)
      child.on('exit', (code) => { if (code === 0) resolve(); else reject(new Error(`floor exited with ${code}`)) })
    })
  }))
  return (clock() - started) / 1000
}

async function runLode (): Promise<ImportStats> {
  const storeDir = path.join(workDir, 'store')
  fs.rmSync(storeDir, { recursive: true, force: true })
  return importIntoStore(storeDir, tarballs, { clock, ...(values.threads === undefined ? {} : { threads: Number(values.threads) }) })
}

fs.mkdirSync(workDir, { recursive: true })
const lodeRuns: ImportStats[] = []
const floorRuns: number[] = []
for (let run = 0; run < runs; run++) {
  const lode = await runLode()
  lodeRuns.push(lode)
  const floor = await runFloor()
  floorRuns.push(floor)
  console.log(`run ${run + 1}: lode ${lode.seconds.toFixed(2)} s, floor ${floor.toFixed(2)} s`)
}
const stats = lodeRuns[0]!
const lode = median(lodeRuns.map((r) => r.seconds))
const floor = median(floorRuns)
const mb = (bytes: number): string => (bytes / 1e6).toFixed(1)
console.log(`
| | lode | floor (tar -xzf + sha512sum, 2 processes) |
|---|---|---|
| wall, median of ${runs} | ${lode.toFixed(2)} s | ${floor.toFixed(2)} s |
| packages/s | ${(stats.packages / lode).toFixed(0)} | ${(stats.packages / floor).toFixed(0)} |
| files/s | ${(stats.files / lode).toFixed(0)} | ${(stats.files / floor).toFixed(0)} |
| MB/s unpacked | ${mb(stats.unpackedBytes / lode)} | ${mb(stats.unpackedBytes / floor)} |

${stats.packages} packages, ${stats.files} files, ${mb(stats.tarballBytes)} MB of tarballs, ${mb(stats.unpackedBytes)} MB unpacked.
ratio lode/floor: ${(lode / floor).toFixed(2)} (target: at most 1.3)`)
fs.rmSync(path.join(workDir, 'floor'), { recursive: true, force: true })
