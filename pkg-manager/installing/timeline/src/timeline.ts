// The install's timeline as a page a person opens in a browser: one self-contained HTML file (inline
// SVG and CSS, no script, nothing fetched), drawn from what the install's trace recorded. Hovering a
// bar shows its exact figures (SVG <title>); the recorded data is embedded for tools to read back.

/** What the trace of an install recorded (`PipelineTrace.data()` in `@lode/pkg-manager.installing.package-requester`). */
export interface TimelineData {
  startedAt: string
  totalMs: number
  samples: ReadonlyArray<{ t: number, resolved: number, downloaded: number, extracted: number, linked: number }>
  spans: ReadonlyArray<{ kind: 'phase' | 'metadata' | 'download' | 'extract', label: string, start: number, end: number, status?: number, bytes?: number }>
}

type Span = TimelineData['spans'][number]

/** Rows in each "slowest" chart. */
export const SLOWEST_SHOWN = 15

const WIDTH = 1000
const LABEL_WIDTH = 260
const ROW = 22
const AXIS = 24
const COLORS = { resolve: '#6f42c1', metadata: '#6f42c1', download: '#1f77b4', extract: '#2ca02c', link: '#ff7f0e', build: '#d62728', other: '#7f7f7f' }
const STAGES = [
  ['resolved', COLORS.resolve],
  ['downloaded', COLORS.download],
  ['extracted', COLORS.extract],
  ['linked', COLORS.link],
] as const

