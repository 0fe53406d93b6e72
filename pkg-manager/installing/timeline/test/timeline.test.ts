import assert from 'node:assert/strict'
import { test } from 'node:test'

import { SLOWEST_SHOWN, renderTimeline } from '../src/index.js'
import type { TimelineData } from '../src/index.js'

test('renderTimeline draws phases, the slowest packages and requests, and embeds the data', () => {
  const spans: TimelineData['spans'][number][] = [
    { kind: 'phase', label: 'resolve', start: 5, end: 400 },
    { kind: 'phase', label: 'link', start: 400, end: 900 },
    { kind: 'metadata', label: '<evil>&"name', start: 10, end: 300, status: 200, bytes: 2048 },
  ]
  for (let i = 0; i < 30; i++) {
    spans.push({ kind: 'download', label: `pkg-${i}@1.0.0`, start: 100 + i, end: 150 + i * 10, status: 200, bytes: 1000 })
    spans.push({ kind: 'extract', label: `pkg-${i}@1.0.0`, start: 150 + i * 10, end: 160 + i * 10 })
  }
  const html = renderTimeline({ startedAt: '2026-01-01T00:00:00.000Z', totalMs: 1000, samples: [{ t: 100, resolved: 3, downloaded: 1, extracted: 0, linked: 0 }], spans })
  assert.match(html, /^<!doctype html>/)
  assert.doesNotMatch(html, /<script(?! type="application\/json")/, 'no script runs')
  assert.doesNotMatch(html, /(?:src|href)="http/, 'nothing is fetched')
  assert.match(html, /30 tarballs downloaded \(29\.3 KiB\)/)
  // The derived fetch phase: first download to last store write.
  assert.match(html, /<td>fetch<\/td><td class="ms">100 ms<\/td><td class="ms">350 ms<\/td>/)
  // The slowest packages first, SLOWEST_SHOWN of them.
  assert.match(html, /pkg-29@1\.0\.0 · 321 ms/)
  assert.doesNotMatch(html, new RegExp(`pkg-${29 - SLOWEST_SHOWN}@1\\.0\\.0 ·`))
  // Labels are escaped in the SVG, and `<` in the embedded JSON.
  assert.match(html, /&#60;evil&#62;&#38;&#34;name · 290 ms/)
  const json = /<script type="application\/json" id="lode-trace">(.*)<\/script>/.exec(html)![1]!
  assert.doesNotMatch(json, /</)
  assert.equal((JSON.parse(json) as TimelineData).spans.length, spans.length)
})
