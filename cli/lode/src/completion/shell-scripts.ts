// What `lode completion <shell>` prints: a function for the shell that hands the command line, up to
// the cursor, to `lode completion-server` (in COMP_LINE) and offers what it prints, one candidate a
// line (zsh `name:description`, fish and PowerShell `name<TAB>description`).

export const SHELLS = ['bash', 'fish', 'pwsh', 'zsh'] as const
export type Shell = typeof SHELLS[number]

const BASH = `###-begin-lode-completion-###
if type complete &>/dev/null; then
  _lode_completion () {
    local line="\${COMP_LINE:0:COMP_POINT}" candidates candidate word prefix="" i
    candidates=$(COMP_LINE="$line" SHELL=bash lode completion-server 2>/dev/null) || return 0
    COMPREPLY=()
    # bash splits the word being completed at COMP_WORDBREAKS (= and :): what precedes the last break stays on the line.
    word="\${line##*[[:space:]]}"
    for ((i = \${#word} - 1; i >= 0; i--)); do
      if [[ "$COMP_WORDBREAKS" == *"\${word:i:1}"* ]]; then
        prefix="\${word:0:i+1}"
        break
      fi
    done
    while IFS= read -r candidate; do
      [ -n "$candidate" ] || continue
      printf -v candidate '%q' "\${candidate#"$prefix"}"
      COMPREPLY+=("$candidate")
    done <<< "$candidates"
  }
  complete -o default -F _lode_completion lode
fi
###-end-lode-completion-###
`

const ZSH = `#compdef lode
###-begin-lode-completion-###
_lode_completion () {
  local -a candidates
  local IFS=$'\\n'
  candidates=($(COMP_LINE="\${BUFFER[1,CURSOR]}" SHELL=zsh lode completion-server 2>/dev/null))
  _describe 'lode' candidates
}
# Autoloaded by the completion system ("*func"), or sourced: then registered.
if [[ $zsh_eval_context == *func ]]; then
  _lode_completion "$@"
else
  compdef _lode_completion lode
fi
###-end-lode-completion-###
`

const FISH = `###-begin-lode-completion-###
function __lode_completion
  set -lx COMP_LINE (commandline -cp)
  set -lx SHELL fish
  lode completion-server 2>/dev/null
end
complete -c lode -f -a '(__lode_completion)'
###-end-lode-completion-###
`

const PWSH = `###-begin-lode-completion-###
Register-ArgumentCompleter -Native -CommandName 'lode' -ScriptBlock {
  param($WordToComplete, $CommandAst, $CursorPosition)
  # The command line up to the cursor (the AST's text leaves out the spaces after its last word).
  $Text = $CommandAst.Extent.Text
  $UpTo = $CursorPosition - $CommandAst.Extent.StartOffset
  if ($UpTo -gt $Text.Length) { $Text = $Text + (' ' * ($UpTo - $Text.Length)) } else { $Text = $Text.Substring(0, $UpTo) }
  $Saved = ($env:COMP_LINE, $env:SHELL)
  $env:COMP_LINE = $Text
  $env:SHELL = 'pwsh'
  try {
    $Out = & lode completion-server 2>$null
  } finally {
    ($env:COMP_LINE, $env:SHELL) = $Saved
  }
  foreach ($Entry in $Out) {
    $Name, $Description = $Entry.Split("\`t", 2)
    if (-not $Description) { $Description = $Name }
    [System.Management.Automation.CompletionResult]::new($Name, $Name, 'ParameterValue', $Description)
  }
}
###-end-lode-completion-###
`

const SCRIPTS: Readonly<Record<Shell, string>> = { bash: BASH, fish: FISH, pwsh: PWSH, zsh: ZSH }

export function completionScript (shell: Shell): string {
  return SCRIPTS[shell]
}

export function isShell (name: string): name is Shell {
  return (SHELLS as readonly string[]).includes(name)
}
