// Bundles the API's declarations (dist/src/api.d.ts, written by tsc -b) into dist/lode.d.ts, the
// `lode` package's `types`: the @lode/* packages are not published, so their declarations are
// inlined; Node's own modules and the package's dependencies stay imports.
import fs from 'node:fs'
import path from 'node:path'

import { rollup } from 'rollup'
import { dts } from 'rollup-plugin-dts'

const root = path.resolve(import.meta.dirname, '..')
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
const dependencies = Object.keys(manifest.dependencies)
const bundle = await rollup({
  input: path.join(root, 'dist', 'src', 'api.d.ts'),
  plugins: [dts({ respectExternal: true, tsconfig: path.join(root, 'tsconfig.json') })],
  external: (id) => id.startsWith('node:') || dependencies.some((name) => id === name || id.startsWith(`${name}/`)),
  onwarn (warning) { throw new Error(`types: ${warning.message}`) },
})
await bundle.write({ file: path.join(root, 'dist', 'lode.d.ts'), format: 'es' })
await bundle.close()
