// Bundles the CLI (dist/src, built by tsc -b) into dist/bundle, which bin/lode loads: a few chunks
// instead of some two hundred modules, each resolved, read and linked on its own, saves a
// command 20-30 ms of start-up. Chunks are split at the dynamic imports, so the no-op still
// loads only the quick check. Left out, and resolved from this package's dependencies: the
// native addon, piscina (it starts its threads from its own files), what is loaded through
// createRequire (yaml, msgpackr's optional native extension), undici (CommonJS loaded with a
// dynamic import, whose named exports only Node's loader finds) and @npmcli/run-script (it finds
// files beside its own, such as its node-gyp shim). The worker packages' entries are found with
// import.meta.resolve (see worker/pools), from here too.
import fs from 'node:fs'
import path from 'node:path'

import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '..')
const outdir = path.join(root, 'dist', 'bundle')
fs.rmSync(outdir, { recursive: true, force: true })
await build({
  entryPoints: [path.join(root, 'dist', 'src', 'index.js')],
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
