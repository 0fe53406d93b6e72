// node:fs through process.getBuiltinModule: its ESM facade costs ~3 ms of a no-op install (see index.ts).
const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

/** lode's version, from its package.json. */
export const VERSION = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version
