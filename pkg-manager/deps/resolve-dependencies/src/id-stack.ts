/**
 * A stack of package ids that tells where an id is on it (first and last place) without a scan:
 * the walk of a deep chain asks at every level.
 */
export class IdStack {
  private readonly places = new Map<string, number[]>()
  private size = 0

  get length (): number {
    return this.size
  }

  push (id: string): void {
    const at = this.places.get(id)
    if (at === undefined) this.places.set(id, [this.size])
    else at.push(this.size)
    this.size++
  }

  /** Removes `id`, which must be the top. */
  pop (id: string): void {
    const at = this.places.get(id)!
    at.pop()
    if (at.length === 0) this.places.delete(id)
    this.size--
  }

  has (id: string): boolean {
    return this.places.has(id)
  }

  /** Where `id` is on the stack, from the bottom. */
  placesOf (id: string): readonly number[] {
    return this.places.get(id) ?? []
  }

  /**
   * pnpm's parentIdsContainSequence: the stack went from `from` to `to` already: `to` is after the
   * first `from`, neither being the top (which is the package asking, or its nearest listed ancestor).
   */
  containsSequence (from: string, to: string): boolean {
    const first = this.places.get(from)?.[0]
    if (first === undefined || first === this.size - 1) return false
    const last = this.places.get(to)?.at(-1) ?? -1
    return first < last && last !== this.size - 1
  }
}
