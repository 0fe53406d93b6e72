import type { Measurement } from './measure.js'

export interface Summary {
  runs: number
  wall: { median: number, min: number, max: number }
  cpu: { median: number }
  peakRssMb: { median: number, max: number }
}

export function median (xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function summarize (runs: Measurement[]): Summary {
  const walls = runs.map((r) => r.wallMs)
  const rss = runs.map((r) => r.peakRssMb)
  return {
    runs: runs.length,
    wall: { median: median(walls), min: Math.min(...walls), max: Math.max(...walls) },
    cpu: { median: median(runs.map((r) => r.cpuMs)) },
    peakRssMb: { median: median(rss), max: Math.max(...rss) },
  }
}
