/**
 * A table as pnpm draws its reports (`outdated`, `licenses`): box-drawing borders, a rule between
 * every row, one space of padding, cells left-aligned; a cell's lines (split on `\n`) stack in its
 * row. Ends with a newline.
 */
export function renderTable (rows: ReadonlyArray<readonly string[]>): string {
  const cells = rows.map((row) => row.map((cell) => cell.split('\n')))
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => Math.max(...row[column]!.map((line) => line.length)))))
  const rule = (left: string, join: string, right: string): string => `${left}${widths.map((width) => '─'.repeat(width + 2)).join(join)}${right}\n`
  const lines = cells.map((row) => {
    const height = Math.max(...row.map((cell) => cell.length))
    return Array.from({ length: height }, (_, line) => `│${row.map((cell, column) => ` ${(cell[line] ?? '').padEnd(widths[column]!)} `).join('│')}│\n`).join('')
  })
  return `${rule('┌', '┬', '┐')}${lines.join(rule('├', '┼', '┤'))}${rule('└', '┴', '┘')}`
}
