// pnpm's order for keys it adds to a map of pnpm-workspace.yaml (a catalog, allowBuilds): their
// sorted place when the map's keys were sorted, the end otherwise.

/** `map` with `added` set, in pnpm's order for new keys. */
export function withKeys<T> (map: Readonly<Record<string, T>>, added: Readonly<Record<string, T>>): Record<string, T> {
  const keys = Object.keys(map)
  const merged = { ...map, ...added }
  const sorted = keys.every((key, i) => i === 0 || keys[i - 1]! <= key)
  const order = sorted ? Object.keys(merged).sort((a, b) => a < b ? -1 : a > b ? 1 : 0) : Object.keys(merged)
  return Object.fromEntries(order.map((key) => [key, merged[key]!]))
}
