/** One 100 ms interval of lode's `--trace-pipeline` output. */
export interface TraceSample {
  t: number
  resolved: number
  downloaded: number
  extracted: number
  linked: number
}

const STAGES = ['resolved', 'downloaded', 'extracted', 'linked'] as const
const COLORS: Record<typeof STAGES[number], string> = {
  resolved: '#4e79a7',
  downloaded: '#f28e2b',
  extracted: '#59a14f',
  linked: '#b07aa1',
}

export function parseTrace (text: string): TraceSample[] {
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as TraceSample)
}

function escapeXml (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/**
 * An SVG with one lane per pipeline stage: a bar per 100 ms for the packages that stage finished
 * then, and a line for the running total, so gaps (a stage idle while another works) show at a glance.
 */
export function renderTimeline (samples: TraceSample[], title: string): string {
  const laneHeight = 70
  const left = 110
  const top = 40
  const pxPerSample = Math.max(3, Math.min(12, Math.floor(1100 / Math.max(1, samples.length))))
  const width = left + samples.length * pxPerSample + 30
  const height = top + STAGES.length * (laneHeight + 20) + 30
  const endMs = samples.at(-1)?.t ?? 0
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold">${escapeXml(title)} (${(endMs / 1000).toFixed(2)} s, per 100 ms)</text>`,
  ]
  STAGES.forEach((stage, lane) => {
    const y0 = top + lane * (laneHeight + 20)
    const counts = samples.map((s) => s[stage])
    const max = Math.max(1, ...counts)
    const total = counts.reduce((a, b) => a + b, 0)
    parts.push(`<text x="8" y="${y0 + laneHeight / 2}">${stage}</text>`)
    parts.push(`<text x="8" y="${y0 + laneHeight / 2 + 15}" fill="#666">${total} (max ${max})</text>`)
    parts.push(`<line x1="${left}" y1="${y0 + laneHeight}" x2="${width - 20}" y2="${y0 + laneHeight}" stroke="#ccc"/>`)
    let running = 0
    const points: string[] = []
    counts.forEach((count, i) => {
      const x = left + i * pxPerSample
      if (count > 0) {
        const h = (count / max) * laneHeight
        parts.push(`<rect x="${x}" y="${(y0 + laneHeight - h).toFixed(1)}" width="${Math.max(1, pxPerSample - 1)}" height="${h.toFixed(1)}" fill="${COLORS[stage]}"><title>${stage} ${count} at ${samples[i]!.t} ms</title></rect>`)
      }
      running += count
      points.push(`${x + pxPerSample},${(y0 + laneHeight - (total === 0 ? 0 : running / total) * laneHeight).toFixed(1)}`)
    })
    parts.push(`<polyline points="${points.join(' ')}" fill="none" stroke="#333" stroke-width="1" stroke-dasharray="3,2"/>`)
  })
  // A tick each second along the bottom.
  const axisY = top + STAGES.length * (laneHeight + 20) + 5
  for (let s = 0; s * 1000 <= endMs; s++) {
    const x = left + (s * 10) * pxPerSample
    parts.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${axisY - 5}" stroke="#eee"/>`)
    parts.push(`<text x="${x}" y="${axisY + 10}" text-anchor="middle" fill="#666">${s}s</text>`)
  }
  parts.push('</svg>')
  return parts.join('\n') + '\n'
}
