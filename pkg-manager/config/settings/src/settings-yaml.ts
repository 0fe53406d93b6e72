import fs from 'node:fs'
import path from 'node:path'

import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'
import { parseYaml } from '@lode/pkg-manager.lockfile.format/yaml'

// The YAML files of settings (pnpm-workspace.yaml, pnpm's global config.yaml), read as maps: by
// the settings reader and by `lode config`.

/** `<dir>/pnpm-workspace.yaml` as it is written (a missing file is empty; broken YAML is `ERR_LODE_INVALID_WORKSPACE_YAML`). */
export function readWorkspaceYaml (dir: string): Record<string, unknown> {
  return readSettingsYaml(path.join(dir, 'pnpm-workspace.yaml'))
}

/** A YAML file of settings (pnpm-workspace.yaml, pnpm's global config.yaml) as a map; a missing file is empty. */
export function readSettingsYaml (file: string): Record<string, unknown> {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return {}
    throw fileSystemError(err, file) ?? err
  }
  let value: unknown
  try {
    value = parseYaml(text)
  } catch (err) {
    throw new LodeError('INVALID_WORKSPACE_YAML', `${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`, { hint: 'Fix the file and run again.' })
  }
  if (value === null || value === undefined) return {}
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new LodeError('INVALID_WORKSPACE_YAML', `${file} must be a map of settings.`, { hint: 'Fix the file and run again.' })
  }
  return value as Record<string, unknown>
}
