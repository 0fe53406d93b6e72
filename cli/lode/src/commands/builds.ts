import type { MainContext } from '../context.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

/**
 * `lode ignored-builds`: the dependencies whose build scripts the last install did not run
 * (`.modules.yaml`'s ignored builds, by the `allowBuilds` key that would decide each), and the
 * ones `allowBuilds` turns down, printed as pnpm 11 prints them.
 */
export async function ignoredBuildsCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const [{ allowBuildKeyOf }, { readModulesManifest }] = await Promise.all([
    import('@lode/pkg-manager.lifecycle'),
    import('@lode/pkg-manager.linker/modules-manifest'),
  ])
  const { config } = await projectConfig(input, ctx)
  const rootDir = config.dir
  const refused = Object.entries(config.allowBuilds).filter(([, allowed]) => !allowed).map(([key]) => key)
  const ignored = (await readModulesManifest(path.join(rootDir, 'node_modules')))?.ignoredBuilds
  const names = ignored === undefined ? undefined : [...new Set(ignored.map(allowBuildKeyOf))].filter((key) => !refused.includes(key))
  let output = 'Automatically ignored builds during installation:\n'
  if (names === undefined) output += '  Cannot identify as no node_modules found'
  else if (names.length === 0) output += '  None'
  else {
    output += `  ${names.join('\n  ')}
hint: To allow the execution of build scripts for a package, add its name to "allowBuilds" and set to "true", then run "lode rebuild".
hint: For example:
hint: allowBuilds:
hint:   esbuild: true
hint: If you don't want to build a package, set it to "false" instead.`
  }
  output += '\n'
  if (refused.length > 0) output += `\nExplicitly ignored package builds (via allowBuilds):\n  ${refused.join('\n  ')}\n`
  ctx.stdout.write(output)
  return 0
}
