import type { PackageMeta } from './types.js'

/** How much a growing buffer of encoded versions grows by at least: its unused end stays under this. */
const GROWTH = 1024 * 1024

/**
 * A packument's versions as the metadata cache stores them: every version's fields encoded on
 * their own (`data`, each ending at its `ends` offset), so a read decodes only the versions picked.
 * `deprecated` names the deprecated ones, which a pick must know without decoding them.
 */
export interface EncodedVersions {
  names: string[]
  ends: number[]
  data: Uint8Array
  deprecated: string[]
}

/**
 * The versions of a packument: their names at once, each version's fields when first asked for.
 * A package with a few thousand versions is resolved to one or two of them, so decoding the
 * others from the cache (and collecting them again) was most of a cached resolution's time.
 */
export class PackageVersions {
  private readonly metas: Array<PackageMeta | undefined>
  private positions: Map<string, number> | undefined
  private lookups = 0

  private constructor (
    /** The version strings, in the registry's order. */
    readonly names: readonly string[],
    private readonly load: (position: number) => PackageMeta,
    private readonly deprecated: ReadonlySet<string>
  ) {
    this.metas = new Array<PackageMeta | undefined>(names.length)
  }

  /** Versions already decoded (a registry's document, a test's). */
  static fromEntries (entries: Iterable<readonly [string, PackageMeta]>): PackageVersions {
    const names: string[] = []
    const metas: PackageMeta[] = []
    const deprecated = new Set<string>()
    for (const [version, meta] of entries) {
      names.push(version)
      metas.push(meta)
      if (meta.deprecated !== undefined) deprecated.add(version)
    }
    return new PackageVersions(names, (position) => metas[position]!, deprecated)
  }

  /** Versions from the cache; `decode` turns one version's bytes back into its fields. */
  static decode (encoded: EncodedVersions, decode: (bytes: Uint8Array) => PackageMeta): PackageVersions {
    const { ends, data } = encoded
    return new PackageVersions(
      encoded.names,
      (position) => decode(data.subarray(position === 0 ? 0 : ends[position - 1], ends[position])),
      new Set(encoded.deprecated)
    )
  }

  /** For the cache: each version encoded by `encode` (whose result may be reused by its next call). */
  encode (encode: (meta: PackageMeta) => Uint8Array): EncodedVersions {
    return PackageVersions.encodeEntries(this.names.map((version, position) => [version, this.at(position)] as const), encode)
  }

  /**
   * Versions encoded for the cache as they come, without a PackageVersions of them: a fetched
   * packument's versions are trimmed and encoded one at a time, and only their encodings are kept.
   * The encodings go in a SharedArrayBuffer of their own: the packument thread's entry reaches the
   * main thread, which holds it for the install, without a copy (nor a slice of Node's pool carried
   * whole). With `capacity`, a bound on their size (a large packument's), they are written straight
   * into it as it grows, rather than kept apart and joined at the end (twice their size at once).
   */
  static encodeEntries (
    entries: Iterable<readonly [string, PackageMeta]>, encode: (meta: PackageMeta) => Uint8Array, capacity?: number
  ): EncodedVersions {
    const names: string[] = []
    const ends: number[] = []
    const deprecated: string[] = []
    const parts: Uint8Array[] = []
    let growing = capacity === undefined ? undefined : new SharedArrayBuffer(0, { maxByteLength: capacity })
    let end = 0
    for (const [version, meta] of entries) {
      names.push(version)
      const part = encode(meta)
      if (growing !== undefined && end + part.length > growing.maxByteLength) {
        // Past the bound: the rest is kept apart, as without one.
        parts.push(new Uint8Array(growing, 0, end).slice())
        growing = undefined
      }
      if (growing === undefined) {
        parts.push(Buffer.from(part))
      } else {
        const needed = end + part.length
        if (needed > growing.byteLength) growing.grow(Math.min(growing.maxByteLength, Math.max(needed, growing.byteLength + GROWTH)))
        new Uint8Array(growing, end, part.length).set(part)
      }
      ends.push(end += part.length)
      if (meta.deprecated !== undefined) deprecated.push(version)
    }
    // Buffers, which the cache file encodes as MessagePack's binary type (another view is a typed array of its own type).
    if (growing !== undefined) return { names, ends, data: Buffer.from(growing, 0, end), deprecated }
    const data = Buffer.from(new SharedArrayBuffer(end))
    let offset = 0
    for (const part of parts) {
      data.set(part, offset)
      offset += part.length
    }
    return { names, ends, data, deprecated }
  }

  get size (): number {
    return this.names.length
  }

  has (version: string): boolean {
    return this.position(version) !== undefined
  }

  get (version: string): PackageMeta | undefined {
    const position = this.position(version)
    return position === undefined ? undefined : this.at(position)
  }

  /** Whether the version is deprecated, without decoding it. */
  isDeprecated (version: string): boolean {
    return this.deprecated.has(version)
  }

  /** The versions `keep` accepts, still decoded only when asked for. */
  filter (keep: (version: string) => boolean): PackageVersions {
    const kept: number[] = []
    this.names.forEach((version, position) => { if (keep(version)) kept.push(position) })
    return new PackageVersions(
      kept.map((position) => this.names[position]!),
      (position) => this.at(kept[position]!),
      new Set([...this.deprecated].filter(keep))
    )
  }

  private at (position: number): PackageMeta {
    return (this.metas[position] ??= this.load(position))
  }

  // A resolution looks up two or three versions of a package: a scan from the newest end is
  // cheaper than a map of a few thousand, which only a package looked up more often gets.
  private position (version: string): number | undefined {
    if (this.positions === undefined && ++this.lookups <= 4) {
      const position = this.names.lastIndexOf(version)
      return position === -1 ? undefined : position
    }
    this.positions ??= new Map(this.names.map((name, position) => [name, position]))
    return this.positions.get(version)
  }
}
