// The part of @pnpm/hosted-git-info's API lode uses (the package ships no types). It is pnpm 11's
// fork of hosted-git-info 4: what it recognizes as a hosted repository is what pnpm 11 does.
declare module '@pnpm/hosted-git-info' {
  interface FillOptions {
    noCommittish?: boolean
    noGitPlus?: boolean
  }
  interface TemplateFields {
    domain: string
    user: string | null
    project: string
    committish: string | null
  }
  interface GitHost {
    type: 'github' | 'gitlab' | 'bitbucket' | 'gist'
    domain: string
    user: string | null
    auth: string | null
    project: string
    committish: string | null
    /** How the specifier was written: `shortcut`, `https`, `sshurl`, `git`, … */
    default: string
    tarballtemplate: (fields: TemplateFields) => string
    https: (opts?: FillOptions) => string
    ssh: (opts?: FillOptions) => string
    sshurl: (opts?: FillOptions) => string
    shortcut: (opts?: FillOptions) => string
    tarball: (opts?: FillOptions) => string | null
    /** The repository's page (`https://github.com/user/repo#readme`). */
    docs: (opts?: FillOptions) => string | undefined
    /** The URL in the form it was written (`sshurl` as `git+ssh://…`). */
    toString: (opts?: FillOptions) => string
  }
  const hostedGitInfo: { fromUrl: (url: string) => GitHost | undefined }
  export type { GitHost }
  // eslint-disable-next-line import-x/no-default-export -- describes the package's own default export
  export default hostedGitInfo
}