export function renderTimeline (data: TimelineData, title = 'lode install'): string {
  const total = Math.max(data.totalMs, 1)
  const metadata = data.spans.filter((span) => span.kind === 'metadata')
  const downloads = data.spans.filter((span) => span.kind === 'download')
  const extracts = data.spans.filter((span) => span.kind === 'extract')
  const phases = [...data.spans.filter((span) => span.kind === 'phase'), ...derivedPhases(downloads, extracts)].sort((a, b) => a.start - b.start)
  const bytes = downloads.reduce((sum, span) => sum + (span.bytes ?? 0), 0)
  const summary = [
    `${formatMs(total)} in all`,
    `${metadata.length} metadata request${metadata.length === 1 ? '' : 's'}`,
    `${downloads.length} tarball${downloads.length === 1 ? '' : 's'} downloaded (${formatBytes(bytes)})`,
    `${extracts.length} package${extracts.length === 1 ? '' : 's'} added to the store`,
  ]
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeXml(title)} — timeline</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: ${WIDTH + 40}px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 6px; }
p.summary { margin: 0 0 8px; color: #555; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
svg .axis text { fill: #777; font-size: 11px; }
svg .grid { stroke: #eee; }
table { border-collapse: collapse; }
td, th { padding: 2px 12px 2px 0; text-align: left; }
td.ms { text-align: right; font-variant-numeric: tabular-nums; }
</style>
</head>
<body>
<h1>${escapeXml(title)} — timeline</h1>
<p class="summary">Started ${escapeXml(data.startedAt)}: ${summary.map(escapeXml).join(' · ')}.</p>
<h2>Phases</h2>
${phases.length === 0 ? '<p>No phase was recorded.</p>' : spanChart(phases.map((span) => ({ label: span.label, bars: [span], color: phaseColor(span.label) })), total)}
${phaseTable(phases)}
<h2>Packages finished per 100 ms</h2>
${throughputChart(data.samples, total)}
<h2>Slowest packages (download, then store)</h2>
${slowestPackages(downloads, extracts, total)}
<h2>Slowest metadata requests</h2>
${metadata.length === 0 ? '<p>None: every package\'s metadata came from the cache or the lockfile.</p>' : spanChart(slowest(metadata).map((span) => ({ label: span.label, bars: [span], color: COLORS.metadata })), total)}
<script type="application/json" id="lode-trace">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>
</body>
</html>
`
}

/** `fetch`: from the first tarball asked for to the last package in the store (it runs beside resolve and link). */
function derivedPhases (downloads: readonly Span[], extracts: readonly Span[]): Span[] {
  const spans = [...downloads, ...extracts]
  if (spans.length === 0) return []
  return [{ kind: 'phase', label: 'fetch', start: Math.min(...spans.map((span) => span.start)), end: Math.max(...spans.map((span) => span.end)) }]
}

function phaseColor (label: string): string {
  if (label === 'resolve') return COLORS.resolve
  if (label === 'fetch') return COLORS.download
  if (label === 'link') return COLORS.link
  if (label === 'build') return COLORS.build
  return COLORS.other
}

function slowest (spans: readonly Span[]): Span[] {
  return [...spans].sort((a, b) => (b.end - b.start) - (a.end - a.start)).slice(0, SLOWEST_SHOWN)
}

/** The packages whose download and store write took longest together, each as its two bars. */
function slowestPackages (downloads: readonly Span[], extracts: readonly Span[], total: number): string {
  const byPackage = new Map<string, { label: string, bars: Span[], took: number }>()
  for (const span of [...downloads, ...extracts]) {
    const entry = byPackage.get(span.label) ?? { label: span.label, bars: [], took: 0 }
    entry.bars.push(span)
    entry.took += span.end - span.start
    byPackage.set(span.label, entry)
  }
  if (byPackage.size === 0) return '<p>None: every package was in the store already.</p>'
  const rows = [...byPackage.values()].sort((a, b) => b.took - a.took).slice(0, SLOWEST_SHOWN)
  return spanChart(rows.map((row) => ({ label: row.label, bars: row.bars, color: '' })), total)
}

interface ChartRow {
  label: string
  bars: readonly Span[]
  /** One color for the row's bars; empty: by the bar's kind. */
  color: string
}

/** A Gantt chart: a row per label, its bars placed on the install's time axis. */
function spanChart (rows: readonly ChartRow[], total: number): string {
  const height = rows.length * ROW + AXIS
  const x = (ms: number): number => LABEL_WIDTH + (ms / total) * (WIDTH - LABEL_WIDTH - 10)
  const body = rows.map((row, i) => {
    const y = i * ROW
    const bars = row.bars.map((bar) => {
      const color = row.color === '' ? COLORS[bar.kind === 'download' ? 'download' : 'extract'] : row.color
      const tip = `${bar.kind === 'phase' ? bar.label : `${bar.label} (${bar.kind})`}: ${formatMs(bar.end - bar.start)}, from ${formatMs(bar.start)}${bar.bytes === undefined ? '' : `, ${formatBytes(bar.bytes)}`}${bar.status === undefined ? '' : `, HTTP ${bar.status}`}`
      return `<rect x="${num(x(bar.start))}" y="${y + 4}" width="${num(Math.max(x(bar.end) - x(bar.start), 1))}" height="${ROW - 8}" fill="${color}"><title>${escapeXml(tip)}</title></rect>`
    }).join('')
    const took = row.bars.reduce((sum, bar) => sum + bar.end - bar.start, 0)
    return `<text x="${LABEL_WIDTH - 8}" y="${y + ROW / 2 + 4}" text-anchor="end">${escapeXml(truncate(row.label, 34))} · ${escapeXml(formatMs(took))}</text>${bars}`
  }).join('\n')
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img">
${axis(total, rows.length * ROW, x)}
${body}
</svg>`
}

/** Per 100 ms, how many packages each stage finished: a line per stage. */
function throughputChart (samples: TimelineData['samples'], total: number): string {
  const plotHeight = 160
  const height = plotHeight + AXIS + 20
  const peak = Math.max(1, ...samples.flatMap((sample) => STAGES.map(([stage]) => sample[stage])))
  const x = (ms: number): number => LABEL_WIDTH + (ms / total) * (WIDTH - LABEL_WIDTH - 10)
  const y = (n: number): number => 20 + plotHeight - (n / peak) * plotHeight
  const lines = STAGES.map(([stage, color]) => {
    const points = samples.map((sample) => `${num(x(sample.t))},${num(y(sample[stage]))}`).join(' ')
    const sum = samples.reduce((acc, sample) => acc + sample[stage], 0)
    return `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${points}"><title>${stage}: ${sum} in all</title></polyline>`
  }).join('\n')
  const legend = STAGES.map(([stage, color], i) =>
    `<rect x="${10}" y="${28 + i * 20}" width="12" height="12" fill="${color}"/><text x="${28}" y="${38 + i * 20}">${stage}</text>`).join('')
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img">
<g transform="translate(0,0)">${axis(total, plotHeight + 20, x)}</g>
<text x="${LABEL_WIDTH - 8}" y="24" text-anchor="end">${peak} per 100 ms</text>
${legend}
${lines}
</svg>`
}

/** Time ticks under a chart of `height`, with faint grid lines. */
function axis (total: number, height: number, x: (ms: number) => number): string {
  const step = tickStep(total)
  const ticks: string[] = []
  for (let ms = 0; ms <= total; ms += step) {
    ticks.push(`<line class="grid" x1="${num(x(ms))}" x2="${num(x(ms))}" y1="0" y2="${height}"/><text x="${num(x(ms))}" y="${height + 16}" text-anchor="middle">${formatMs(ms)}</text>`)
  }
  return `<g class="axis">${ticks.join('')}</g>`
}

/** A round tick interval giving five to ten ticks. */
function tickStep (total: number): number {
  const rough = total / 8
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1)))
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? power * 10
}

function phaseTable (phases: readonly Span[]): string {
  if (phases.length === 0) return ''
  const rows = phases.map((span) => `<tr><td>${escapeXml(span.label)}</td><td class="ms">${formatMs(span.start)}</td><td class="ms">${formatMs(span.end - span.start)}</td></tr>`)
  return `<table><tr><th>phase</th><th>from</th><th>took</th></tr>${rows.join('')}</table>`
}

export function formatMs (ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s` : `${Math.round(ms)} ms`
}

function formatBytes (bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${bytes} B`
}

function truncate (text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`
}

function num (n: number): string {
  return String(Math.round(n * 10) / 10)
}

export function escapeXml (text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
