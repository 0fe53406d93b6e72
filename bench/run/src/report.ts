import type { Measurement } from './measure.js'
import type { Summary } from './stats.js'

export interface ScenarioResult {
  scenario: string
  /** Per tool (and floor), every counted run and their summary. */
  entries: Record<string, { runs: Measurement[], summary: Summary }>
}

export interface BenchResult {
  fixture: string
  date: string
  machine: { cpus: number, memoryGb: number, node: string, kernel: string }
  network: { rttMs: number, bandwidthMbit: number | null }
  /** The tools run with their default settings (`--defaults`: release age 1440 for lode and pnpm), not the fixtures' `minimumReleaseAge: 0`. */
  defaultSettings?: boolean
  /** The tools run with pnpm's global virtual store on (`--global-virtual-store`). */
  globalVirtualStore?: string[]
  tools: Array<{ name: string, version: string }>
  runs: number
  warmups: number
  scenarios: ScenarioResult[]
}

function seconds (ms: number): string {
  return ms < 1000 ? `${(ms / 1000).toFixed(3)}` : `${(ms / 1000).toFixed(2)}`
}

function ratio (a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`
}

/**
 * Three tables: wall time (median and min–max, then lode ÷ each other tool and ÷ the floor), CPU
 * time, and peak RSS.
 */
export function renderMarkdown (result: BenchResult): string {
  const tools = result.tools.map((t) => t.name)
  const others = tools.filter((t) => t !== 'lode')
  const hasLode = tools.includes('lode')
  const floors = [...new Set(result.scenarios.flatMap((s) => Object.keys(s.entries).filter((k) => k.startsWith('floor:'))))]
  const lines: string[] = []
  const network = result.network.rttMs === 0 && result.network.bandwidthMbit === null
    ? 'loopback mirror'
    : `mirror behind ${result.network.rttMs} ms RTT${result.network.bandwidthMbit === null ? '' : `, ${result.network.bandwidthMbit} Mbit/s`}`
  lines.push(`### ${result.fixture}: wall seconds, median (min–max) of ${result.runs} runs after ${result.warmups} warm-up`)
  lines.push('')
  const gvs = (result.globalVirtualStore ?? []).length > 0 ? `, global virtual store on for ${result.globalVirtualStore!.join(' and ')}` : ''
  const settings = result.defaultSettings === true ? 'each tool\'s default settings (release age 1440 for lode and pnpm)' : '`minimumReleaseAge: 0`'
  lines.push(`${result.date}, ${result.machine.cpus} cores, ${network}${gvs}, ${settings}, \`--ignore-scripts\`; ${result.tools.map((t) => `${t.name} ${t.version}`).join(', ')}.`)
  lines.push('')
  const ratioHeads = hasLode ? [...others.map((t) => `lode ÷ ${t}`), ...(floors.length > 0 ? ['lode ÷ floor'] : [])] : []
  lines.push(`| scenario | ${[...tools, ...(floors.length > 0 ? ['floor'] : []), ...ratioHeads].join(' | ')} |`)
  lines.push(`|---|${[...tools, ...(floors.length > 0 ? ['floor'] : []), ...ratioHeads].map(() => '---:').join('|')}|`)
  for (const s of result.scenarios) {
    const cells = tools.map((t) => {
      const e = s.entries[t]
      return e === undefined ? '–' : `${seconds(e.summary.wall.median)} (${seconds(e.summary.wall.min)}–${seconds(e.summary.wall.max)})`
    })
    const floorKey = floors.find((f) => s.entries[f] !== undefined)
    if (floors.length > 0) cells.push(floorKey === undefined ? '–' : `${seconds(s.entries[floorKey]!.summary.wall.median)} (${floorKey.slice('floor:'.length)})`)
    const lode = s.entries['lode']?.summary.wall.median
    if (hasLode) {
      for (const t of others) {
        const other = s.entries[t]?.summary.wall.median
        cells.push(lode === undefined || other === undefined ? '–' : ratio(lode, other))
      }
      if (floors.length > 0) cells.push(lode === undefined || floorKey === undefined ? '–' : ratio(lode, s.entries[floorKey]!.summary.wall.median))
    }
    lines.push(`| ${s.scenario} | ${cells.join(' | ')} |`)
  }
  for (const [title, pick, unit] of [
    ['CPU seconds (user + system), median', (sum: Summary) => seconds(sum.cpu.median), ''],
    ['Peak RSS of the largest process, MB, median', (sum: Summary) => sum.peakRssMb.median.toFixed(0), ''],
  ] as const) {
    lines.push('')
    lines.push(`${title}${unit}:`)
    lines.push('')
    lines.push(`| scenario | ${tools.join(' | ')} |`)
    lines.push(`|---|${tools.map(() => '---:').join('|')}|`)
    for (const s of result.scenarios) {
      lines.push(`| ${s.scenario} | ${tools.map((t) => s.entries[t] === undefined ? '–' : pick(s.entries[t].summary)).join(' | ')} |`)
    }
  }
  return lines.join('\n') + '\n'
}
