import { PNPM_SETTINGS, PROJECT_REFUSED_KEYS } from './settings.js'

// pnpm 11's `pnpm_config_*` environment variables: each names a setting (`pnpm_config_frozen_lockfile`
// is `frozenLockfile`, `PNPM_CONFIG_*` too) and wins over the files; the command line wins over it.

export interface EnvSettings {
  /** The values, read as JSON where they are JSON (`true`, `5`, `["a"]`), else as the text. */
  settings: Record<string, unknown>
  /** Each setting's text as the variable has it (a string setting whose text looks like JSON). */
  raw: Record<string, string>
  /** Each setting's variable, for messages. */
  variables: Record<string, string>
}

const PREFIX = /^pnpm_config_([a-z0-9_]+)$/i

/** The pnpm settings the environment sets; variables of names pnpm does not know are left alone, as pnpm leaves them. */
export function settingsFromEnv (env: Readonly<Record<string, string | undefined>>): EnvSettings {
  const result: EnvSettings = { settings: {}, raw: {}, variables: {} }
  for (const [variable, text] of Object.entries(env)) {
    const suffix = PREFIX.exec(variable)?.[1]
    if (suffix === undefined || text === undefined) continue
    const name = suffix.toLowerCase().replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())
    if (!PNPM_SETTINGS.has(name) || PROJECT_REFUSED_KEYS.has(name)) continue
    result.settings[name] = parsed(text)
    result.raw[name] = text
    result.variables[name] = variable
  }
  return result
}

function parsed (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
