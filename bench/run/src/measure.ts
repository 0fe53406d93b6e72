import { spawn } from 'node:child_process'
import fs from 'node:fs'

export interface Measurement {
  wallMs: number
  /** User + system time of the process and the children it waited for. */
  cpuMs: number
  /** The peak resident set of the largest single process (getrusage's ru_maxrss). */
  peakRssMb: number
}

export interface Command {
  file: string
  args: string[]
  cwd: string
  env: Record<string, string | undefined>
}

const GNU_TIME = '/usr/bin/time'

/**
 * Runs a command under GNU time (for CPU time and peak RSS, which Node cannot read for a child)
 * and times the wall clock here. Output goes to `logFile`; a failure throws with its tail.
 */
export async function measure (command: Command, logFile: string): Promise<Measurement> {
  if (!fs.existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} is missing: install GNU time (Debian: apt-get install time)`)
  const usageFile = `${logFile}.usage`
  const log = fs.openSync(logFile, 'w')
  const started = performance.now()
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(GNU_TIME, ['-f', '%U %S %M', '-o', usageFile, command.file, ...command.args], {
      cwd: command.cwd,
      env: command.env,
      stdio: ['ignore', log, log],
    })
    child.on('error', reject)
    child.on('exit', resolve)
  })
  const wallMs = performance.now() - started
  fs.closeSync(log)
  if (code !== 0) {
    const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-25).join('\n')
    throw new Error(`${command.file} ${command.args.join(' ')} (in ${command.cwd}) exited with ${String(code)}:\n${tail}`)
  }
  // GNU time may prefix lines such as "Command exited with non-zero status"; the figures are the last line.
  const [user, system, rssKb] = fs.readFileSync(usageFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number)
  return { wallMs, cpuMs: (user! + system!) * 1000, peakRssMb: rssKb! / 1024 }
}
