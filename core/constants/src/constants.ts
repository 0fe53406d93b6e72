/**
 * The names and versions of every on-disk format lode reads or writes, and the manifest fields
 * every layer reads. A format change is a change here plus a read path for the old one.
 */

/** pnpm's store layout version: `<store>/v11/files/…` and `<store>/v11/index.db`. */
export const STORE_VERSION = 'v11'
/** The SQLite store index, inside the versioned store directory. */
export const STORE_INDEX_FILE = 'index.db'
/** The CAS file tree, inside the versioned store directory. */
export const STORE_FILES_DIR = 'files'
/** Temp files before they are renamed into the CAS; same filesystem as `files/`. */
export const STORE_TMP_DIR = 'tmp'
/** pnpm's registry of the projects using the store (`<first 32 hex of sha256(project dir)>` → the project), inside the versioned store directory. */
export const STORE_PROJECTS_DIR = 'projects'
/**
 * pnpm 11's global virtual store (`enableGlobalVirtualStore`), inside the versioned store directory:
 * `links/<@ or scope>/<name>/<version>/<hash>/node_modules/<name>`, shared by every project.
 */
export const GLOBAL_VIRTUAL_STORE_DIR = 'links'
/** In a package directory of the global virtual store: its build has not finished (pnpm re-imports and rebuilds it). */
export const NEEDS_BUILD_MARKER = '.pnpm-needs-build'
/** The digest algorithm of CAS file names and of the index rows' `algo`. */
export const STORE_HASH_ALGORITHM = 'sha512'

/**
 * lode's framed MessagePack files (`fs/msgpack-file`): magic, then payload length and CRC-32,
 * then the payload. Bump the version byte when the framing changes.
 */
export const MSGPACK_FILE_MAGIC = 'LMP1'

/** `pnpm-lock.yaml`'s `lockfileVersion`, the one pnpm 9 to 11 write. */
export const LOCKFILE_VERSION = '9.0'
/** The lockfile's name in the workspace root, shared with pnpm. */
export const WANTED_LOCKFILE = 'pnpm-lock.yaml'

/** The directory packages are installed into, in each project. */
export const MODULES_DIR = 'node_modules'
/** pnpm's virtual store inside the root `node_modules`: `.pnpm/<dep path as file name>/node_modules/<name>`. */
export const VIRTUAL_STORE_DIR = '.pnpm'
/** The lockfile of what `node_modules` holds (pnpm's current lockfile), inside the virtual store. */
export const CURRENT_LOCKFILE = 'lock.yaml'
/** pnpm's record of how `node_modules` was laid out (layout version, hoisting, store), in each `node_modules`. */
export const MODULES_MANIFEST_FILE = '.modules.yaml'
/** Where lode records the inputs of the last complete install, in the root `node_modules` (its own no-op check). */
export const LODE_STATE_FILE = '.lode-state.json'
/** Present in the root `node_modules` while it is being changed: an install cut short must not look done. */
export const INSTALLING_MARKER = '.lode-installing'
/** The project's install lock, in the root `node_modules`, held by one lode process at a time. */
export const INSTALL_LOCK_FILE = '.lode-install.lock'

/** The dependency fields of a manifest that install packages, in pnpm's order (`peerDependencies` is not one). */
export const DEPENDENCY_GROUPS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const
export type DependencyGroup = typeof DEPENDENCY_GROUPS[number]
/** Every field of a manifest that names other packages, peers included. */
export const MANIFEST_DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const
/**
 * lode's registry metadata cache, inside the cache dir: `<cache>/<dir>/<registry>/<name>.mpk`.
 * Its own directory so a pnpm sharing the cache dir never reads lode's files; bump the suffix
 * when the cached record's shape changes.
 */
export const METADATA_CACHE_DIR = 'lode-metadata-v4'
export const METADATA_CACHE_EXT = '.mpk'

/** pnpm 11's record of the last install, in the root node_modules: lode writes it as pnpm does, for pnpm. */
export const PNPM_WORKSPACE_STATE_FILE = '.pnpm-workspace-state-v1.json'
/**
 * lode's record of lockfiles that passed the supply-chain policies (one JSON line per verdict:
 * the lockfile's digest and the policy), inside the cache dir; pnpm keeps its own beside it.
 */
export const LOCKFILE_VERIFIED_CACHE_FILE = 'lode-lockfile-verified-v1.jsonl'
