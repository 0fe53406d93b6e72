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

const INTERVAL_MS = 100

/**
 * Counts, per 100 ms, the packages resolved, downloaded, extracted and linked (`--trace-pipeline
 * FILE` or `LODE_TRACE_PIPELINE`), to show whether the stages overlap: links should keep completing
 * while a burst of tarballs is being extracted. Written as JSON lines when the install ends.
 */
export class PipelineTrace {
  readonly samples: TraceSample[] = []
  private current: Omit<TraceSample, 't'> = { resolved: 0, downloaded: 0, extracted: 0, linked: 0 }
  private readonly started = performance.now()
  private readonly timer: NodeJS.Timeout

  constructor (private readonly file: string) {
    this.timer = setInterval(() => { this.sample() }, INTERVAL_MS)
    this.timer.unref()
  }

  count (stage: PipelineStage, n: number): void {
    this.current[stage] += n
  }

  private sample (): void {
    this.samples.push({ t: Math.round(performance.now() - this.started), ...this.current })
    this.current = { resolved: 0, downloaded: 0, extracted: 0, linked: 0 }
  }

  async finish (): Promise<void> {
    clearInterval(this.timer)
    this.sample()
    await writeFileAtomic(this.file, this.samples.map((sample) => JSON.stringify(sample)).join('\n') + '\n')
  }
}
