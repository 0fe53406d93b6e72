import { renderHelp } from '../args.js'
import type { OptionSpecs } from '../args.js'
import { auditCommand } from './audit.js'
import { approveBuildsCommand, ignoredBuildsCommand } from './builds.js'
import { cleanCommand, cleanInstallCommand, installTestCommand } from './clean.js'
import { completionCommand } from './completion.js'
import { configCommand } from './config.js'
import { deployCommand } from './deploy.js'
import { dlxCommand } from './dlx.js'
import { doctorCommand } from './doctor.js'
import { editCommand } from './edit.js'
import { fetchCommand } from './fetch.js'
import { initCommand } from './init.js'
import { fundCommand, listCommand, peersCommand, whyCommand } from './inspect.js'
import { installCommand } from './install.js'
import { licensesCommand } from './licenses.js'
import { linkCommand, unlinkCommand } from './link.js'
import { loginCommand, logoutCommand } from './login.js'
import { outdatedCommand } from './outdated.js'
import { packCommand } from './pack.js'
import { patchCommand, patchCommitCommand, patchRemoveCommand } from './patch.js'
import { pathCommand } from './paths.js'
import { publishCommand } from './publish.js'
import { rebuildCommand } from './rebuild.js'
import { distTagCommand, ownerCommand, pingCommand, searchCommand, whoamiCommand } from './registry-access.js'
import { execCommand, runCommand } from './run.js'
import { sbomCommand } from './sbom.js'
import { catFileCommand, catIndexCommand, findHashCommand, storeCommand } from './store.js'
import type { CommandInput, CommandSpec } from './types.js'
import { packagePageCommand } from './urls.js'
import { versionCommand } from './version.js'
import { viewCommand } from './view.js'

// Every command of the CLI: its names, its options, its help, and the function that runs it. The
// command modules are small and load what they need (the installer, the resolver) when they run,
// so that `lode --version` and the no-op install load little: one bundle chunk for all of them,
// not a chunk per command. A new command is a module under commands/ and an entry here.

const OTP = { type: 'string', arg: '<code>', help: 'A one-time password, for an account with two-factor authentication' } as const

const COMMON: OptionSpecs = {
  dir: { type: 'string', short: 'C', arg: '<dir>', help: 'Run as if lode was started in <dir>' },
  reporter: { type: 'string', arg: '<name>', help: 'default, append-only, silent, or ndjson (one JSON event per line, for tools)' },
  help: { type: 'boolean', short: 'h', help: 'Print this help' },
  version: { type: 'boolean', short: 'v', help: 'Print lode\'s version', hidden: true },
}

const SETTINGS: OptionSpecs = {
  registry: { type: 'string', arg: '<url>', help: 'The default registry' },
  'cache-dir': { type: 'string', arg: '<dir>', help: 'Where registry metadata is cached' },
  'store-dir': { type: 'string', arg: '<dir>', help: 'The content-addressable store' },
  offline: { type: 'boolean', help: 'Use only the metadata cache; fail on a cache miss' },
  'prefer-offline': { type: 'boolean', help: 'Use cached metadata when it can answer, ask the registry otherwise' },
  'node-linker': { type: 'string', arg: '<isolated|hoisted>', help: 'How node_modules is laid out (nodeLinker)' },
  'shamefully-hoist': { type: 'boolean', help: 'Hoist every dependency into node_modules (publicHoistPattern *)' },
  'virtual-store-dir': { type: 'string', arg: '<dir>', help: 'Where the packages of the isolated layout go (default node_modules/.pnpm)' },
  'network-concurrency': { type: 'string', arg: '<number>', help: 'The most requests to the registry at once (networkConcurrency)' },
  'ignore-scripts': { type: 'boolean', help: 'Run no scripts' },
}

const SELECTION: OptionSpecs = {
  recursive: { type: 'boolean', short: 'r', help: 'In every project of the workspace but the root' },
  filter: { type: 'string', short: 'F', multiple: true, arg: '<selector>', help: 'In the projects pnpm\'s selector picks (name, @scope/*, {dir}, ./dir, name..., ...name, ^, !)' },
  'workspace-root': { type: 'boolean', short: 'w', help: 'In the workspace root' },
  'fail-if-no-match': { type: 'boolean', help: 'Fail when a selector matches no project' },
}

/** Where an install's time went: every command that installs takes them. */
const TRACE: OptionSpecs = {
  'trace-pipeline': { type: 'string', arg: '<file>', help: 'Record packages resolved, downloaded, extracted and linked per 100 ms (JSON lines; also LODE_TRACE_PIPELINE)' },
  timeline: { type: 'string', arg: '<file.html>', help: 'Write where the install\'s time went (phases, slowest packages and requests) as a page to open in a browser' },
}

const INSTALL: OptionSpecs = {
  'lockfile-only': { type: 'boolean', help: 'Only resolve and write pnpm-lock.yaml' },
  'frozen-lockfile': { type: 'boolean', help: 'Install pnpm-lock.yaml as it is; fail if it is out of date (default in CI)' },
  'prefer-frozen-lockfile': { type: 'boolean', help: 'Install an up-to-date pnpm-lock.yaml without resolving (default)' },
  prod: { type: 'boolean', short: 'P', help: 'Skip devDependencies' },
  production: { type: 'boolean', help: 'Skip devDependencies', hidden: true },
  dev: { type: 'boolean', short: 'D', help: 'Only devDependencies' },
  optional: { type: 'boolean', help: 'With --no-optional, skip optionalDependencies' },
  ...TRACE,
}

/** `run`'s own flags for a workspace (read before the script's name, as pnpm reads them). */
const RUN: OptionSpecs = {
  'workspace-concurrency': { type: 'string', arg: '<number>', help: 'Scripts at a time (default 4, or the cores when fewer; 0 or less: the cores minus that many)' },
  parallel: { type: 'boolean', help: 'Every project\'s script at once, dependencies disregarded, output streamed' },
  stream: { type: 'boolean', help: 'Stream each script\'s output as it comes, prefixed with its project' },
  'aggregate-output': { type: 'boolean', help: 'Print each script\'s output in one piece once it ends' },
  bail: { type: 'boolean', help: 'With --no-bail, go on after a failing script and sum the failures up at the end' },
  reverse: { type: 'boolean', help: 'Dependents first' },
  sequential: { type: 'boolean', help: 'One script at a time' },
  'resume-from': { type: 'string', arg: '<name>', help: 'Start at that project\'s turn' },
}

