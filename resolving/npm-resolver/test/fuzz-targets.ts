// Fuzz targets of the packument reader (run by packument-json.test.ts through @lode/__utils__.test-fixtures/fuzz).

import assert from 'node:assert/strict'

import { mutate } from '@lode/__utils__.test-fixtures/fuzz'
import type { FuzzTarget, MutateOptions, Random } from '@lode/__utils__.test-fixtures/fuzz'
import { encodeMsgpackFile, encodeMsgpackPart } from '@lode/fs.msgpack-file'

import { PackageVersions, packumentDocument, readPackumentDocument, trimDocument } from '../src/index.js'
import type { EncodedVersions, PackageMeta, PackumentDocument } from '../src/index.js'

const dist = (v: string): Record<string, unknown> => ({ tarball: `http://127.0.0.1:1/p/-/p-${v}.tgz`, integrity: `sha512-${v}`, attestations: { provenance: { predicateType: 'x' } } })

/** Packuments with what trimPackument reads: dist, dependencies, engines, bins, deprecations, trust, times; one version past 64 KiB. */
export const PACKUMENTS = [
  JSON.stringify({
    _id: 'p', name: 'p', 'dist-tags': { latest: '1.1.0', next: '2.0.0-rc.1' }, modified: '2025-01-02T00:00:00.000Z',
    versions: {
      '1.0.0': { name: 'p', version: '1.0.0', dependencies: { a: '^1.0.0', b: 'npm:c@2' }, engines: { node: '>=18' }, dist: dist('1.0.0'), _npmUser: { name: 'x', trustedPublisher: { id: 'github' } } },
      '1.1.0': { name: 'p', version: '1.1.0', deprecated: 'use 2 — «now»', peerDependencies: { r: '*' }, peerDependenciesMeta: { r: { optional: true } }, bin: { p: 'cli.js' }, os: ['linux'], cpu: 'x64', dist: { tarball: 't', shasum: 'a'.repeat(40) } },
      '2.0.0-rc.1': { name: 'p', version: '2.0.0-rc.1', hasInstallScript: true, bundleDependencies: ['a'], directories: { bin: 'bin' }, readme: 'é😀\n'.repeat(20_000), dist: dist('2.0.0-rc.1') },
    },
    time: { created: '2025-01-01T00:00:00.000Z', '1.0.0': '2025-01-01T00:00:00.000Z', '1.1.0': '2025-01-02T00:00:00.000Z' },
    readme: '# p\n\nA "package" \\ with \u0001 escapes', users: { someone: true },
  }, null, 1),
  '{"versions":{"1":{"dist":{"tarball":"t","integrity":"i"},"engines":["node >= 0.8"]},"0":{"dist":{"tarball":"t","integrity":"i"}},"__proto__":{"dist":{"tarball":"t","integrity":"i"}},"1":{"dist":{"tarball":"u","integrity":"j"},"deprecated":"x"}},"dist-tags":{"__proto__":"1","latest":1},"time":{"2":"t","modified":null}}',
  '{"vers\\u0069ons":{"1.0.\\u0030":{"di\\u0073t":{"tarball":"t","integrity":"i"},"dist":{"tarball":"t","integrity":"j"}}},"versions":{"2.0.0":{"dist":{"tarball":"t","integrity":"i"}}}}',
]

const OPTIONS: MutateOptions = {
  tokens: [
    '{', '}', '[', ']', ',', ':', '"', '\\', '\\u', '\\uD800', '\\"', 'null', 'true', '-0', '1e5', '01', '"versions":',
    '"dist":{"tarball":"t","integrity":"i"}', '\u0001',
  ],
  corpus: PACKUMENTS,
  keyLine: (key) => `"${key}": {"dist": {"tarball": "t", "integrity": "i"}},`,
  nesting: [['[', ']'], ['{"a":', '}'], ['{"versions":{"1":', '}}']],
}

const encodeVersions = (versions: Iterable<[string, PackageMeta]>): EncodedVersions =>
  PackageVersions.encodeEntries(versions, encodeMsgpackPart)

/** The cache entry a document trims to, as bytes; `undefined` when it is not a package document. Throws what reading it throws. */
export function trimmedBytes (read: () => PackumentDocument | undefined): Buffer | undefined {
  const doc = read()
  return doc === undefined ? undefined : encodeMsgpackFile(trimDocument('p', doc, encodeVersions))
}

type Outcome = { bytes: Buffer | undefined } | { error: unknown }

function outcome (read: () => PackumentDocument | undefined): Outcome {
  try {
    return { bytes: trimmedBytes(read) }
  } catch (error) {
    return { error }
  }
}

export const packumentReader: FuzzTarget = {
  generate (random: Random) {
    return mutate(random, random.pick(PACKUMENTS), OPTIONS)
  },
  check (input) {
    // As the registry sends it: a lone surrogate of the mutated text is a replacement character.
    const bytes = Buffer.from(input as string)
    const parsed = outcome(() => packumentDocument(JSON.parse(bytes.toString('utf8'))))
    const read = outcome(() => readPackumentDocument(bytes))
    if ('error' in parsed) {
      assert.ok('error' in read && read.error instanceof SyntaxError, `JSON.parse refused it (${String(parsed.error)}), the reader did not`)
      return 'refused'
    }
    if ('error' in read) throw read.error
    if (parsed.bytes === undefined) {
      assert.equal(read.bytes, undefined, 'not a package document for JSON.parse, one for the reader')
      return 'not a document'
    }
    assert.ok(read.bytes !== undefined && read.bytes.equals(parsed.bytes), 'the reader trims it to another cache entry')
    return 'read'
  },
}
