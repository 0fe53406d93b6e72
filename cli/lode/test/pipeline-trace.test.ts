import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { lode, makeProject, snapshot } from './helpers.js'

// A burst: 240 packages of 40 files each, all downloaded at once, so extraction queues up.
const COUNT = 240
const files = (i: number): Record<string, string> => Object.fromEntries(Array.from({ length: 40 }, (_, f) => [`lib/file${f}.js`, `module.exports = ${i * 1000 + f} // ${'x'.repeat(2000)}`]))
const PACKAGES: PackageSpec[] = Array.from({ length: COUNT }, (_, i) => ({ name: `burst-${i}`, version: '1.0.0', files: files(i) }))

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

interface Sample { t: number, resolved: number, downloaded: number, extracted: number, linked: number }

test('--trace-pipeline: links keep completing while a burst of tarballs is still being extracted', async () => {
  const project = makeProject(registry, { name: 'burst', version: '1.0.0', dependencies: Object.fromEntries(PACKAGES.map((p) => [p.name, p.version])) })
  const traceFile = path.join(project.dir, 'trace.jsonl')
  const result = await lode(project, ['install', '--trace-pipeline', traceFile])
  assert.equal(result.code, 0, result.stderr)
  const samples = fs.readFileSync(traceFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Sample)
  const total = (stage: keyof Sample): number => samples.reduce((sum, sample) => sum + sample[stage], 0)
  assert.deepEqual([total('resolved'), total('downloaded'), total('extracted'), total('linked')], [COUNT, COUNT, COUNT, COUNT])
  // Intervals that end with tarballs still waiting to be extracted, yet saw packages linked.
  let extracted = 0
  const linkingDuringExtraction = samples.filter((sample) => {
    extracted += sample.extracted
    return sample.linked > 0 && extracted < COUNT
  })
  assert.ok(linkingDuringExtraction.length > 0, `no interval linked while extraction was unfinished:\n${samples.map((s) => JSON.stringify(s)).join('\n')}`)
})

test('--timeline writes a page with the phases and the slowest packages and requests, even when the install fails', async () => {
  const project = makeProject(registry, { name: 'timeline', version: '1.0.0', dependencies: { 'burst-1': '1.0.0', 'burst-2': '1.0.0', 'burst-3': '1.0.0' } })
  const page = path.join(project.dir, 'out', 'timeline.html')
  fs.mkdirSync(path.dirname(page))
  // One slow tarball and one slow document: the charts must name them first. The delays are far above what a cold
  // worker pool on a busy two-core machine adds to the other packages' extraction (CI saw more than 400 ms).
  registry.responseDelay = (url) => url.endsWith('burst-2-1.0.0.tgz') ? 2500 : url === '/burst-3' ? 1500 : 0
  try {
    const result = await lode(project, ['install', '--timeline', 'out/timeline.html'])
    assert.equal(result.code, 0, result.stderr)
  } finally {
    registry.responseDelay = undefined
  }
  const html = fs.readFileSync(page, 'utf8')
  assert.match(html, /^<!doctype html>/)
  assert.match(html, /3 metadata requests · 3 tarballs downloaded \([\d.]+ KiB\) · 3 packages added to the store/)
  for (const phase of ['read', 'check', 'resolve', 'fetch', 'link', 'build', 'records']) assert.match(html, new RegExp(`<td>${phase}</td>`), phase)
  const slowestPackages = html.slice(html.indexOf('Slowest packages'), html.indexOf('Slowest metadata'))
  assert.match(slowestPackages, /<text[^>]*>burst-2@1\.0\.0 · [\d.]+ m?s<\/text>/)
  assert.ok(slowestPackages.indexOf('burst-2@1.0.0') < slowestPackages.indexOf('burst-1@1.0.0'), 'the slow tarball comes first')
  const slowestRequests = html.slice(html.indexOf('Slowest metadata'))
  assert.ok(slowestRequests.indexOf('>burst-3 ·') < slowestRequests.indexOf('>burst-1 ·'), 'the slow document comes first')
  assert.doesNotMatch(html, /(?:src|href)="http/)

  // A failed install (a missing package) still says where its time went; nothing else is written.
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'timeline', version: '1.0.0', dependencies: { 'not-there': '1.0.0' } }))
  const lockfile = fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8')
  const failed = await lode(project, ['install', '--timeline', page])
  assert.equal(failed.code, 1)
  assert.match(fs.readFileSync(page, 'utf8'), /<td>resolve<\/td>/)
  assert.equal(fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8'), lockfile)

  // A directory where the page goes: refused before anything is installed.
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'timeline', version: '1.0.0', dependencies: { 'burst-2': '1.0.0' } }))
  const before = snapshot(project.dir)
  const refused = await lode(project, ['install', '--timeline', 'out'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_TIMELINE_IS_DIRECTORY\] The timeline page cannot be written to .*\/out: it is a directory\./)
  assert.deepEqual([...snapshot(project.dir)], [...before])
})

test('add, update and remove take --timeline and --trace-pipeline too (the dev loop measured as install is)', async () => {
  const project = makeProject(registry, { name: 'dev-loop', version: '1.0.0', dependencies: { 'burst-1': '1.0.0' } })
  assert.equal((await lode(project, ['install'])).code, 0)
  const added = await lode(project, ['add', 'burst-4@1.0.0', '--timeline', 'add.html', '--trace-pipeline', 'add.jsonl'])
  assert.equal(added.code, 0, added.stderr)
  const html = fs.readFileSync(path.join(project.dir, 'add.html'), 'utf8')
  for (const phase of ['read', 'resolve', 'link']) assert.match(html, new RegExp(`<td>${phase}</td>`), phase)
  const samples = fs.readFileSync(path.join(project.dir, 'add.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Sample)
  assert.equal(samples.reduce((sum, sample) => sum + sample.downloaded, 0), 1, 'only the added package is downloaded')
  const updated = await lode(project, ['update', 'burst-1', '--timeline', 'update.html'])
  assert.equal(updated.code, 0, updated.stderr)
  assert.match(fs.readFileSync(path.join(project.dir, 'update.html'), 'utf8'), /<td>resolve<\/td>/)
  const removed = await lode(project, ['remove', 'burst-4', '--timeline', 'remove.html'])
  assert.equal(removed.code, 0, removed.stderr)
  assert.match(fs.readFileSync(path.join(project.dir, 'remove.html'), 'utf8'), /<td>link<\/td>/)
})
