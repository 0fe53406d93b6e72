// Its own entry point (`@lode/pkg-manager.config.settings/ci`): the CLI's no-op check reads it before
// loading anything else.

/** The variables ci-info (pnpm's CI detector) checks first. */
export const CI_ENV_VARS: readonly string[] = ['CI', 'CONTINUOUS_INTEGRATION', 'BUILD_NUMBER', 'BUILD_ID', 'RUN_ID', 'CI_NAME', 'CI_APP_ID', 'CI_BUILD_ID', 'CI_BUILD_NUMBER', 'GITHUB_ACTIONS', 'GITLAB_CI', 'BUILDKITE', 'CIRCLECI', 'TRAVIS', 'TF_BUILD', 'JENKINS_URL']

/** Whether `env` is a CI job: one of `CI_ENV_VARS` is set, unless `CI=false`. */
export function isCI (env: Readonly<Record<string, string | undefined>>): boolean {
  if (env['CI'] === 'false') return false
  return CI_ENV_VARS.some((name) => env[name] !== undefined && env[name] !== '')
}