/** What the commands that inspect the installed dependencies take (pnpm's `list`, `why`). */
const INSPECT: OptionSpecs = {
  depth: { type: 'string', arg: '<number>', help: 'How deep to show the tree (Infinity for all)' },
  parseable: { type: 'boolean', help: 'Print one line per path' },
  long: { type: 'boolean', help: 'Show each package\'s description, repository, homepage and directory' },
  prod: { type: 'boolean', short: 'P', help: 'Only dependencies and optionalDependencies' },
  production: { type: 'boolean', help: 'Only dependencies and optionalDependencies', hidden: true },
  dev: { type: 'boolean', short: 'D', help: 'Only devDependencies' },
  optional: { type: 'boolean', help: 'With --no-optional, leave out optionalDependencies' },
}

/** The dependency-group flags of the commands that read the installed graph (outdated, licenses). */
const GROUP_FLAGS: OptionSpecs = { prod: INSPECT['prod']!, production: INSPECT['production']!, dev: INSPECT['dev']!, optional: INSPECT['optional']! }

export type { CommandInput, CommandSpec } from './types.js'

export const COMMANDS: readonly CommandSpec[] = [
  {
    names: ['install', 'i'],
    summary: 'Install the project\'s dependencies (pnpm-lock.yaml and node_modules)',
    usage: ['lode install [options]', 'lode install <name>... (as lode add)'],
    description: 'Installs every dependency of the project (in a workspace, of every project, from its root; with --filter, of the projects selected), as pnpm does: pnpm-lock.yaml is reused where it still satisfies package.json.',
    options: { ...INSTALL, ...SETTINGS, ...SELECTION, ...COMMON },
    run: async (input, ctx) => await installCommand(input, ctx),
  },
  {
    names: ['install-test', 'it'],
    summary: 'Install, then run the test script',
    usage: ['lode install-test [options] [-- <test args>...]'],
    description: 'Runs lode install (its options), then lode run test with the arguments given (in the projects -r or --filter select; --no-bail goes on after a failing test).',
    options: { ...INSTALL, ...SETTINGS, ...SELECTION, bail: RUN['bail']!, ...COMMON },
    run: async (input, ctx) => await installTestCommand(input, ctx),
  },
  {
    names: ['ci', 'clean-install', 'ic', 'install-clean'],
    summary: 'Clean node_modules, then install pnpm-lock.yaml as it is (for CI)',
    usage: ['lode ci [options]'],
    description: 'Runs lode clean (pnpm-lock.yaml kept), then lode install --frozen-lockfile, as pnpm\'s ci does.',
    options: { ...INSTALL, ...SETTINGS, ...SELECTION, ...COMMON },
    run: async (input, ctx) => await cleanInstallCommand(input, ctx),
  },
  {
    names: ['add'],
    summary: 'Add dependencies to package.json and install',
    usage: ['lode add <name>[@<tag|version|range>]...', 'lode add <alias>@npm:<name>[@<range>]', 'lode add <name>@workspace:<range>'],
    description: 'Resolves each dependency, saves it in package.json with the specifier pnpm would write (savePrefix), and installs. Nothing is written when resolution fails.',
    options: {
      'save-dev': { type: 'boolean', short: 'D', help: 'Save to devDependencies' },
      'save-prod': { type: 'boolean', short: 'P', help: 'Save to dependencies' },
      'save-optional': { type: 'boolean', short: 'O', help: 'Save to optionalDependencies' },
      'save-exact': { type: 'boolean', short: 'E', help: 'Save the exact version, without savePrefix' },
      'save-peer': { type: 'boolean', help: 'Save to peerDependencies, and install as a dev dependency' },
      'ignore-workspace-root-check': { type: 'boolean', help: 'Add to the workspace root without -w' },
      'save-catalog': { type: 'boolean', help: 'Save new dependencies to the default catalog of pnpm-workspace.yaml, as catalog:' },
      'save-catalog-name': { type: 'string', arg: '<name>', help: 'Save new dependencies to the named catalog, as catalog:<name>' },
      'lockfile-only': { type: 'boolean', help: 'Only write package.json and pnpm-lock.yaml, not node_modules' },
      dev: { type: 'boolean', help: 'Save to devDependencies', hidden: true },
      prod: { type: 'boolean', help: 'Save to dependencies', hidden: true },
      ...TRACE,
      ...SETTINGS,
      ...SELECTION,
      ...COMMON,
    },
    run: async (input, ctx) => await installCommand(input, ctx),
  },
  {
    names: ['remove', 'rm', 'uninstall', 'un', 'uni'],
    summary: 'Remove dependencies from package.json and node_modules',
    usage: ['lode remove <name>...'],
    description: 'Removes the dependencies from every dependency group of package.json, then the lockfile and node_modules follow.',
    options: { ...TRACE, ...SETTINGS, ...SELECTION, ...COMMON },
    run: async (input, ctx) => await installCommand(input, ctx),
  },
  {
    names: ['update', 'up', 'upgrade'],
    summary: 'Update dependencies to the newest versions their ranges allow',
    usage: ['lode update [<name>|<pattern>]...'],
    description: 'Resolves the direct dependencies named or matched ("@babel/*", "!eslint"; all of them when none is named) again, to the newest version their range allows; package.json keeps each range\'s prefix.',
    options: { latest: { type: 'boolean', short: 'L', help: 'To the latest versions, ranges aside' }, ...TRACE, ...SETTINGS, ...SELECTION, ...COMMON },
    run: async (input, ctx) => await installCommand(input, ctx),
  },
  {
    names: ['rebuild', 'rb'],
    summary: 'Run the build scripts of installed packages (after --ignore-scripts, say)',
    usage: ['lode rebuild [<name>...]'],
    description: 'Runs the build scripts of the installed packages that have them and that allowBuilds allows (or of the named ones), then the builds .modules.yaml records as pending.',
    options: { 'store-dir': SETTINGS['store-dir']!, ...COMMON },
    run: async (input, ctx) => await rebuildCommand(input, ctx),
  },
  {
    names: ['run', 'run-script'],
    summary: 'Run a script of package.json, with its pre and post scripts',
    usage: ['lode run <script> [<args>...]', 'lode <script> [<args>...]   (when no command has that name)'],
    description: 'Runs the script with node_modules/.bin on PATH; what follows its name is passed to it. Without a name, lists the scripts. With -r or --filter (before the name), in each selected project that has it, each after the projects it depends on, several at a time: one at a time they share the terminal, else their output is prefixed with the project.',
    options: { ...SELECTION, 'if-present': { type: 'boolean', help: 'A missing script is no error' }, ...RUN, help: COMMON['help']! },
    passThrough: true,
    run: async (input, ctx) => await runCommand([...input.leading, ...input.rest], ctx),
  },
  {
    names: ['test', 't', 'tst', 'start'],
    summary: 'Run the test (or start) script of package.json',
    usage: ['lode test [<args>...]', 'lode start [<args>...]'],
    description: 'As lode run test and lode run start.',
    options: { ...SELECTION, ...RUN, help: COMMON['help']! },
    passThrough: true,
    run: async (input, ctx) => await runCommand(scriptArgv(input), ctx),
  },
  {
    names: ['exec'],
    summary: 'Run a command with node_modules/.bin on PATH',
    usage: ['lode exec <command> [<args>...]'],
    description: 'Runs the command in the project (with -r or --filter before it, in each selected project in turn, dependencies first, with PNPM_PACKAGE_NAME set; the first failure stops the rest unless --no-bail, and is reported as pnpm reports it); its exit code is lode\'s.',
    options: { ...SELECTION, bail: RUN['bail']!, reverse: RUN['reverse']!, help: COMMON['help']! },
    passThrough: true,
    run: async (input, ctx) => await execCommand([...input.leading, ...input.rest], ctx),
  },
  {
    names: ['why'],
    summary: 'Show the packages that depend on a package, up to the projects',
    usage: ['lode why <pkg>...'],
    description: 'Shows every path from the projects to each installed package the names, patterns ("babel-*") or name@range select, as a tree from the package up (in a workspace, of every project, or of the ones --filter selects).',
    options: { ...INSPECT, json: { type: 'boolean', help: 'Print JSON' }, ...SELECTION, ...COMMON },
    run: async (input, ctx) => await whyCommand(input, ctx),
  },
  {
    names: ['peers'],
    summary: 'Check the lockfile\'s peer dependencies (peers check)',
    usage: ['lode peers check [--json] [--lockfile-only]'],
    description: 'Reads what is installed (node_modules/.pnpm/lock.yaml, else pnpm-lock.yaml; with --lockfile-only pnpm-lock.yaml) and lists, as pnpm 11 does, the peers resolved outside the range a package wants and the missing ones (conflicting when their ranges do not intersect), after peerDependencyRules; in a workspace, for every project (or those --filter selects). Exits with 1 when there is an issue.',
    options: {
      json: { type: 'boolean', help: 'Print the issues as JSON' },
      'lockfile-only': { type: 'boolean', help: 'Check pnpm-lock.yaml, not what is installed' },
      ...SELECTION,
      ...COMMON,
    },
    // Another subcommand than check: the help, and a failure, as pnpm.
    run: async (input, ctx) => ['check', undefined].includes(input.args!.positionals[0]) ? await peersCommand(input, ctx) : helpAndFail('peers', ctx),
  },
  {
    names: ['fund'],
    summary: 'Show the funding of the installed packages (pnpm 12)',
    usage: ['lode fund [--json]', 'lode fund <pkg> [--which <n>]'],
    description: 'Lists, as pnpm 12 does, the funding URLs of the installed packages (their package.json\'s funding), as a tree from the project: each package once, packages that share a URL on one line, the funded dependencies of an unfunded package in its place. With a package, its funding URLs; --which picks one (opened in a browser on a terminal).',
    options: {
      json: { type: 'boolean', help: 'Print the funding as JSON' },
      which: { type: 'string', arg: '<n>', help: 'Which of the package\'s funding URLs, counting from 1' },
      ...COMMON,
    },
    run: async (input, ctx) => await fundCommand(input, ctx),
  },
  {
    names: ['list', 'ls', 'll', 'la'],
    summary: 'List the installed dependencies of the projects',
    usage: ['lode list [options]'],
    description: 'Lists the dependencies of the project as installed (node_modules/.pnpm/lock.yaml, else pnpm-lock.yaml), --depth levels deep (0: the direct ones). In a workspace, from its root (or with -r or --filter), of every selected project.',
    options: {
      ...INSPECT,
      json: { type: 'boolean', help: 'Print JSON' },
      'lockfile-only': { type: 'boolean', help: 'Read pnpm-lock.yaml, not what node_modules has' },
      ...SELECTION,
      ...COMMON,
    },
    run: async (input, ctx) => await listCommand(input, ctx),
  },
  {
    names: ['licenses'],
    summary: 'List the licenses of the installed packages',
    usage: ['lode licenses list [--json] [--long]'],
    description: 'Lists the license of every package the project installs (in a workspace, from its root or with -r/--filter, of the projects selected): from its package.json, else from the text of its license file. A table by license, or with --json grouped by license, each package\'s versions and paths.',
    options: {
      json: { type: 'boolean', help: 'Print JSON' },
      long: { type: 'boolean', help: 'Show each package\'s author, description and homepage' },
      ...GROUP_FLAGS,
      ...SELECTION,
      ...COMMON,
    },
    run: async (input, ctx) => await licensesCommand(input, ctx),
  },
  {
    names: ['sbom'],
    summary: 'Generate a Software Bill of Materials (CycloneDX or SPDX JSON)',
    usage: [
      'lode sbom --sbom-format cyclonedx',
      'lode sbom --sbom-format spdx --prod',
      'lode sbom --sbom-format cyclonedx --lockfile-only',
      'lode sbom --sbom-format cyclonedx --filter ./apps/my-app',
      'lode sbom --sbom-format cyclonedx --out out/%s.cdx.json',
      'lode sbom --sbom-format cyclonedx --split',
    ],
    description: 'Describes the project and every package pnpm-lock.yaml gives it, as pnpm 11\'s sbom does: name, version, purl, license, description, author, links and the tarball\'s hash of each (read from the store), which depends on which, and the development-only ones (CycloneDX scope excluded). In a workspace, every project together (the workspace root the described one), or those --filter selects (one: it is the root); --split writes one per project (NDJSON to standard output, or files with --out <pattern with %s>). Every dependency edge is recorded, as pnpm 12 records them.',
    options: {
      'sbom-format': { type: 'string', arg: '<cyclonedx|spdx>', help: 'The SBOM format (required)' },
      'sbom-type': { type: 'string', arg: '<library|application>', help: 'The root component\'s type (default: library)' },
      'sbom-spec-version': { type: 'string', arg: '<1.5|1.6|1.7>', help: 'The CycloneDX specification version (default: 1.7)' },
      'sbom-authors': { type: 'string', arg: '<names>', help: 'Comma-separated SBOM authors (CycloneDX metadata.authors)' },
      'sbom-supplier': { type: 'string', arg: '<name>', help: 'The SBOM supplier (CycloneDX metadata.supplier)' },
      'lockfile-only': { type: 'boolean', help: 'Only the lockfile: no details from the store, optional packages of every platform' },
      out: { type: 'string', arg: '<file>', help: 'Write to a file (%s: the package name, %v: its version) and print its path' },
      split: { type: 'boolean', help: 'One SBOM per workspace project' },
      'exclude-peers': { type: 'boolean', help: 'Leave out the projects\' peer dependencies' },
      'store-dir': SETTINGS['store-dir']!,
      ...GROUP_FLAGS,
      recursive: SELECTION['recursive']!,
      filter: SELECTION['filter']!,
      'workspace-root': SELECTION['workspace-root']!,
      ...COMMON,
    },
    run: async (input, ctx) => await sbomCommand(input, ctx),
  },
  {
    names: ['import'],
    summary: 'Write pnpm-lock.yaml from yarn.lock, package-lock.json or npm-shrinkwrap.json',
    usage: ['lode import'],
    description: 'Resolves the dependencies anew (nothing is installed) with the versions the other lockfile has preferred above every other version a range allows, and writes pnpm-lock.yaml, as pnpm\'s import does. A pnpm-lock.yaml already there is replaced (and kept when the resolution fails).',
    options: { ...SETTINGS, ...COMMON },
    run: async (input, ctx) => await installCommand(input, ctx),
  },
  {
    names: ['dedupe'],
    summary: 'Resolve the dependencies again, preferring the versions pnpm-lock.yaml has',
    usage: ['lode dedupe [--check]'],
    description: 'Resolves every dependency again as pnpm\'s dedupe does: each range takes a version the lockfile already has where it can, so that a package the graph has at several versions collapses where the ranges allow; then installs. --check compares the result with pnpm-lock.yaml, writes nothing, and fails (ERR_LODE_DEDUPE_CHECK_ISSUES, listing the changes) when they differ.',
    options: {
      check: { type: 'boolean', help: 'Only check whether dedupe would change pnpm-lock.yaml (exit 1 if so)' },
      prod: INSTALL['prod']!,
      production: INSTALL['production']!,
      dev: INSTALL['dev']!,
      optional: INSTALL['optional']!,
      ...SETTINGS,
      ...COMMON,
    },
    run: async (input, ctx) => await installCommand(input, ctx),
  },
  {
    names: ['audit'],
    summary: 'Check the installed packages for known security advisories',
    usage: ['lode audit [options]', 'lode audit deprecations [--json]', 'lode audit engines [--json]'],
    description: 'Sends the packages pnpm-lock.yaml installs to the registry\'s bulk advisory endpoint and prints the advisories that apply, most severe first, with the paths to each vulnerable package. Exits 1 when one at --audit-level or above is found. --fix adds overrides to the fixed versions to pnpm-workspace.yaml; --ignore and --ignore-unfixable add advisories to audit.ignore (or auditConfig.ignoreGhsas). lode audit deprecations lists the installed packages the registry marks deprecated now (allowedDeprecatedVersions mutes a version), lode audit engines those that do not support this Node.js (nodeVersion) or platform, each with the projects and packages that bring it in; both exit 1 when they list one, as pnpm 12.24\'s do.',
    options: {
      'audit-level': { type: 'string', arg: '<severity>', help: 'Only advisories of this severity or above: info, low (default), moderate, high, critical' },
      json: { type: 'boolean', help: 'Print the report as JSON' },
      fix: { type: 'string', arg: '[override]', optionalValues: ['override', 'update'], help: 'Add overrides to the first fixed versions to pnpm-workspace.yaml' },
      ignore: { type: 'string', multiple: true, arg: '<GHSA>', help: 'Ignore this advisory from now on (written to the settings)' },
      'ignore-unfixable': { type: 'boolean', help: 'Ignore every advisory that has no fixed version' },
      'ignore-registry-errors': { type: 'boolean', help: 'Exit 0 when the registry cannot answer' },
      interactive: { type: 'boolean', short: 'i', help: 'Pick the fixes (pnpm only for now)', hidden: true },
      ...GROUP_FLAGS,
      ...SELECTION,
      ...COMMON,
    },
    run: async (input, ctx) => await auditCommand(input, ctx),
  },
  {
    names: ['prune'],
    summary: 'Remove what the project no longer needs from node_modules',
    usage: ['lode prune [--prod] [--no-optional]'],
    description: 'Installs again as package.json says: packages it no longer names leave node_modules and pnpm-lock.yaml; with --prod the dev dependencies leave node_modules too.',
    options: {
      prod: INSTALL['prod']!,
      production: INSTALL['production']!,
      optional: INSTALL['optional']!,
      'ignore-scripts': SETTINGS['ignore-scripts']!,
      ...COMMON,
    },
    run: async (input, ctx) => await installCommand(input, ctx),
  },
  {
    names: ['fetch'],
    summary: 'Put the packages of pnpm-lock.yaml in the store, from the lockfile alone',
    usage: ['lode fetch [--prod|--dev]'],
    description: 'Downloads every package pnpm-lock.yaml names (of the groups selected, for this platform) into the store without reading package.json or linking anything, so that lode install --offline --frozen-lockfile needs no network (a container image layer that changes only with the lockfile).',
    options: {
      prod: INSPECT['prod']!,
      production: INSPECT['production']!,
      dev: INSPECT['dev']!,
      'store-dir': SETTINGS['store-dir']!,
      ...COMMON,
    },
    run: async (input, ctx) => await fetchCommand(input, ctx),
  },
  {
    names: ['outdated'],
    summary: 'Check for newer versions of the project\'s dependencies',
    usage: ['lode outdated [<name or pattern>...]'],
    description: 'Lists the direct dependencies with a newer version in the registry: as installed, as pnpm-lock.yaml wants them, and the newest (its latest tag, or with --compatible the newest its range allows). Exits 1 when any is outdated.',
    options: {
      format: { type: 'string', arg: '<table|list|json>', help: 'How to print the report (table by default)' },
      compatible: { type: 'boolean', help: 'The newest versions the ranges allow, not the latest tags' },
      long: { type: 'boolean', help: 'Show each newest version\'s details (deprecation, homepage; its manifest with --format json)' },
      ...GROUP_FLAGS,
      ...SELECTION,
      ...COMMON,
    },
    run: async (input, ctx) => await outdatedCommand(input, ctx),
  },
  {
    names: ['approve-builds'],
    summary: 'Allow the builds the last install left out, and run them',
    usage: ['lode approve-builds <name>...', 'lode approve-builds --all'],
    description: 'Sets the named packages (or with --all, every build the last install left out) to true in allowBuilds (pnpm-workspace.yaml), then runs their builds.',
    options: { all: { type: 'boolean', help: 'Every build awaiting approval' }, ...COMMON },
    run: async (input, ctx) => await approveBuildsCommand(input, ctx),
  },
  {
    names: ['ignored-builds'],
    summary: 'Print the dependencies whose build scripts were not run',
    usage: ['lode ignored-builds'],
    description: 'Prints the dependencies the last install did not build because allowBuilds does not mention them, and the ones allowBuilds turns down.',
    options: { ...COMMON },
    run: async (input, ctx) => await ignoredBuildsCommand(input, ctx),
  },
  {
    names: ['store'],
    summary: 'Inspect and clean the content-addressable store',
    usage: ['lode store path', 'lode store status', 'lode store prune [--force]'],
    description: 'lode store path prints where the store is (its versioned directory); lode store status checks that the project\'s installed packages hold what the store recorded (a changed file is a changed store file: they are hard links); lode store prune removes the store files no install links to any more, their index rows, the dlx installs older than a day, lode\'s registry metadata cache and the store\'s temp files.',
    options: { 'store-dir': SETTINGS['store-dir']!, force: { type: 'boolean', help: 'prune: remove directories found among the store\'s files too' }, ...COMMON },
    run: async (input, ctx) => await storeCommand(input, ctx),
  },
  {
    names: ['completion'],
    summary: 'Print the shell completion script (bash, zsh, fish, PowerShell)',
    usage: ['lode completion bash', 'lode completion zsh', 'lode completion fish', 'lode completion pwsh'],
    description: 'Prints a script that completes lode\'s commands, their options, the values an option lists, package.json\'s script names (run), its dependencies (remove, update, why) and, after --filter, the workspace\'s project names. Load it from the shell\'s startup file: source <(lode completion bash) in ~/.bashrc; lode completion zsh > a directory of $fpath as _lode; lode completion fish > ~/.config/fish/completions/lode.fish; lode completion pwsh | Out-String | Invoke-Expression in $PROFILE.',
    options: { ...COMMON },
    run: async (input, ctx) => await Promise.resolve(completionCommand(input, ctx)),
  },
  {
    names: ['recursive', 'multi', 'm'],
    summary: 'Run a command in every project of the workspace (lode -r <command>)',
    usage: ['lode recursive <command> [flags] [--filter <package selector>]', 'lode multi <command> …', 'lode m <command> …'],
    description: 'lode recursive install (add, update, remove, list, why, outdated, run, exec, publish, …) is lode -r install: the command runs on every project of the workspace, or on those --filter selects. Without a command it prints this help and fails, as pnpm\'s does.',
    options: { ...COMMON },
    run: async (_input, ctx) => await Promise.resolve(helpAndFail('recursive', ctx)),
  },
  {
    names: ['doctor'],
    summary: 'Check lode\'s installation and environment',
    usage: ['lode doctor [--offline] [--benchmark] [--json]'],
    description: 'Checks, as pnpm 11\'s doctor does: the versions of lode and Node.js, that the cache and store directories can be written, which of reflink, hardlink and symlink work in the store\'s filesystem, that the registry answers, and that an offline install of a file: dependency links it. Fails (exit code 1) when a check fails.',
    options: {
      offline: { type: 'boolean', help: 'Skip the checks that need the network' },
      benchmark: { type: 'boolean', help: 'Also time the filesystem and install checks' },
      json: { type: 'boolean', help: 'Report the results as JSON' },
      'store-dir': SETTINGS['store-dir']!,
      registry: SETTINGS['registry']!,
      ...COMMON,
    },
    run: async (input, ctx) => await doctorCommand(input, ctx),
  },
  {
    names: ['edit'],
    summary: 'Open an installed package\'s directory in the editor, then install (pnpm 12)',
    usage: ['lode edit <pkg>[/<dependency>...] [--editor <command>]'],
    description: 'Opens the installed package (its real directory in the virtual store; <pkg>/<dep> for a dependency of it) in the editor: --editor, else EDITOR, else VISUAL, else vi. When the editor exits, lode installs, as pnpm 12 does. An editor that fails stops it before the install.',
    options: { editor: { type: 'string', arg: '<command>', help: 'The editor to run (overrides EDITOR and VISUAL)' }, ...COMMON },
    run: async (input, ctx) => await editCommand(input, ctx, findCommand('install')!.options),
  },
  {
    names: ['cat-file'],
    summary: 'Print the content of a store file, by its hash',
    usage: ['lode cat-file <hash>'],
    description: 'The file of the store whose SHA-512 is the hash given: an integrity (sha512-<base64>, as lode cat-index shows a package\'s files) or its hex digest. Its bytes are printed as they are.',
    options: { 'store-dir': SETTINGS['store-dir']!, ...COMMON },
    run: async (input, ctx) => await catFileCommand(input, ctx),
  },
  {
    names: ['cat-index'],
    summary: 'Print a package\'s row in the store index',
    usage: ['lode cat-index <pkg name>@<pkg version>'],
    description: 'The store index\'s record of a package version (its files with their hashes, modes and sizes, its manifest, whether it needs a build, its side effects) as JSON, keys sorted, as pnpm prints it. It takes the exact version.',
    options: { 'store-dir': SETTINGS['store-dir']!, ...COMMON },
    run: async (input, ctx) => await catIndexCommand(input, ctx),
  },
  {
    names: ['find-hash'],
    summary: 'List the packages of the store that have a file with this hash',
    usage: ['lode find-hash <hash>'],
    description: 'Each package version in the store index with a file (or a side effect\'s file) whose SHA-512 is the hash given (an integrity or hex): name@version and its index key.',
    options: { 'store-dir': SETTINGS['store-dir']!, ...COMMON },
    run: async (input, ctx) => await findHashCommand(input, ctx),
  },
  {
    names: ['config', 'c', 'get', 'set'],
    summary: 'Set, delete, get and list settings, in the files pnpm 11 keeps them in',
    usage: ['lode config set <key> <value>', 'lode config get <key>', 'lode config delete <key>', 'lode config list'],
    description: 'Registry and auth keys (registry, @scope:registry, //host/:_authToken, …) go to an INI file, every other setting (camelCase) to a YAML file: by default the machine\'s (pnpm\'s auth.ini and config.yaml in its config directory), with --location project the project\'s .npmrc and the workspace\'s pnpm-workspace.yaml. lode get <key> and lode set <key> <value> are config get and config set.',
    options: {
      global: { type: 'boolean', short: 'g', help: 'The machine\'s files (the default; --no-global: the project\'s)' },
      location: { type: 'string', arg: '<global|project>', help: 'Which files: the machine\'s or the project\'s' },
      json: { type: 'boolean', help: 'Read the value as JSON (set), print it as JSON (get)' },
      ...COMMON,
    },
    run: async (input, ctx) => await configCommand(input, ctx),
  },
  {
    names: ['init'],
    summary: 'Create a package.json',
    usage: ['lode init [--bare] [--init-type <commonjs|module>]'],
    description: 'Writes pnpm\'s package.json for a new project in the directory (never over an existing one): named after the directory, an ES module unless --init-type commonjs, pinned to the pnpm release lode stands in for (devEngines.packageManager and packageManager) unless --no-init-package-manager or the directory is a project inside a workspace.',
    options: {
      bare: { type: 'boolean', help: 'Only the type and the pin' },
      'init-type': { type: 'string', arg: '<commonjs|module>', help: 'The package\'s module type (module by default)' },
      'init-package-manager': { type: 'boolean', help: 'With --no-init-package-manager, no packageManager pin' },
      ...COMMON,
    },
    run: async (input, ctx) => await initCommand(input, ctx),
  },
  {
    names: ['dlx'],
    summary: 'Run a package\'s command without adding it to the project',
    usage: ['lode dlx <pkg>[@<version>] [<args>...]', 'lode --package=<pkg> dlx <command> [<args>...]', 'lode --package=<pkg> dlx -c "<command line>"'],
    description: 'Installs the package in lode\'s dlx cache (<cacheDir>/dlx; a day old at most, as pnpm\'s dlxCacheMaxAge) and runs its command (its only one, or the one named as the package) in the current directory; the command\'s exit code is lode\'s. Options go before the command\'s name; what follows it is the command\'s.',
    options: {
      package: { type: 'string', multiple: true, arg: '<spec>', help: 'The package(s) to install; the command is then run as given' },
      'shell-mode': { type: 'boolean', short: 'c', help: 'Run the command line in a shell (with --package)' },
      'allow-build': { type: 'string', multiple: true, arg: '<name>', help: 'A dependency whose build scripts may run' },
      help: COMMON['help']!,
    },
    passThrough: true,
    run: async (input, ctx) => await dlxCommand(input, ctx),
  },
  {
    names: ['create'],
    summary: 'Create a project from a create-* starter kit',
    usage: ['lode create <name> [<args>...]', 'lode create <@scope>[/<name>] [<args>...]'],
    description: 'Runs create-<name> (@scope/create, @scope/create-<name>) through lode dlx, with the arguments that follow.',
    options: { 'allow-build': { type: 'string', multiple: true, arg: '<name>', help: 'A dependency whose build scripts may run' }, help: COMMON['help']! },
    passThrough: true,
    run: async (input, ctx) => await dlxCommand(input, ctx),
  },
  {
    names: ['pack'],
    summary: 'Pack the project into a tarball, as it would be published',
    usage: ['lode pack [--pack-destination <dir>] [--out <path>] [--json]'],
    description: 'Writes <name>-<version>.tgz: the files npm pack would pack (files, .npmignore or .gitignore, the files always packed), and the package.json pnpm publishes (workspace: and catalog: specifiers replaced, publishConfig applied, publish scripts and packageManager left out). Runs prepack and prepare before, postpack after.',
    options: {
      'pack-destination': { type: 'string', arg: '<dir>', help: 'Where the tarball goes (the project by default)' },
      out: { type: 'string', arg: '<path>', help: 'The tarball\'s path; %s is the package\'s name, %v its version' },
      json: { type: 'boolean', help: 'Print the tarball and its files as JSON' },
      'dry-run': { type: 'boolean', help: 'Everything but writing the tarball' },
      'skip-manifest-obfuscation': { type: 'boolean', help: 'Keep the scripts and packageManager in the packed package.json' },
      'ignore-scripts': SETTINGS['ignore-scripts']!,
      recursive: { type: 'boolean', short: 'r', help: 'Pack every project of the workspace with a name and a version (into the current directory)' },
      filter: SELECTION['filter']!,
      ...COMMON,
    },
    run: async (input, ctx) => await packCommand(input, ctx),
  },
  {
    names: ['publish'],
    summary: 'Publish the project (or -r: the workspace\'s new versions) to the registry',
    usage: ['lode publish [<dir>] [--tag <tag>] [--access <public|restricted>] [options]', 'lode publish -r [--filter <selector>]'],
    description: 'Checks git (a clean tree on main or master, nothing to pull), runs prepublishOnly and prepublish, packs the project as lode pack does (prepack, prepare, postpack), sends it to its registry (publishConfig.registry, its scope\'s, or the default; auth from .npmrc), then runs publish and postpublish. With -r, publishes the selected projects whose version the registry lacks, dependencies first.',
    options: {
      tag: { type: 'string', arg: '<tag>', help: 'The dist-tag to publish under (default latest)' },
      access: { type: 'string', arg: '<public|restricted>', help: 'Whether a scoped package is public' },
      'dry-run': { type: 'boolean', help: 'Everything but the upload' },
      'git-checks': { type: 'boolean', help: 'With --no-git-checks, publish whatever the state of the git repository' },
      'publish-branch': { type: 'string', arg: '<branch>', help: 'The branch to publish from (default master or main)' },
      otp: OTP,
      force: { type: 'boolean', help: 'With -r: publish even the versions the registry has' },
      recursive: { type: 'boolean', short: 'r', help: 'Publish the workspace\'s projects whose version is not in the registry' },
      filter: SELECTION['filter']!,
      'ignore-scripts': SETTINGS['ignore-scripts']!,
      ...COMMON,
    },
    run: async (input, ctx) => await publishCommand(input, ctx),
  },
  {
    names: ['clean', 'purge'],
    summary: 'Remove what installs wrote into node_modules, in every project of the workspace',
    usage: ['lode clean [--lockfile]'],
    description: 'Empties each project\'s node_modules of what installs write (a tool\'s own dot directories there, like .cache, stay) and removes a virtualStoreDir set apart inside the workspace; with --lockfile, each pnpm-lock.yaml too. A node_modules that is a link is refused, not followed. When the project has a clean (or purge) script, that script runs instead, as with pnpm (lode pm clean runs this command).',
    options: { lockfile: { type: 'boolean', short: 'l', help: 'Remove the pnpm-lock.yaml files too' }, ...COMMON },
    run: async (input, ctx) => await cleanCommand(input, ctx),
  },
  {
    names: ['view', 'info', 'show', 'v'],
    summary: 'Show a package\'s registry information (a version, its fields, or JSON)',
    usage: ['lode view [<package-name>]', 'lode view [<package-name>@<version|range|tag>]', 'lode view [<package-name>] [<field>[.subfield]...]'],
    description: 'Asks the package\'s registry for its document and shows the version an install would pick (latest by default; a range\'s latest when it fits, else its highest): name, license, dependencies, dist, maintainers, dist-tags and when it was published. Fields (version, versions, dist.tarball, dist-tags.next) print just those. Without a package, the nearest package.json\'s name.',
    options: { json: { type: 'boolean', help: 'Print the information as JSON' }, registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await viewCommand(input, ctx),
  },
  {
    names: ['bugs', 'issues'],
    summary: 'Print (on a terminal, open) the bug tracker of a package or of the project',
    usage: ['lode bugs [<package-name>...]'],
    description: 'The package\'s bugs URL, else its repository\'s issues page; without a name, the project\'s. Printed, and opened in a browser when lode runs on a terminal of a system that has one.',
    options: { registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await packagePageCommand('bugs', input, ctx),
  },
  {
    names: ['docs', 'home'],
    summary: 'Print (on a terminal, open) the documentation of a package',
    usage: ['lode docs <package-name>[@<version>]'],
    description: 'The package\'s homepage, else its page on npmx.dev, as pnpm 11 picks it. Printed, and opened in a browser on a terminal.',
    options: { registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await packagePageCommand('docs', input, ctx),
  },
  {
    names: ['repo'],
    summary: 'Print (on a terminal, open) the repository of a package or of the project',
    usage: ['lode repo [<package-name>...]'],
    description: 'The repository\'s web page (its directory in it), as its host shows it; without a name, the project\'s. Printed, and opened in a browser on a terminal.',
    options: { registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await packagePageCommand('repo', input, ctx),
  },
  {
    names: ['login', 'adduser'],
    summary: 'Log in to the registry, keeping the token in pnpm\'s auth.ini',
    usage: ['lode login [--registry <url>] [--scope <scope>]'],
    description: 'Asks the registry for its web login and prints where to authenticate (on a terminal, Enter opens it), then waits up to five minutes for the token; a registry without one is asked with a username, password and email, on a terminal only. The token goes into auth.ini in pnpm\'s config directory, as //<registry>/:_authToken (with --scope, the scope\'s, and @scope:registry set).',
    options: {
      scope: { type: 'string', arg: '<scope>', help: 'Keep the token for this scope, and map the scope to the registry' },
      registry: SETTINGS['registry']!,
      ...COMMON,
    },
    run: async (input, ctx) => await loginCommand(input, ctx),
  },
  {
    names: ['logout'],
    summary: 'Log out of the registry: its token revoked and taken out of auth.ini',
    usage: ['lode logout [--registry <url>]'],
    description: 'Asks the registry to revoke the token configured for it, then removes it from auth.ini in pnpm\'s config directory; a token set in an .npmrc is revoked and left there, with a warning.',
    options: { registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await logoutCommand(input, ctx),
  },
  {
    names: ['whoami'],
    summary: 'Print the registry\'s user name for your credentials',
    usage: ['lode whoami'],
    description: 'Asks the default registry (/-/whoami) who the token configured for it in .npmrc belongs to.',
    options: { registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await whoamiCommand(input, ctx),
  },
  {
    names: ['dist-tag', 'dist-tags'],
    summary: 'List, add or remove a package\'s dist-tags on the registry',
    usage: ['lode dist-tag ls <package>', 'lode dist-tag add <package>@<version> [<tag>]', 'lode dist-tag rm <package> <tag>'],
    description: 'ls (the default) prints the package\'s dist-tags, tag: version, in tag order; add points the tag (latest by default) at an exact version; rm removes a tag the package has (never latest).',
    options: { otp: OTP, registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await distTagCommand(input, ctx),
  },
  {
    names: ['owner', 'owners'],
    summary: 'List, add or remove a package\'s owners on the registry',
    usage: ['lode owner ls <package>', 'lode owner add <package> <user>', 'lode owner rm <package> <user>'],
    description: 'ls (the default) prints the package\'s maintainers, name <email>, as its registry document lists them; add and rm change them through the registry\'s /-/package/<name>/owners.',
    options: { otp: OTP, registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await ownerCommand(input, ctx),
  },
  {
    names: ['search', 's', 'se', 'find'],
    summary: 'Search the registry for packages',
    usage: ['lode search <keyword> ...'],
    description: 'Asks the default registry\'s /-/v1/search for the keywords and prints each package found: name, description, version, date and author, maintainers, keywords and its page.',
    options: {
      json: { type: 'boolean', help: 'Print the packages found as JSON' },
      'search-limit': { type: 'string', arg: '<number>', help: 'How many packages to ask for (default 20)' },
      registry: SETTINGS['registry']!,
      ...COMMON,
    },
    run: async (input, ctx) => await searchCommand(input, ctx),
  },
  {
    names: ['ping'],
    summary: 'Check that the registry answers',
    usage: ['lode ping [--registry <url>]'],
    description: 'One request to the default registry\'s /-/ping, not retried: PING <registry>, PONG <time>ms, and what the registry said when it said more than {}.',
    options: { registry: SETTINGS['registry']!, ...COMMON },
    run: async (input, ctx) => await pingCommand(input, ctx),
  },
  {
    names: ['version'],
    summary: 'Bump the project\'s version (or -r: the selected projects\'), with a git commit and tag',
    usage: ['lode version <newversion>', 'lode version <major|minor|patch|premajor|preminor|prepatch|prerelease|from-git>', 'lode version -r <bump> [--filter <selector>] [--dry-run]'],
    description: 'Writes the new version into package.json (its indentation kept), running the preversion and version scripts around the write. In a git repository the working tree must be clean, and the bump of one project is committed and tagged <prefix><version> (annotated), then postversion runs. With -r or --filter, every selected project with a name and a version is bumped and nothing is committed. A failure before the commit leaves every package.json as it was.',
    options: {
      preid: { type: 'string', arg: '<preid>', help: 'The prerelease identifier (alpha, beta, rc)' },
      'allow-same-version': { type: 'boolean', help: 'Allow the version the project has already' },
      'git-checks': { type: 'boolean', help: 'With --no-git-checks, do not require a clean working tree' },
      'git-tag-version': { type: 'boolean', help: 'With --no-git-tag-version, create no commit or tag' },
      'commit-hooks': { type: 'boolean', help: 'With --no-commit-hooks, commit without git\'s hooks (--no-verify)' },
      message: { type: 'string', short: 'm', arg: '<message>', help: 'The commit message; %s is the new version (default %s)' },
      'tag-version-prefix': { type: 'string', arg: '<prefix>', help: 'The tag\'s prefix (default v; may be empty)' },
      'sign-git-tag': { type: 'boolean', help: 'Sign the tag with GPG (git tag -s)' },
      json: { type: 'boolean', help: 'Print the bumps as JSON' },
      'dry-run': { type: 'boolean', help: 'Print the bumps without writing or running anything' },
      recursive: { type: 'boolean', short: 'r', help: 'Bump every project of the workspace with a name and a version' },
      filter: SELECTION['filter']!,
      'ignore-scripts': SETTINGS['ignore-scripts']!,
      ...COMMON,
    },
    run: async (input, ctx) => await versionCommand(input, ctx),
  },
  {
    names: ['deploy'],
    summary: 'Put one project of the workspace, with its dependencies, into a directory',
    usage: ['lode --filter=<deployed project name> deploy <target directory>'],
    description: 'Copies the project\'s files (those npm pack would pack) into the target with a package.json, a pnpm-lock.yaml cut down from the workspace\'s and a pnpm-workspace.yaml of its own, then installs there from that lockfile: its workspace dependencies as copies, nothing linked back into the workspace. The target must be empty (--force empties one inside the workspace).',
    options: {
      prod: INSTALL['prod']!,
      production: INSTALL['production']!,
      dev: INSTALL['dev']!,
      optional: INSTALL['optional']!,
      force: { type: 'boolean', help: 'Empty a target inside the workspace that is not empty' },
      legacy: { type: 'boolean', help: 'pnpm\'s legacy deploy (not in lode)', hidden: true },
      filter: SELECTION['filter']!,
      ...SETTINGS,
      ...COMMON,
    },
    run: async (input, ctx) => await deployCommand(input, ctx),
  },
  {
    names: ['link', 'ln'],
    summary: 'Link a local directory into the project',
    usage: ['lode link <dir>...'],
    description: 'Links each directory under its package\'s name: pnpm-workspace.yaml\'s overrides get name: link:<dir> (every project uses the directory), and package.json a link: dependency when the project has none of that name; then installs.',
    options: { ...COMMON },
    run: async (input, ctx) => await linkCommand(input, ctx),
  },
  {
    names: ['unlink', 'dislink'],
    summary: 'Remove the links lode link made, and install again',
    usage: ['lode unlink', 'lode unlink <name>...'],
    description: 'Removes the link: overrides (all, or the ones named) and the dependencies lode link added for them; then installs.',
    options: { ...COMMON },
    run: async (input, ctx) => await unlinkCommand(input, ctx),
  },
  {
    names: ['patch'],
    summary: 'Copy a dependency out for editing, to make a patch of it',
    usage: ['lode patch <pkg name>@<version>'],
    description: 'Copies the installed version of the package (the one that matches, when several are installed) into node_modules/.pnpm_patches/<name>@<version>, with the patch patchedDependencies has for it applied, and prints how to commit the edit. Without a version, the patch will be for every version.',
    options: {
      'edit-dir': { type: 'string', short: 'd', arg: '<dir>', help: 'The package that needs to be modified will be extracted to this directory' },
      'ignore-existing': { type: 'boolean', help: 'Ignore existing patch files when patching' },
      ...COMMON,
    },
    run: async (input, ctx) => await patchCommand(input, ctx),
  },
  {
    names: ['patch-commit'],
    summary: 'Make a patch of an edited dependency, and install with it',
    usage: ['lode patch-commit <patchDir>'],
    description: 'Writes the difference between the edit directory lode patch made and the package as published (git diff, as pnpm makes it) to patches/<name>@<version>.patch, names it in pnpm-workspace.yaml\'s patchedDependencies, then installs. A failed install takes both back.',
    options: {
      'patches-dir': { type: 'string', arg: '<dir>', help: 'The generated patch file will be saved to this directory' },
      ...COMMON,
    },
    run: async (input, ctx) => await patchCommitCommand(input, ctx),
  },
  {
    names: ['patch-remove'],
    summary: 'Remove patches, and install without them',
    usage: ['lode patch-remove <pkg>...'],
    description: 'Removes the patch files of the patchedDependencies keys named (and the patches directory when it is left empty) and their entries in pnpm-workspace.yaml, then installs.',
    options: { ...COMMON },
    run: async (input, ctx) => await patchRemoveCommand(input, ctx),
  },
  pathCommandSpec('root', 'node_modules directory'),
  pathCommandSpec('bin', 'node_modules/.bin directory (its executables)'),
  pathCommandSpec('prefix', 'directory'),
]

/** `lode root` and `lode bin`: a directory of the project, printed. */
function pathCommandSpec (name: 'root' | 'bin' | 'prefix', what: string): CommandSpec {
  return {
    names: [name],
    summary: `Print the project's ${what}`,
    usage: [`lode ${name}`],
    description: `Prints the ${what} of the project lode is in (the nearest directory up with a package.json).`,
    options: { global: { type: 'boolean', short: 'g', help: 'pnpm\'s global directory (lode installs no global packages)' }, ...COMMON },
    run: async (input, ctx) => await Promise.resolve(pathCommand(input, ctx)),
  }
}

/** `lode test` is `lode run test`; `lode start`, `lode run start`. */
function scriptArgv (input: CommandInput): string[] {
  return [...input.leading, input.name === 'start' ? 'start' : 'test', ...input.rest]
}

/**
 * pnpm 11's commands lode does not have yet: refused by name (`ERR_LODE_COMMAND_NOT_IMPLEMENTED`),
 * never taken for a script of that name as an unknown name is.
 */
export const PNPM_ONLY_COMMANDS: readonly string[] = [
  'access', 'cache', 'change', 'deprecate', 'env',
  'lane', 'pack-app', 'pkg', 'restart',
  'rt', 'runtime', 'self-update', 'set-script', 'setup', 'ss', 'stage', 'star', 'stars', 'team', 'undeprecate',
  'unpublish', 'unstar', 'with',
]

/** A command's help, and a failure (pnpm's exit code for `recursive` without a command, `peers` with another subcommand). */
function helpAndFail (name: string, ctx: { stdout: NodeJS.WritableStream }): number {
  const spec = findCommand(name)!
  const aliases = spec.names.length > 1 ? `\n\nAliases: ${spec.names.slice(1).join(', ')}` : ''
  ctx.stdout.write(renderHelp(spec.usage, `${spec.description}${aliases}`, spec.options))
  return 1
}

export function findCommand (name: string): CommandSpec | undefined {
  return COMMANDS.find((spec) => spec.names.includes(name))
}

/** `lode --help`. */
export function mainHelp (): string {
  const rows = COMMANDS.map((spec) => [spec.names.join(', '), spec.summary] as const)
  const width = Math.max(...rows.map(([names]) => names.length)) + 2
  return `Usage: lode <command> [options]

Commands:
${rows.map(([names, summary]) => `  ${names.padEnd(width)}${summary}`).join('\n')}

Run lode help <command> (or lode <command> --help) for a command's options.
In a workspace, -r, --filter <selector> and -w select projects (before run's and exec's name).
pnpm's other commands (env, runtime, self-update, cache, …) are not in lode yet: lode names them.

  -v, --version  Print lode's version
  -h, --help     Print this help
`
}
