/**
 * A table as pnpm draws its reports (`outdated`, `licenses`): box-drawing borders, a rule between
 * every row, one space of padding, cells left-aligned; a cell's lines (split on `\n`) stack in its
 * row. Ends with a newline.
 */
export function renderTable (rows: ReadonlyArray<readonly string[]>, opts: { wrap?: Readonly<Record<number, number>> } = {}): string {
  const cells = rows.map((row) => row.map((cell, column) => {
    const lines = cell.split('\n')
    const width = opts.wrap?.[column]
    return width === undefined ? lines : lines.flatMap((line) => wrapWords(line, width))
  }))
  const widestLine = (column: number): number => Math.max(...cells.map((row) => Math.max(...row[column]!.map((line) => line.length))))
  const widths = cells[0]!.map((_, column) => opts.wrap?.[column] ?? widestLine(column))
  const rule = (left: string, join: string, right: string): string => `${left}${widths.map((width) => '─'.repeat(width + 2)).join(join)}${right}\n`
  const lines = cells.map((row) => {
    const height = Math.max(...row.map((cell) => cell.length))
    return Array.from({ length: height }, (_, line) => `│${row.map((cell, column) => ` ${(cell[line] ?? '').padEnd(widths[column]!)} `).join('│')}│\n`).join('')
  })
  return `${rule('┌', '┬', '┐')}${lines.join(rule('├', '┼', '┤'))}${rule('└', '┴', '┘')}`
}

/**
 * A line cut into pieces of at most `width` characters as pnpm's table library cuts them: at
 * whitespace where the piece can end there, else after a `\ / _ . , ; -`, else at the width.
 */
function wrapWords (line: string, width: number): string[] {
  const piece = new RegExp(`(^.{1,${width}}(\\s+|$))|(^.{1,${width - 1}}(\\\\|/|_|\\.|,|;|-))`)
  const pieces: string[] = []
  let rest = line
  do {
    const match = piece.exec(rest)
    const taken = match === null ? rest.slice(0, width) : match[0]
    rest = rest.slice(taken.length)
    pieces.push(match === null ? taken : taken.trim())
  } while (rest.length > 0)
  return pieces
}
