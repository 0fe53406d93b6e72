import { LodeError } from '@lode/core.error'
import { isGitRepo, isWorkingTreeClean } from '@lode/pkg-manager.releasing.git'

import { applyBumps, type PlannedBump, planBumps, restoreManifests, type VersionChange, type VersionScript, withoutText } from './bump-projects.js'
import type { VersionBump } from './bump.js'
import { checkCanCommit, commitBump, tagBump } from './commit-and-tag.js'
import { versionFromGit } from './from-git.js'

/** pnpm's settings for `version` (pnpm-workspace.yaml, .npmrc or the command line). */
export interface VersionSettings {
  allowSameVersion: boolean
  commitHooks: boolean
  gitChecks: boolean
  gitTagVersion: boolean
  message: string
  signGitTag: boolean
  tagVersionPrefix: string
}

export interface VersionOptions {
  /** The projects to bump: the current one, or those `-r`/`--filter` selected. */
  projectDirs: readonly string[]
  /** `-r` or `--filter`: the bumps are not committed or tagged (they may differ per project). */
  recursive: boolean
  /** Where git runs: the workspace's root, else the project. */
  gitDir: string
  bump: VersionBump
  preid: string | undefined
  dryRun: boolean
  settings: VersionSettings
  runScript: VersionScript | undefined
}

/**
 * pnpm 11's `version <bump>`: in a git repository a clean working tree first (unless `gitChecks`
 * is off, or a dry run), every bump worked out, the projects bumped with their scripts, then, for
 * one project in a git repository, a commit and an annotated tag (unless `gitTagVersion` is off),
 * then each project's `postversion` (`from-git` commits nothing). A dry run writes and runs nothing. Until the commit is made a
 * failure puts every package.json back as it was.
 */
export async function versionProjects (opts: VersionOptions): Promise<VersionChange[]> {
  const { settings } = opts
  const bump = opts.bump.kind === 'step'
    ? { step: opts.bump.step, preid: opts.preid }
    : { exact: opts.bump.kind === 'exact' ? opts.bump.version : await versionFromGit(opts.gitDir, settings.tagVersionPrefix) }
  const inGit = await isGitRepo(opts.gitDir)
  if (!opts.dryRun && settings.gitChecks && inGit && !await isWorkingTreeClean(opts.gitDir)) {
    throw new LodeError('UNCLEAN_WORKING_TREE', 'Working tree is not clean. Commit or stash your changes.', {
      hint: 'Commit or stash them, or run again with --no-git-checks.',
    })
  }
  const planned = planBumps(opts.projectDirs, bump, settings)
  if (planned.length === 0) throw new LodeError('NO_PACKAGES_TO_VERSION', 'No packages to version', { hint: 'Give the project a "name" and a "version" in its package.json.' })
  if (opts.dryRun) return planned.map(withoutText)
  // from-git: the tag is where the version came from, so nothing is committed or tagged (npm's rule;
  // pnpm 11 commits, then fails to tag it again).
  const commit = !opts.recursive && opts.bump.kind !== 'from-git' && settings.gitTagVersion && inGit ? planned[0]! : undefined
  if (commit !== undefined) await checkCanCommit(opts.gitDir, commit.newVersion, settings)
  const written: PlannedBump[] = []
  try {
    await applyBumps(planned, opts.runScript, written)
    if (commit !== undefined) await commitBump(opts.gitDir, commit, settings)
  } catch (err) {
    restoreManifests(written)
    throw err
  }
  if (commit !== undefined) await tagBump(opts.gitDir, commit.newVersion, settings)
  for (const change of planned) await opts.runScript?.('postversion', change.path)
  return planned.map(withoutText)
}

/** The lines pnpm 11 prints: the plan of a dry run, or the bumps made; `--json`, the changes without their manifest's path. */
export function renderVersionChanges (changes: readonly VersionChange[], opts: { json: boolean, dryRun: boolean }): string {
  if (opts.json) return JSON.stringify(changes.map(({ manifestPath: _manifestPath, ...change }) => change), null, 2)
  const lines = changes.map((change) => `${change.name}: ${change.currentVersion} → ${change.newVersion}\n`)
  return `${opts.dryRun ? 'Version bump plan:' : 'Version bumped successfully:'}\n${lines.join('')}`
}
