import fs from 'node:fs'
import path from 'node:path'

/** lode's version, from its package.json. */
export const VERSION = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version
