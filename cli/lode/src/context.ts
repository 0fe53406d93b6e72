/** What a command gets from the process it runs in: its environment, directory and output streams (tests pass their own). */
export interface MainContext {
  env: Readonly<Record<string, string | undefined>>
  cwd: string
  stdout: NodeJS.WritableStream & { isTTY?: boolean }
  stderr: NodeJS.WritableStream
  /** The terminal's input, for the prompts (made when first asked for: building process.stdin costs time). */
  stdin?: () => NodeJS.ReadableStream & { isTTY?: boolean, setRawMode?: (mode: boolean) => unknown }
}
