import { writeFileAtomic } from '@lode/fs.write-file-atomic'

export type PipelineStage = 'resolved' | 'downloaded' | 'extracted' | 'linked'

/** One 100 ms interval of the install: how many packages each stage finished in it. */
export interface TraceSample {
  /** Milliseconds since the trace started, at the end of the interval. */
  t: number
  resolved: number
  downloaded: number
  extracted: number
  linked: number
}

/**
 * Something that took time: a step of the install (`phase`: read, resolve, link, build, …), one
 * registry request (`metadata` for a package's document, `download` for a tarball: its status and
 * size), or one package put into the store (`extract`: from its tarball's arrival to its index
 * row). Milliseconds since the trace started.
 */
export interface TraceSpan {
  kind: 'phase' | 'metadata' | 'download' | 'extract'
  label: string
  start: number
  end: number
  /** A request's status and body size. */
  status?: number
  bytes?: number
}

/** All a trace recorded, for the timeline (`@lode/pkg-manager.installing.timeline`). */
export interface TraceData {
  /** When the trace started (ISO), and how long it ran (ms). */
  startedAt: string
  totalMs: number
  samples: TraceSample[]
  spans: TraceSpan[]
}

const INTERVAL_MS = 100

/**
 * What an install did over time: per 100 ms, the packages resolved, downloaded, extracted and
 * linked (written as JSON lines to `samplesFile`, `--trace-pipeline FILE` or `LODE_TRACE_PIPELINE`,
 * when the install ends: whether the stages overlap); and the install's phases, requests and
 * extractions as spans (`data()`, which `--timeline` renders).
 */
export class PipelineTrace {
  readonly samples: TraceSample[] = []
  readonly spans: TraceSpan[] = []
  private current: Omit<TraceSample, 't'> = { resolved: 0, downloaded: 0, extracted: 0, linked: 0 }
  private readonly started = performance.now()
  private readonly startedAt = new Date()
  private readonly timer: NodeJS.Timeout
  private finished: number | undefined

  constructor (private readonly samplesFile: string | undefined) {
    this.timer = setInterval(() => { this.sample() }, INTERVAL_MS)
    this.timer.unref()
  }

  count (stage: PipelineStage, n: number): void {
    this.current[stage] += n
  }

  /** Records a span; `start` and `end` are `performance.now()` times. */
  span (kind: TraceSpan['kind'], label: string, start: number, end: number, extra: Pick<TraceSpan, 'status' | 'bytes'> = {}): void {
    this.spans.push({ kind, label, start: this.since(start), end: this.since(end), ...extra })
  }

  /** Runs `step`, recorded as a phase of the install (failed or not). */
  async phase<T> (label: string, step: () => Promise<T>): Promise<T> {
    const start = performance.now()
    try {
      return await step()
    } finally {
      this.span('phase', label, start, performance.now())
    }
  }

  data (): TraceData {
    return {
      startedAt: this.startedAt.toISOString(),
      totalMs: this.since(this.finished ?? performance.now()),
      samples: this.samples,
      spans: this.spans,
    }
  }

  private since (time: number): number {
    return Math.round((time - this.started) * 10) / 10
  }

  private sample (): void {
    this.samples.push({ t: Math.round(performance.now() - this.started), ...this.current })
    this.current = { resolved: 0, downloaded: 0, extracted: 0, linked: 0 }
  }

  async finish (): Promise<void> {
    if (this.finished !== undefined) return
    clearInterval(this.timer)
    this.sample()
    this.finished = performance.now()
    if (this.samplesFile !== undefined) {
      await writeFileAtomic(this.samplesFile, this.samples.map((sample) => JSON.stringify(sample)).join('\n') + '\n')
    }
  }
}
