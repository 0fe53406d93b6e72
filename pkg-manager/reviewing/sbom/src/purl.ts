// Package URLs (purls) as pnpm 11's SBOM writes them: `pkg:npm/<name>@<version>`, the scope's `@`
// escaped; a git or tarball package's version escaped and where it came from as `vcs_url`.

/** `@scope/name` → `%40scope/name`, as a purl's npm name. */
export function encodePurlName (name: string): string {
  return name.startsWith('@') ? `%40${name.slice(1)}` : name
}

/**
 * The purl of a package: `nonSemverVersion` is the lockfile's id of a package that has no registry
 * version (`https://…/x.tgz`, `git+https://…#<commit>`).
 */
export function purlOf (name: string, version: string, nonSemverVersion?: string): string {
  if (nonSemverVersion !== undefined) {
    return `pkg:npm/${encodePurlName(name)}@${encodeURIComponent(version)}?vcs_url=${encodeURIComponent(nonSemverVersion)}`
  }
  return `pkg:npm/${encodePurlName(name)}@${version}`
}
