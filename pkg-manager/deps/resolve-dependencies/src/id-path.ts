/**
 * A list of package ids from an importer down to a package, shared with the lists it extends: the
 * ids above every package of a chain take memory in proportion to the chain, not to its square
 * (a registry makes a chain as deep as it likes). `undefined` is the empty list.
 */
export interface IdPath {
  readonly id: string
  readonly parent: IdPath | undefined
  readonly length: number
}

export function extendPath (path: IdPath | undefined, id: string): IdPath {
  return { id, parent: path, length: (path?.length ?? 0) + 1 }
}

/**
 * Whether `node` is `path` or a list `path` extends. Whether an id is in `path` is whether the list
 * that ends with it is: a caller that keeps those asks in one step about an id deeper than `path`
 * (the usual question: is a dependency one of its dependent's ancestors?), not one per level.
 */
export function pathStartsWith (path: IdPath | undefined, node: IdPath): boolean {
  let at = path
  while (at !== undefined && at.length > node.length) at = at.parent
  return at === node
}

/** Compares two lists as arrays of strings compare: by the first id they differ in, from the top, else the shorter first. */
export function comparePaths (a: IdPath | undefined, b: IdPath | undefined): number {
  let result = (a?.length ?? 0) - (b?.length ?? 0)
  let x = a
  let y = b
  while ((x?.length ?? 0) > (y?.length ?? 0)) x = x!.parent
  while ((y?.length ?? 0) > (x?.length ?? 0)) y = y!.parent
  // Upwards until the lists share their rest: the highest difference decides.
  while (x !== y) {
    if (x!.id !== y!.id) result = x!.id < y!.id ? -1 : 1
    x = x!.parent
    y = y!.parent
  }
  return result
}

/** The ids from the top down. */
export function pathIds (path: IdPath | undefined): string[] {
  const ids = new Array<string>(path?.length ?? 0)
  for (let at = path; at !== undefined; at = at.parent) ids[at.length - 1] = at.id
  return ids
}
