// pnpm 11's POSIX shell shim for a package's executable, byte for byte (its cmd-shim writes
// these; pnpm compares a shim's text to decide whether to rewrite it, so lode writes the same):
// the shim finds its real directory through symlinks, runs the target's interpreter (from the
// shebang, else the file's extension) on the target, and sets NODE_PATH as pnpm's extendNodePath.
import fs from 'node:fs'
import path from 'node:path'

import { hasErrno } from '@lode/core.error'
import { isInsideDir } from '@lode/core.safe-name'

/**
 * The helpers every shim defines first: readlink, sed, uname and printf come from the system's
 * default path (`command -p`), so a dependency's bin named like one cannot take the shim over.
 */
const PRELUDE =
  "#!/bin/sh\n" +
  "# Resolve $0 through symlinks so basedir is the shim's real directory.\n" +
  "# Cap hops at the kernel's ELOOP limit so a cycle cannot hang the shim.\n" +
  "#\n" +
  "# A shim runs with node_modules/.bin at the front of PATH, so readlink, sed,\n" +
  "# uname, and printf go through `command -p`, which searches the system default\n" +
  "# path instead. A dependency's bin cannot stand in for one of them and take over\n" +
  "# the shim before it reaches its target. Directories come from `${link%/*}`,\n" +
  "# which needs no helper at all.\n" +
  "#\n" +
  "# A helper the default path lacks, as in a Nix build sandbox, comes from PATH\n" +
  "# instead, with node_modules and relative entries dropped from it.\n" +
  "caller_path_set=${PATH+set}\n" +
  "caller_path=${PATH-}\n" +
  "helper_path=\n" +
  "rest=$caller_path:\n" +
  "while [ -n \"$rest\" ]; do\n" +
  "  dir=${rest%%:*}\n" +
  "  rest=${rest#*:}\n" +
  "  case \"$dir\" in\n" +
  "    */node_modules/*|*/node_modules) ;;\n" +
  "    /*) helper_path=${helper_path:+$helper_path:}$dir ;;\n" +
  "  esac\n" +
  "done\n" +
  "# An empty PATH searches the current directory.\n" +
  "PATH=${helper_path:-/}\n" +
  "# A helper comes from PATH only when the default path lacks it and PATH has it.\n" +
  "# The bash 3.2 that macOS ships as sh answers `command -p -v` from PATH.\n" +
  "run_helper() {\n" +
  "  if command -p -v \"$1\" >/dev/null 2>&1 || ! command -v \"$1\" >/dev/null 2>&1; then command -p \"$@\"; else command \"$@\"; fi\n" +
  "}\n"

/** `$0` followed through symlinks (40 hops at most), then its directory. */
const RESOLVE_LINK =
  "link=\"$0\"\n" +
  "# `${link%/*}` needs a separator to strip. A bare name came from a PATH lookup\n" +
  "# and stands for a file in the current directory.\n" +
  "case \"$link\" in\n" +
  "  */*|*\\\\*) ;;\n" +
  "  *) link=\"./$link\" ;;\n" +
  "esac\n" +
  "hops=0\n" +
  "while [ -L \"$link\" ] && [ \"$hops\" -lt 40 ]; do\n" +
  "  hops=$((hops+1))\n" +
  "  target=$(run_helper readlink \"$link\")\n" +
  "  case \"$target\" in\n" +
  "    /*) link=\"$target\" ;;\n" +
  "    *)  link=\"${link%/*}/$target\" ;;\n" +
  "  esac\n" +
  "done\n" +
  "basedir=$(run_helper printf '%s\\n' \"$link\" | run_helper sed -e 's,\\\\,/,g')\n" +
  "basedir=\"${basedir%/*}\"\n"

/** For a relative target: the directory made physical, so `..` steps leave the real one. */
const BASEDIR_ABS =
  "basedir_abs=$(CDPATH= cd -P -- \"$basedir\" && pwd -P) || exit $?\n" +
  "basedir=\"$basedir_abs\"\n"

