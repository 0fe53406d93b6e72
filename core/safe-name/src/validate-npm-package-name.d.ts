// validate-npm-package-name ships no types; the part lode uses.
declare module 'validate-npm-package-name' {
  interface Result {
    validForNewPackages: boolean
    validForOldPackages: boolean
    warnings?: string[]
    errors?: string[]
  }
  function validate (name: string): Result
  export = validate
}
