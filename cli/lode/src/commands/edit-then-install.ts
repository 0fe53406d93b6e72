import type { MainContext } from '../context.js'
import { installCommand } from './install.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

/**
 * The edits, then an install (with `--reporter` passed on, never with a frozen lockfile: the edits
 * are what the lockfile must follow). A failed install puts the files back as they were: a new
 * one is removed, with the directories made for it; a removed one is written again.
 */
export async function editThenInstall (
  files: readonly string[],
  ctx: MainContext,
  input: CommandInput,
  edit: () => Promise<void>
): Promise<number> {
  const saved = files.map((file) => ({
    file,
    content: fs.existsSync(file) ? fs.readFileSync(file) : undefined,
    firstMissingDir: firstMissingDir(file),
  }))
  const restore = (): void => {
    for (const { file, content, firstMissingDir } of saved) {
      if (content !== undefined) {
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, content)
      }
      else if (firstMissingDir !== undefined) fs.rmSync(firstMissingDir, { recursive: true, force: true })
      else fs.rmSync(file, { force: true })
    }
  }
  try {
    await edit()
    const reporter = input.args!.values['reporter']
    const values = { 'frozen-lockfile': false, ...reporter === undefined ? {} : { reporter } }
    const code = await installCommand({ name: 'install', leading: [], rest: [], args: { values, positionals: [], config: {} } }, ctx)
    if (code !== 0) restore()
    return code
  } catch (err) {
    restore()
    throw err
  }
}

/** The topmost missing directory on the way to `file`, if any: what writing it creates. */
function firstMissingDir (file: string): string | undefined {
  let missing: string | undefined
  for (let dir = path.dirname(file); !fs.existsSync(dir); dir = path.dirname(dir)) missing = dir
  return missing
}
