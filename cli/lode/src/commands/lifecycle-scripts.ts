import { VERSION } from '../version.js'

/**
 * Runs the project's scripts for these events, in order (those it has), each echoed as `$ <script>`
 * on stderr first, as pnpm's pack and publish run theirs.
 */
export async function runLifecycleScripts (dir: string, events: readonly string[], stderr: NodeJS.WritableStream): Promise<void> {
  const [core, { isSkippedScript, runProjectScript, scriptsOf }] = await Promise.all([
    import('@lode/pkg-manager.core'),
    import('@lode/pkg-manager.building.lifecycle'),
  ])
  for (const event of events) {
    // Read again for each: a script may change package.json (a version bump in prepublishOnly).
    const manifest = await core.readProjectManifest(dir)
    const script = scriptsOf(manifest)[event]
    if (script === undefined || isSkippedScript(script)) continue
    stderr.write(`$ ${script}\n`)
    await runProjectScript(event, { dir, manifest, stdio: 'inherit', userAgent: core.lodeUserAgent(VERSION) })
  }
}
