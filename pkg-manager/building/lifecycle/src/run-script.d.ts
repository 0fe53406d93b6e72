// The part of @npmcli/run-script's API lode uses (the package ships no types).
declare module '@npmcli/run-script' {
  interface RunScriptOptions {
    event: string
    path: string
    pkg: Record<string, unknown>
    env?: Record<string, string>
    binPaths?: string[]
    stdio?: 'pipe' | 'inherit'
    args?: string[]
    scriptShell?: string | boolean
  }
  interface RunScriptResult {
    code: number | null
    signal: string | null
    stdout?: string
    stderr?: string
  }
  function runScript (options: RunScriptOptions): Promise<RunScriptResult>
  // eslint-disable-next-line import-x/no-default-export -- describes the package's own default export
  export default runScript
}
