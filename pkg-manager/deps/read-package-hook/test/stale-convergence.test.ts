import assert from 'node:assert/strict'
import { test } from 'node:test'

import { createVersionsOverrider, parseOverrides, staleConvergenceWarnings } from '@lode/pkg-manager.deps.read-package-hook'

test('staleConvergenceWarnings: an override every declared range goes beyond is named with the highest version they all admit; others are not', async () => {
  const overrides = parseOverrides({ 'child@': '1.0.0', 'other@': '2.0.0', 'quiet@': '1.0.0' })
  const ranges = new Map<string, Set<string>>()
  const hook = createVersionsOverrider(overrides, '/w', ranges)
  hook({ name: 'top', version: '1.0.0', dependencies: { child: '^1.0.0', other: '^2.0.0', quiet: '^1.0.0' } })
  hook({ name: 'mid', version: '1.0.0', dependencies: { child: '~1.1.0', other: '2.0.x', unrelated: '^1.0.0', quiet: 'latest' } })
  assert.deepEqual(Object.fromEntries([...ranges].map(([name, set]) => [name, [...set]])), { child: ['^1.0.0', '~1.1.0'], other: ['^2.0.0', '2.0.x'], quiet: ['^1.0.0'] })
  const picks: Record<string, string | undefined> = { 'child ^1.0.0': '1.2.0', 'child ~1.1.0': '1.1.3', 'other ^2.0.0': '2.5.0', 'other 2.0.x': '2.0.0', 'quiet ^1.0.0': undefined }
  const warnings = await staleConvergenceWarnings(overrides, ranges, async (name, range) => await Promise.resolve(picks[`${name} ${range}`]))
  assert.deepEqual(warnings, [
    'The convergence override "child@": "1.0.0" is stale: every declared range of child also admits 1.1.3. Change the override\'s value to 1.1.3 in pnpm-workspace.yaml, or remove the override and run "lode dedupe".',
  ])
})
