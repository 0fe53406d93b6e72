import { LodeError } from '@lode/core.error'

/**
 * The pack and publish settings of pnpm-workspace.yaml that would change what is packed or sent
 * and that lode does not do yet (`embedReadme`, `packGzipLevel`, `provenance`): refused with
 * `ERR_LODE_UNSUPPORTED_SETTING`, never ignored. (The others are `Config.publish`.)
 */
export async function refuseUnsupportedPackSettings (rootDir: string): Promise<void> {
  const { readWorkspaceYaml } = await import('@lode/pkg-manager.config.settings')
  const yaml = readWorkspaceYaml(rootDir)
  for (const [key, unset] of [['embedReadme', false], ['packGzipLevel', undefined], ['provenance', false]] as const) {
    if (yaml[key] !== undefined && yaml[key] !== unset) {
      throw new LodeError('UNSUPPORTED_SETTING', `${key} (in pnpm-workspace.yaml) is not supported by lode pack and publish yet.`, {
        hint: 'Remove it to pack and publish with lode, or use pnpm pack / pnpm publish for this project.',
      })
    }
  }
}
