/** A node of a text tree: its label (lines after the first continue under it), and its children, grouped or not. */
export interface TextTreeNode {
  label: string
  children?: ReadonlyArray<TextTreeNode | { group: string, nodes: readonly TextTreeNode[] }>
}

/**
 * Draws a tree as pnpm's `list` and `why` draw it (`├── `, `├─┬ `, `└── `, `│ `); a group's heading
 * sits on a `│   ` line after a `│` line. Only the very last child of all groups gets `└`.
 */
export function renderTextTree (node: TextTreeNode, connector = '', prefix = ''): string {
  const lines = node.label.split('\n')
  const items = (node.children ?? []).flatMap((child): Array<{ item: TextTreeNode, group: string | undefined }> => 'group' in child
    ? child.nodes.map((item) => ({ item, group: child.group }))
    : [{ item: child, group: undefined }])
  let out = `${connector}${lines[0]}\n`
  for (const line of lines.slice(1)) out += `${prefix}${items.length > 0 ? '│ ' : '  '}${line}\n`
  let group: string | undefined
  items.forEach(({ item, group: itemGroup }, index) => {
    const last = index === items.length - 1
    if (itemGroup !== group) {
      group = itemGroup
      if (group !== undefined) out += `${prefix}│\n${prefix}│   ${group}\n`
    }
    const more = (item.children ?? []).some((child) => !('group' in child) || child.nodes.length > 0)
    out += renderTextTree(item, `${prefix}${last ? '└' : '├'}─${more ? '┬' : '─'} `, `${prefix}${last ? '  ' : '│ '}`)
  })
  return out
}
