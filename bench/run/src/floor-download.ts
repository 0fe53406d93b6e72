// The cold floor: every tarball of a lockfile downloaded from the mirror by a parallel client and
// piped into `tar -xzf`, with no resolution, hashing, store or linking. An install that needs the
// network cannot beat it on this machine.
//
//   node floor-download.js <registry> <lockfile> <dest> [connections]
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { Agent, request } from 'undici'

import { lockedTarballs } from './lockfile.js'

const [registry, lockfile, destArg, connectionsArg] = process.argv.slice(2)
if (registry === undefined || lockfile === undefined || destArg === undefined) {
  throw new Error('usage: floor-download.js <registry> <lockfile> <dest> [connections]')
}
const dest = destArg
const connections = Number(connectionsArg ?? 16)
const tarballs = lockedTarballs(fs.readFileSync(lockfile, 'utf8'), registry)
const dispatcher = new Agent({ connections, pipelining: 1, keepAliveTimeout: 30_000 })
// tar processes at a time: enough to keep both cores busy while responses arrive.
let tars = 0
const maxTars = os.availableParallelism() * 2
const waiting: Array<() => void> = []

async function untar (body: Buffer, dir: string): Promise<void> {
  while (tars >= maxTars) await new Promise<void>((resolve) => waiting.push(resolve))
  tars++
  try {
    fs.mkdirSync(dir, { recursive: true })
    await new Promise<void>((resolve, reject) => {
      const child = spawn('tar', ['--warning=no-unknown-keyword', '-xzf', '-', '-C', dir], { stdio: ['pipe', 'ignore', 'inherit'] })
      child.on('error', reject)
      child.on('exit', (code) => { if (code === 0) resolve(); else reject(new Error(`tar exited with ${String(code)} for ${dir}`)) })
      child.stdin.end(body)
    })
  } finally {
    tars--
    waiting.shift()?.()
  }
}

let next = 0
const untars: Array<Promise<void>> = []
async function downloader (): Promise<void> {
  while (next < tarballs.length) {
    const i = next++
    const tarball = tarballs[i]!
    const response = await request(tarball.url, { dispatcher })
    if (response.statusCode !== 200) throw new Error(`GET ${tarball.url}: HTTP ${response.statusCode}`)
    const body = Buffer.from(await response.body.arrayBuffer())
    untars.push(untar(body, path.join(dest, String(i))))
  }
}
await Promise.all(Array.from({ length: connections }, downloader))
await Promise.all(untars)
await dispatcher.close()
