import { outputText } from './output-text.js'

/** A node of a text tree: its label (lines after the first continue under it), and its children, grouped or not. */
export interface TextTreeNode {
  label: string
  children?: ReadonlyArray<TextTreeNode | { group: string, nodes: readonly TextTreeNode[] }>
}

/**
 * Draws a tree as pnpm's `list` and `why` draw it (`├── `, `├─┬ `, `└── `, `│ `); a group's heading
 * sits on a `│   ` line after a `│` line. Only the very last child of all groups gets `└`. Depth
 * first on an explicit stack: a tree is as deep as the dependency graph (`ERR_LODE_OUTPUT_TOO_LARGE`
 * when the text would be longer than a string can be).
 */
export function renderTextTree (root: TextTreeNode): string {
  const out = outputText('The tree')
  type Task = string | { node: TextTreeNode, connector: string, prefix: string }
  const pending: Task[] = [{ node: root, connector: '', prefix: '' }]
  for (let task = pending.pop(); task !== undefined; task = pending.pop()) {
    if (typeof task === 'string') {
      out.push(task)
      continue
    }
    const { node, connector, prefix } = task
    const lines = node.label.split('\n')
    const items = (node.children ?? []).flatMap((child): Array<{ item: TextTreeNode, group: string | undefined }> => 'group' in child
      ? child.nodes.map((item) => ({ item, group: child.group }))
      : [{ item: child, group: undefined }])
    out.push(`${connector}${lines[0]}\n`)
    for (const line of lines.slice(1)) out.push(`${prefix}${items.length > 0 ? '│ ' : '  '}${line}\n`)
    const tasks: Task[] = []
    let group: string | undefined
    items.forEach(({ item, group: itemGroup }, index) => {
      const last = index === items.length - 1
      if (itemGroup !== group) {
        group = itemGroup
        if (group !== undefined) tasks.push(`${prefix}│\n${prefix}│   ${group}\n`)
      }
      const more = (item.children ?? []).some((child) => !('group' in child) || child.nodes.length > 0)
      tasks.push({ node: item, connector: `${prefix}${last ? '└' : '├'}─${more ? '┬' : '─'} `, prefix: `${prefix}${last ? '  ' : '│ '}` })
    })
    for (let i = tasks.length - 1; i >= 0; i--) pending.push(tasks[i]!)
  }
  return out.text()
}
