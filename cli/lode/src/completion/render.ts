import type { Candidate } from './candidates.js'
import type { Shell } from './shell-scripts.js'

// Candidates as each shell's function reads them, one a line. A name or a description comes from a
// package.json (a script's name, a project's): one that could run or redraw something in the shell
// (a control character, a line break; for bash, whitespace; for fish, a backslash) is left out.

export function renderCandidates (candidates: readonly Candidate[], shell: Shell): string {
  const lines: string[] = []
  for (const { name, description } of candidates) {
    if (!safe(name, shell) || /\s/.test(name)) continue
    const said = description === undefined || !safe(description, shell) ? undefined : description.trim()
    if (shell === 'bash') lines.push(name)
    else if (shell === 'zsh') lines.push(said === undefined || said === '' ? name.replaceAll(':', '\\:') : `${name.replaceAll(':', '\\:')}:${said}`)
    else lines.push(said === undefined || said === '' ? name : `${name}\t${said}`)
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

function safe (text: string, shell: Shell): boolean {
  for (const char of text) {
    const code = char.codePointAt(0)!
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return false
  }
  return shell !== 'fish' || !text.includes('\\')
}
