import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { lode, makeProject } from './helpers.js'

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
