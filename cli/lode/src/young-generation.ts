const v8 = process.getBuiltinModule('node:v8')
const { PerformanceObserver } = process.getBuiltinModule('node:perf_hooks')

/** Where the CLI's young generation stops growing: 8 MiB semi-spaces. */
export const YOUNG_GENERATION_CAP = 16 * 1024 * 1024

/**
 * Stops the main thread's young generation from growing once it reaches `cap` bytes.
 *
 * V8 doubles the young generation each time as many bytes have survived scavenges as it holds, up
 * to 64 MiB semi-spaces (128 MiB committed): a clean install's main thread got there, and that was
 * a fifth of its peak RSS. `--max-semi-space-size` only counts at start-up, but the growth factor
 * is read at each growth, so setting it to 1 once the cap is reached stops the growth where it is.
 * Checked after garbage collections (growth follows a scavenge), until then. For the CLI's own process
 * only: the programmatic API leaves its host's heap alone. Workers are bounded by their
 * `resourceLimits` (see @lode/worker.pools), not by this.
 */
export function capYoungGeneration (cap = YOUNG_GENERATION_CAP): void {
  const observer = new PerformanceObserver(() => {
    if (newSpaceSize() < cap) return
    v8.setFlagsFromString('--semi-space-growth-factor=1')
    observer.disconnect()
  })
  observer.observe({ entryTypes: ['gc'] })
}

/** The bytes the young generation holds now (both semi-spaces). */
export function newSpaceSize (): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0
}