/** Windows subsystems (Cygwin, MSYS, WSL2) get a Windows form of the directory; PATH is given back. */
const WINDOWS_SUBSYSTEMS =
  "basedir_win=\"$basedir\"\n" +
  "exe=\"\"\n" +
  "msys=\"\"\n" +
  "\n" +
  "case `run_helper uname -a` in\n" +
  "  *CYGWIN*|*MINGW*|*MSYS*)\n" +
  "    if converted=$(command -p cygpath -w \"$basedir\" 2>/dev/null) && [ -n \"$converted\" ]; then\n" +
  "      basedir_win=\"$converted\"\n" +
  "    elif command -v cygpath > /dev/null 2>&1; then\n" +
  "      basedir_win=`cygpath -w \"$basedir\"`\n" +
  "    fi\n" +
  "    exe=\".exe\"\n" +
  "    msys=\"true\"\n" +
  "  ;;\n" +
  "  *WSL2*)\n" +
  "    if converted=$(command -p wslpath -w \"$basedir\" 2>/dev/null) && [ -n \"$converted\" ]; then\n" +
  "      basedir_win=\"$converted\"\n" +
  "      exe=\".exe\"\n" +
  "    elif command -v wslpath > /dev/null 2>&1; then\n" +
  "      basedir_win=\"$(wslpath -w \"$basedir\" 2> /dev/null)\"\n" +
  "      if [ $? -ne 0 ] || [ -z \"$basedir_win\" ]; then\n" +
  "        basedir_win=\"$basedir\"\n" +
  "      else\n" +
  "        exe=\".exe\"\n" +
  "      fi\n" +
  "    fi\n" +
  "  ;;\n" +
  "esac\n" +
  "if [ -n \"$caller_path_set\" ]; then PATH=$caller_path; else unset PATH; fi\n" +
  "\n"

/** The interpreter cmd-shim picks from a shebang (`#!/usr/bin/env node --flag`: `node`, ` --flag`). */
const SHEBANG = /^#!\s*(?:\/usr\/bin\/env(?:\s+-S)?\s*)?([^ \t]+)(.*)$/
/** Without a shebang, the interpreter of the file's extension. */
const INTERPRETERS: Readonly<Record<string, string>> = { '.js': 'node', '.cjs': 'node', '.mjs': 'node', '.cmd': 'cmd', '.bat': 'cmd', '.ps1': 'pwsh', '.sh': 'sh' }

export interface ShShimOptions {
  /** Directories the shim puts before NODE_PATH. */
  nodePath: readonly string[]
  /** The target's first bytes (its shebang line), or undefined when it does not exist. */
  head: string | undefined
  /** Something may be at `to` already (false: its directory was made just now): it is removed first. */
  replaces?: boolean
}

/**
 * Writes the shim `to` for `target` (replacing what is there) and makes it executable. The target
 * is named relative to the shim's physical directory, as pnpm names it. The file is created anew,
 * never written through whatever was there (a link planted in its place).
 */
export function writeShShim (target: string, to: string, opts: ShShimOptions): void {
  const text = shShim(target, path.relative(physicalShimDir(target, to), target), opts)
  if (opts.replaces !== false) fs.rmSync(to, { force: true })
  let fd: number
  try {
    fd = fs.openSync(to, 'wx', 0o755)
  } catch (err) {
    if (!hasErrno(err, 'EEXIST')) throw err
    fs.rmSync(to, { force: true })
    fd = fs.openSync(to, 'wx', 0o755)
  }
  try {
    fs.writeFileSync(fd, text)
    // The mode asked at creation is narrowed by the umask: set it whole.
    fs.fchmodSync(fd, 0o755)
  } finally {
    fs.closeSync(fd)
  }
}

