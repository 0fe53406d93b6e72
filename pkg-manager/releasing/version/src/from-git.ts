import { LodeError } from '@lode/core.error'
import { gitOutput } from '@lode/pkg-manager.releasing.git'
import semver from 'semver'

/**
 * `lode version from-git`: the version of the latest tag reachable from HEAD that looks like a
 * release (`<prefix>*.*.*`), as pnpm 11 finds it; no such tag, or one that is not
 * `<prefix><semver>`, is `ERR_LODE_INVALID_VERSION_FROM_GIT`.
 */
export async function versionFromGit (cwd: string, tagVersionPrefix: string): Promise<string> {
  const fail = (reason: string): LodeError => new LodeError('INVALID_VERSION_FROM_GIT',
    `Could not determine a valid version from Git in ${JSON.stringify(cwd)} using tag prefix ${JSON.stringify(tagVersionPrefix)}: ${reason}`,
    { hint: `Tag the release first (git tag ${tagVersionPrefix}1.2.3), or give the version.` })
  const tag = await gitOutput(cwd, ['describe', '--tags', '--abbrev=0', '--always', `--match=${tagVersionPrefix}*.*.*`]) ?? ''
  // With --always git names a commit when no tag matches: only a name `git tag --list` knows is a tag.
  if (tag === '' || await gitOutput(cwd, ['tag', '--list', '--', tag]) !== tag) throw fail('no matching Git tag found')
  const version = tag.startsWith(tagVersionPrefix) ? semver.valid(tag.slice(tagVersionPrefix.length)) : null
  if (version === null) throw fail(`tag is not a valid version: ${JSON.stringify(tag)}`)
  return version
}
