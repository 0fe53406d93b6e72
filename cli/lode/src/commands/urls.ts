import type { MainContext } from '../context.js'
import { openInBrowser } from '../open-url.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

type Json = Record<string, unknown>
type Page = 'bugs' | 'docs' | 'repo'

/**
 * `lode bugs` (`issues`), `lode docs` (`home`), `lode repo`: the page pnpm 11 opens for each package
 * named (from the registry's document) or for the project itself, printed (pnpm fails where no
 * browser can open); on a terminal it is opened too, where the system has an opener.
 */
export async function packagePageCommand (page: Page, input: CommandInput, ctx: MainContext): Promise<number> {
  const { positionals } = input.args!
  const [{ LodeError }, inspection] = await Promise.all([import('@lode/core.error'), import('@lode/pkg-manager.reviewing.inspection')])
  const { dir, config } = await projectConfig(input, ctx)
  if (page === 'docs' && positionals.length === 0) {
    throw new LodeError('MISSING_PACKAGE_NAME', 'Package name is required. Usage: lode docs <package-name>')
  }
  const fromRegistry = async (spec: string): Promise<{ manifest: Json, own: boolean }> =>
    ({ manifest: await inspection.viewPackage(config, spec, { onWarning: () => {} }), own: false })
  const manifests = positionals.length === 0
    ? [{ manifest: await (await import('@lode/pkg-manager.core')).readProjectManifest(dir) as Json, own: true }]
    : await Promise.all(positionals.map(fromRegistry))
  for (const { manifest, own } of manifests) {
    const url = page === 'docs' ? inspection.docsUrl(manifest) : page === 'bugs' ? inspection.bugsUrl(manifest) : inspection.repositoryUrl(manifest)
    if (url === undefined) {
      const what = page === 'bugs' ? 'a bug tracker URL' : 'a repository URL'
      throw new LodeError(page === 'bugs' ? 'NO_BUGS_URL' : 'NO_REPO_URL', own
        ? `The current project does not have ${what}. Add a ${page === 'bugs' ? '"bugs" or "repository" field' : '"repository" field'} to its manifest.`
        : `The package "${String(manifest['name'])}" does not have ${what}.`)
    }
    ctx.stdout.write(`${url}\n`)
    if ((ctx.stdout as { isTTY?: boolean }).isTTY === true) openInBrowser(url, ctx.env)
  }
  return 0
}