/** The shim's text for `target`, which is at `relative` from the shim's directory. */
export function shShim (target: string, relative: string, opts: ShShimOptions): string {
  const { program, args } = interpreterOf(target, opts.head)
  const absolute = path.isAbsolute(relative)
  const quoted = absolute ? shQuote(relative) : `"$basedir_abs"/${shQuote(relative)}`
  const quotedWin = absolute ? shQuote(relative) : `"$basedir_win"/${shQuote(relative)}`
  let sh = `${PRELUDE}${RESOLVE_LINK}${absolute ? '' : BASEDIR_ABS}${WINDOWS_SUBSYSTEMS}`
  if (opts.nodePath.length > 0) {
    const nodePath = shQuote(opts.nodePath.join(':'))
    sh += `if [ -z "$NODE_PATH" ]; then\n  export NODE_PATH=${nodePath}\nelse\n  export NODE_PATH=${nodePath}:"$NODE_PATH"\nfi\n`
  }
  // No interpreter: the target runs itself (cmd-shim leaves the empty interpreter arguments' spaces).
  sh += program === undefined ? `exec ${quoted}   "$@"\nexit $?\n` : execBlock(program, args, quoted, quotedWin)
  if (opts.head === undefined) sh += '# cmd-shim-missing-target\n'
  return `${sh}# cmd-shim-target=${target.split('\\').join('/')}\n`
}

function execBlock (program: string, rawArgs: string, target: string, targetWin: string): string {
  const prog = program.split('\\').join('/')
  let args = rawArgs
  let sh = ''
  if (program === 'cmd' || program === 'cmd.exe') {
    // MSYS would turn cmd's /C into a path: it is upper-cased and excluded from conversion.
    let cmdSwitch: string | undefined
    args = rawArgs.replace(/(?<=^|\s)\/[ck](?=\s|$)/i, (found) => (cmdSwitch = found.toUpperCase()))
    if (cmdSwitch !== undefined) sh += `if [ -n "$msys" ]; then\n  export MSYS2_ARG_CONV_EXCL="${cmdSwitch}\${MSYS2_ARG_CONV_EXCL:+;$MSYS2_ARG_CONV_EXCL}"\nfi\n`
  }
  const hasExe = /\.exe$/i.test(prog)
  const exe = hasExe ? prog : `${prog}.exe`
  const local = `"$basedir/${prog}"`
  const localExe = `"$basedir/${exe}"`
  if (hasExe) {
    return `${sh}if [ -x ${localExe} ]; then\n  exec ${localExe} ${args} ${targetWin} "$@"\nelse\n  exec ${exe} ${args} ${targetWin} "$@"\nfi\n`
  }
  return `${sh}if [ -n "$exe" ] && [ -x ${localExe} ]; then
  exec ${localExe} ${args} ${targetWin} "$@"
elif [ -x ${local} ]; then
  exec ${local} ${args} ${target} "$@"
elif [ -n "$msys" ] && command -v ${prog} >/dev/null 2>&1; then
  exec ${prog} ${args} ${targetWin} "$@"
elif command -v ${prog} >/dev/null 2>&1; then
  exec ${prog} ${args} ${target} "$@"
elif [ -n "$exe" ] && command -v ${exe} >/dev/null 2>&1; then
  exec ${exe} ${args} ${targetWin} "$@"
else
  exec ${prog} ${args} ${target} "$@"
fi
`
}

/** The target's interpreter and its arguments: from the shebang, else from the extension (none for others). */
function interpreterOf (target: string, head: string | undefined): { program: string | undefined, args: string } {
  const shebang = head === undefined ? null : SHEBANG.exec(head.trim().split(/\r*\n/)[0]!)
  if (shebang !== null) return { program: shebang[1]!, args: shebang[2]! }
  const program = INTERPRETERS[path.extname(target).toLowerCase()]
  return { program, args: program === 'cmd' ? '/C' : '' }
}

/** A word in single quotes for sh. */
function shQuote (text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`
}

/**
 * The directory a shim's relative target starts from: the shim's directory made physical, since
 * the shim itself resolves its own symlinks. When the shim's directory goes through a link that
 * also leads to the target, the part they share stays as written.
 */
function physicalShimDir (target: string, to: string): string {
  const dir = path.dirname(to)
  const physical = fs.realpathSync(dir)
  if (physical === dir) return dir
  let ancestor = dir
  while (!isInsideDir(ancestor, target)) {
    const parent = path.dirname(ancestor)
    if (parent === ancestor) { ancestor = dir; break }
    ancestor = parent
  }
  if (ancestor === dir && !isInsideDir(dir, target)) return physical
  const physicalAncestor = fs.realpathSync(ancestor)
  return isInsideDir(physicalAncestor, physical) ? path.join(ancestor, path.relative(physicalAncestor, physical)) : physical
}

