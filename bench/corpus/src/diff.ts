import { spawnSync } from 'node:child_process'
import fs from 'node:fs'

/**
 * The unified diff (diff(1) -u) of two files, and its count of differing lines: the `+` and `-`
 * lines, not the two header lines. A missing file counts as empty.
 */
export function diffFiles (a: string, b: string, labels: [string, string]): { lines: number, text: string } {
  const args = ['-u', '--label', labels[0], '--label', labels[1], fs.existsSync(a) ? a : '/dev/null', fs.existsSync(b) ? b : '/dev/null']
  const result = spawnSync('diff', args, { encoding: 'utf8', maxBuffer: 1 << 30 })
  if (result.status === 2 || result.error !== undefined) throw new Error(`diff ${args.join(' ')}: ${result.stderr}`)
  const text = result.stdout
  const lines = text.split('\n').slice(2).filter((line) => line.startsWith('+') || line.startsWith('-')).length
  return { lines, text }
}

/** Writes the diff of two files to `out` when they differ (removing an older one when not); the count of differing lines. */
export function writeDiff (a: string, b: string, labels: [string, string], out: string): number {
  const { lines, text } = diffFiles(a, b, labels)
  if (lines > 0) fs.writeFileSync(out, text)
  else fs.rmSync(out, { force: true })
  return lines
}

export function lineCount (file: string): number {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').length - 1 : 0
}
