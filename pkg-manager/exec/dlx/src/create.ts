/** pnpm's `create <name>`: `foo` → `create-foo`, `@scope` → `@scope/create`, `@scope/foo` → `@scope/create-foo` (a version kept). */
export function createPackageName (name: string): string {
  if (!name.startsWith('@')) return name.startsWith('create-') ? name : `create-${name}`
  const slash = name.indexOf('/')
  if (slash === -1) {
    const at = name.indexOf('@', 1)
    return at === -1 ? `${name}/create` : `${name.slice(0, at)}/create${name.slice(at)}`
  }
  const rest = name.slice(slash + 1)
  return `${name.slice(0, slash)}/${rest.startsWith('create-') ? rest : `create-${rest}`}`
}
