/** A project of a workspace: its directory, its id in the lockfile (`.`, `packages/a`) and its package.json. */
export interface WorkspaceProject {
  dir: string
  /** The path from the workspace root, `/`-separated: the project's key in `importers`. */
  id: string
  manifest: Record<string, unknown>
}
