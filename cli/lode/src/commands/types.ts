import type { OptionSpecs, ParsedArgs } from '../args.js'
import type { MainContext } from '../context.js'

export interface CommandInput {
  /** The name it was called by (`i`, `rm`, …). */
  name: string
  /** The arguments before its name (the selection flags of `lode -r run build`). */
  leading: string[]
  /** The arguments after its name. */
  rest: string[]
  /** Its arguments parsed with its options (not for commands that pass their arguments on). */
  args: ParsedArgs | undefined
}

export interface CommandSpec {
  /** The name, then the aliases. */
  names: readonly string[]
  /** Its line in `lode --help`. */
  summary: string
  usage: readonly string[]
  description: string
  options: OptionSpecs
  /** What follows its first argument belongs to the script or command it runs (`run`, `exec`): not parsed. */
  passThrough?: boolean
  run: (input: CommandInput, ctx: MainContext) => Promise<number>
}
