// The part of hosted-git-info's API lode uses (the package ships no types): a repository URL read
// as a known host's, and that host's web pages for it.
declare module 'hosted-git-info' {
  interface GitHost {
    browse: (path?: string) => string | undefined
    bugs: () => string | undefined
  }
  const hostedGitInfo: { fromUrl: (url: string) => GitHost | undefined }
  // eslint-disable-next-line import-x/no-default-export -- describes the package's own default export
  export default hostedGitInfo
}
