// Bundles the CLI (dist/src, built by tsc -b) into dist/bundle, which bin/lode loads: a few chunks
// instead of some two hundred modules, each resolved, read and linked on its own, saves a
// command 20-30 ms of start-up. Chunks are split at the dynamic imports, so the no-op still
// loads only the quick check. Left out, and resolved from this package's dependencies: the
// native addon, piscina (it starts its threads from its own files), what is loaded through
// createRequire (yaml, msgpackr's optional native extension), undici (CommonJS loaded with a
// dynamic import, whose named exports only Node's loader finds) and @npmcli/run-script (it finds
// files beside its own, such as its node-gyp shim): they are the `lode` package's dependencies.
// Five entries share the chunks: the CLI (index.js), the API (api.js, the package's export) and
// the three kinds of threads' entries, which worker/pools names by package (import.meta.resolve) and
// the bundle by file, beside the chunk that starts the pools: the release has no @lode/* packages.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '..')
const outdir = path.join(root, 'dist', 'bundle')
fs.rmSync(outdir, { recursive: true, force: true })
const WORKERS = {
  '@lode/worker.extract': 'worker-extract',
  '@lode/worker.link': 'worker-link',
  '@lode/resolving.npm-resolver/packument-thread': 'worker-packument',
}
// The files that name thread entries by package, and the entries each names.
const NAMING = [
  { file: /[\\/]worker[\\/]pools[\\/]dist[\\/]src[\\/]store-pool\.js$/, entries: ['@lode/worker.extract'] },
  { file: /[\\/]worker[\\/]pools[\\/]dist[\\/]src[\\/]link-pool\.js$/, entries: ['@lode/worker.link'] },
  { file: /[\\/]pkg-manager[\\/]installing[\\/]installer[\\/]dist[\\/]src[\\/]packument-threads\.js$/, entries: ['@lode/resolving.npm-resolver/packument-thread'] },
]

/** Entries by output name: `<name>.js` in dist/bundle. */
const entryPoints = {
  index: path.join(root, 'dist', 'src', 'index.js'),
  api: path.join(root, 'dist', 'src', 'api.js'),
  ...Object.fromEntries(Object.entries(WORKERS).map(([pkg, name]) => [name, fileURLToPath(import.meta.resolve(pkg))])),
}

/** `import.meta.resolve('@lode/worker.x')` becomes the URL of the bundled thread entry, relative to the chunk. */
const workerFiles = {
  name: 'worker-files',
  setup (build) {
    for (const { file, entries } of NAMING) {
      build.onLoad({ filter: file }, async (args) => {
        let contents = await fs.promises.readFile(args.path, 'utf8')
        for (const pkg of entries) {
          const call = `import.meta.resolve('${pkg}')`
          if (!contents.includes(call)) throw new Error(`bundle: ${args.path} no longer has ${call}; update scripts/bundle.mjs`)
          contents = contents.replace(call, `new URL('./${WORKERS[pkg]}.js', import.meta.url).href`)
        }
        return { contents, loader: 'js' }
      })
    }
  },
}

await build({
  entryPoints,
  plugins: [workerFiles],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: ['@npmcli/run-script', 'better-sqlite3', 'msgpackr', 'piscina', 'undici', 'yaml'],
  // The CommonJS dependencies inside the chunks call require for Node's own modules.
  banner: { js: "import { createRequire as __lodeCreateRequire } from 'node:module'; const require = __lodeCreateRequire(import.meta.url);" },
  logLevel: 'warning',
})
