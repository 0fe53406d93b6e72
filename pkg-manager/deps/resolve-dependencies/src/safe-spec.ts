import { parseWantedSpec } from '@lode/resolving.npm-resolver'

/** A dependency's specifier as lode reads it, or undefined where it reads none (the caller then leaves that dependency alone). */
export function safeSpec (alias: string, specifier: string): ReturnType<typeof parseWantedSpec> | undefined {
  try {
    return parseWantedSpec(alias, specifier, 'package.json')
  } catch {
    return undefined
  }
}
