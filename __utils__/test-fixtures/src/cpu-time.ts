/**
 * CPU milliseconds this process spends in `fn`. The complexity guards (input that once took seconds, growing with its
 * square) bound this rather than wall time, which another process on a loaded machine stretches without limit.
 */
export async function cpuMillis (fn: () => unknown): Promise<number> {
  const before = process.cpuUsage()
  await fn()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}
