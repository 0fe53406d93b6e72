const childProcess = process.getBuiltinModule('node:child_process')

/** The system's opener (BROWSER, else xdg-open, open or start), detached; where there is none, the printed URL stands. */
export function openInBrowser (url: string, env: NodeJS.ProcessEnv): void {
  const [command, args] = env['BROWSER'] !== undefined && env['BROWSER'] !== ''
    ? [env['BROWSER'], [url]]
    : process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]]
  const child = childProcess.spawn(command, args, { detached: true, stdio: 'ignore' })
  child.on('error', () => {})
  child.unref()
}
