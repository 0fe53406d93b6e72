// The part of npm-packlist's API lode uses (the package ships no types): the files `npm pack`
// would put in a package, given an arborist-like node for its directory.
declare module 'npm-packlist' {
  interface PacklistTree {
    path: string
    package: Record<string, unknown>
    isProjectRoot: boolean
    isLink: boolean
    target: PacklistTree
    edgesOut: Map<string, { to: PacklistTree, peer: boolean, dev: boolean }>
  }
  function packlist (tree: PacklistTree, opts?: Record<string, unknown>): Promise<string[]>
  // eslint-disable-next-line import-x/no-default-export -- describes the package's own default export
  export default packlist
  export type { PacklistTree }
}
