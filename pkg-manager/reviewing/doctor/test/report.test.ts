import assert from 'node:assert/strict'
import { test } from 'node:test'

import { renderDoctorJson, renderDoctorReport } from '../src/index.js'

test('renderDoctorReport: a line per check, a fix under a warning or failure, a time for a passed timed one, then the sum', () => {
  const report = renderDoctorReport([
    { title: 'Versions', status: 'pass', detail: 'lode 1.0.0, Node.js 24.0.0' },
    { title: 'Filesystem', status: 'warn', detail: 'only copying is available', fix: 'Put the store on the same filesystem.' },
    { title: 'Install smoke test', status: 'pass', detail: 'linked', durationMs: 12 },
  ])
  assert.equal(report, '✓ Versions: lode 1.0.0, Node.js 24.0.0\n‼ Filesystem: only copying is available\n    Put the store on the same filesystem.\n✓ Install smoke test: linked (12ms)\n\nAll checks passed with 1 warning(s)')
  assert.equal(renderDoctorReport([{ title: 'A', status: 'fail', detail: 'x', fix: 'y' }, { title: 'B', status: 'fail' }]), '✗ A: x\n    y\n✗ B\n\n2 check(s) failed')
  assert.equal(renderDoctorReport([{ title: 'A', status: 'pass' }]), '✓ A\n\nAll checks passed')
  assert.deepEqual(JSON.parse(renderDoctorJson([{ title: 'A', status: 'pass', detail: undefined }])), { checks: [{ title: 'A', status: 'pass' }] })
})
