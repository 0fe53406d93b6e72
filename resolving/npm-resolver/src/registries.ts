// What a package's registry and tarball URL are: light enough for installs that resolve nothing (`@lode/resolving.npm-resolver/registries`).

export interface Registries {
  /** The default registry URL, ending in `/`. */
  default: string
  /** `@scope` → registry URL (ending in `/`), from `@scope:registry` settings. */
  scoped: Readonly<Record<string, string>>
}

/** Where a registry keeps a version's tarball: `<registry><name>/-/<name without scope>-<version>.tgz`. */
export function registryTarballUrl (registry: string, name: string, version: string): string {
  return `${registry}${name}/-/${name.replace(/^@[^/]+\//, '')}-${version}.tgz`
}

/** The registry a package name comes from: its scope's (`@scope:registry`), else the default. */
export function registryFor (registries: Registries, name: string): string {
  const scope = name.startsWith('@') ? name.slice(0, name.indexOf('/')) : undefined
  return (scope !== undefined ? registries.scoped[scope] : undefined) ?? registries.default
}

/** `@scope/name` → `@scope%2fname`, as registries expect in a packument's URL (and a publish's). */
export function encodeName (name: string): string {
  return name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name)
}
