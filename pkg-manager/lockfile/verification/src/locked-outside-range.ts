import { withoutPeersSuffix } from '@lode/core.dep-path'
import semver from 'semver'

/**
 * The version locked for a registry range or version (`^1.0.0`, `npm:x@^1`) when that range does not
 * take it; undefined when it does, or for anything else (tags, `catalog:`, `workspace:`, paths, URLs).
 */
export function lockedOutsideRange (specifier: string, lockedVersion: string): string | undefined {
  // A workspace pins the same few specifiers to the same versions in thousands of projects: each
  // pair is checked once (semver parses the range again at every call).
  const key = `${specifier}\0${lockedVersion}`
  if (answers.has(key)) return answers.get(key)
  const answer = check(specifier, lockedVersion)
  if (answers.size >= MAX_ANSWERS) answers.clear()
  answers.set(key, answer)
  return answer
}

const answers = new Map<string, string | undefined>()
const MAX_ANSWERS = 10_000

function check (specifier: string, lockedVersion: string): string | undefined {
  const range = /^npm:(?:@[^/@]+\/)?[^@]+@(.+)$/.exec(specifier)?.[1] ?? specifier
  if (semver.validRange(range, { loose: true }) === null || /^[a-z]+:/i.test(range)) return undefined
  const version = withoutPeersSuffix(lockedVersion).replace(/^.+@(?=[^@]+$)/, '')
  if (semver.valid(version, { loose: true }) === null) return undefined
  return semver.satisfies(version, range, { loose: true, includePrerelease: true }) ? undefined : version
}
