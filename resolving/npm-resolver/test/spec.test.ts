import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import os from 'node:os'
import { test } from 'node:test'

import { parseWantedSpec } from '@lode/resolving.npm-resolver'
import type { WantedSpec } from '@lode/resolving.npm-resolver'

interface NpaResult { type: string, name: string | null, subSpec?: NpaResult }
const npa = createRequire(import.meta.url)('npm-package-arg') as { resolve: (name: string, spec: string, where: string) => NpaResult }

type NpaType = 'version' | 'range' | 'tag' | 'alias' | 'git' | 'remote' | 'file' | 'directory' | 'error'
type Kind = WantedSpec['kind']

/** What npm-package-arg's type means for lode: the kind of dependency it is. */
const KIND_OF: Record<NpaType, Kind | undefined> = {
  version: 'registry', range: 'registry', tag: 'registry', alias: 'registry', git: 'git', remote: 'tarball', file: 'local', directory: 'local', error: undefined,
}

interface Row {
  spec: string
  /** npm-package-arg's type for it (checked, so the table says what npa says). */
  npa: NpaType
  /** Where pnpm 11, which lode follows, classifies it otherwise than npa, with why. */
  pnpm?: { kind: Kind, because: string }
  /** More of what lode parsed, checked. */
  expect?: Record<string, unknown>
}

const ROWS: Row[] = [
  // Registry versions, ranges and tags.
  { spec: '1.0.0', npa: 'version', expect: { type: 'version', name: 'alias', version: '1.0.0' } },
  { spec: '1.0.0-rc.1', npa: 'version', expect: { type: 'version', version: '1.0.0-rc.1' } },
  { spec: '^4.0.0-20260817-085717-0bb4e52', npa: 'range', expect: { type: 'range', range: '^4.0.0-20260817-085717-0bb4e52' } },
  { spec: '>=1.0.0 <2.0.0 || 3', npa: 'range', expect: { type: 'range' } },
  { spec: '1 - 2', npa: 'range', expect: { type: 'range' } },
  { spec: '~1.2', npa: 'range' },
  { spec: '1.x', npa: 'range' },
  { spec: '*', npa: 'range' },
  { spec: '', npa: 'range', expect: { type: 'range', range: '*' } },
  { spec: 'latest', npa: 'tag', expect: { type: 'tag', tag: 'latest' } },
  { spec: 'next', npa: 'tag', expect: { type: 'tag', tag: 'next' } },
  // Aliases, scoped and prerelease ones too (issue 20 item 16: this one was taken for a git dependency).
  { spec: 'npm:@nuxt/cli-nightly@^4.0.0-20260817-085717-0bb4e52', npa: 'alias', expect: { aliased: true, name: '@nuxt/cli-nightly', type: 'range', range: '^4.0.0-20260817-085717-0bb4e52' } },
  { spec: 'npm:@scope/pkg@1.0.0-beta.1', npa: 'alias', expect: { aliased: true, name: '@scope/pkg', type: 'version', version: '1.0.0-beta.1' } },
  { spec: 'npm:@scope/pkg@next', npa: 'alias', expect: { name: '@scope/pkg', type: 'tag', tag: 'next' } },
  { spec: 'npm:pkg@^2', npa: 'alias', expect: { name: 'pkg', type: 'range', range: '^2' } },
  { spec: 'npm:pkg', npa: 'alias', expect: { name: 'pkg', type: 'tag', tag: 'latest' } },
  { spec: 'npm:^1.0.0', npa: 'error', pnpm: { kind: 'registry', because: 'pnpm reads npm:<range> as the alias\'s own name' }, expect: { aliased: true, name: 'alias', type: 'range', range: '^1.0.0' } },
  // Registry-looking words pnpm's registry resolver claims before any path or file rule.
  { spec: 'foo.tgz', npa: 'file', pnpm: { kind: 'registry', because: 'a word encodeURIComponent keeps is a dist-tag to pnpm' }, expect: { type: 'tag', tag: 'foo.tgz' } },
  { spec: '..', npa: 'directory', pnpm: { kind: 'registry', because: 'a word encodeURIComponent keeps is a dist-tag to pnpm' }, expect: { type: 'tag', tag: '..' } },
  // Local files and directories.
  { spec: 'file:../x', npa: 'directory', expect: { protocol: 'file', path: '../x' } },
  { spec: 'file:./x.tar.gz', npa: 'file', expect: { protocol: 'file', path: './x.tar.gz' } },
  { spec: './x', npa: 'directory', expect: { protocol: 'path', path: './x' } },
  { spec: '../x.tgz', npa: 'file', expect: { protocol: 'path' } },
  { spec: '/abs/x', npa: 'directory', expect: { protocol: 'path' } },
  { spec: '~/x', npa: 'directory', pnpm: { kind: 'git', because: 'pnpm\'s hosted-git-info takes it for a GitHub user/repo shorthand' } },
  { spec: 'foo/bar/baz', npa: 'directory', expect: { protocol: 'path', path: 'foo/bar/baz' } },
  { spec: 'c:foo', npa: 'directory', expect: { protocol: 'path' } },
  { spec: 'x.tar', npa: 'file', pnpm: { kind: 'registry', because: 'a word encodeURIComponent keeps is a dist-tag to pnpm' } },
  { spec: 'link:../x', npa: 'error', pnpm: { kind: 'local', because: 'link: is pnpm\'s own protocol' }, expect: { protocol: 'link', path: '../x' } },
  // Tarball URLs.
  { spec: 'https://example.com/pkg-1.0.0.tgz', npa: 'remote', expect: { url: 'https://example.com/pkg-1.0.0.tgz' } },
  { spec: 'http://example.com/download?id=1', npa: 'remote' },
  { spec: 'https://github.com/user/repo/archive/v1.tar.gz', npa: 'remote' },
  // Git: hosted shorthands and URLs, refs, semver ranges and subdirectories.
  { spec: 'user/repo', npa: 'git', expect: { git: { hosted: 'github' } } },
  { spec: 'user/repo#v1.0.0', npa: 'git', expect: { git: { hosted: 'github', committish: 'v1.0.0' } } },
  { spec: 'user/repo#semver:^1.0.0', npa: 'git', expect: { git: { hosted: 'github', range: '^1.0.0' } } },
  { spec: 'github:user/repo', npa: 'git', expect: { git: { hosted: 'github' } } },
  { spec: 'github:user/repo#main&path:/packages/a', npa: 'git', expect: { git: { hosted: 'github', committish: 'main', path: '/packages/a' } } },
  { spec: 'github:user/repo#path:/sub&semver:~2.1', npa: 'git', expect: { git: { hosted: 'github', range: '~2.1', path: '/sub' } } },
  { spec: 'gitlab:group/project#0123456789abcdef0123456789abcdef01234567', npa: 'git', expect: { git: { hosted: 'gitlab', committish: '0123456789abcdef0123456789abcdef01234567' } } },
  { spec: 'bitbucket:user/repo#develop', npa: 'git', expect: { git: { hosted: 'bitbucket', committish: 'develop' } } },
  { spec: 'gist:abc123', npa: 'git', expect: { git: { hosted: 'gist' } } },
  { spec: 'https://github.com/user/repo', npa: 'git', expect: { git: { hosted: 'github' } } },
  { spec: 'git+https://github.com/user/repo.git#abc1234', npa: 'git', expect: { git: { hosted: 'github', committish: 'abc1234' } } },
  { spec: 'git+ssh://git@github.com/user/repo.git#v2', npa: 'git', expect: { git: { hosted: 'github', committish: 'v2' } } },
  { spec: 'git@github.com:user/repo.git', npa: 'git', expect: { git: { hosted: 'github' } } },
  { spec: 'git://github.com/user/repo.git#semver:1.x', npa: 'git', expect: { git: { hosted: 'github', range: '1.x' } } },
  { spec: 'git+file:///srv/repos/pkg#v1.0.0', npa: 'git', expect: { git: { url: 'file:///srv/repos/pkg', committish: 'v1.0.0' } } },
  { spec: 'git+https://example.com/team/pkg.git#semver:^1&path:/lib', npa: 'git', expect: { git: { url: 'https://example.com/team/pkg.git', range: '^1', path: '/lib' } } },
  { spec: 'git://example.com/pkg.git', npa: 'git', expect: { git: { url: 'git://example.com/pkg.git' } } },
  { spec: 'git+ssh://git@example.com:team/pkg.git#main', npa: 'git', expect: { git: { url: 'ssh://git@example.com/team/pkg.git', committish: 'main' } } },
  { spec: 'git+ssh://git@example.com:2222/team/pkg.git', npa: 'git', expect: { git: { url: 'ssh://git@example.com:2222/team/pkg.git' } } },
  { spec: 'ssh://git@example.com:2222/pkg.git', npa: 'error', pnpm: { kind: 'git', because: 'pnpm takes ssh: as a git protocol' }, expect: { git: { url: 'ssh://git@example.com:2222/pkg.git' } } },
  { spec: 'https://example.com/team/pkg.git', npa: 'remote', pnpm: { kind: 'git', because: 'pnpm takes an http(s) URL ending in .git for a repository' }, expect: { git: { url: 'https://example.com/team/pkg.git' } } },
  { spec: 'https://example.com/team/pkg.git#v1', npa: 'remote', pnpm: { kind: 'git', because: 'pnpm takes an http(s) URL ending in .git for a repository' }, expect: { git: { url: 'https://example.com/team/pkg.git', committish: 'v1' } } },
  // pnpm's own protocols, and ones lode does not install.
  { spec: 'workspace:*', npa: 'error', pnpm: { kind: 'workspace', because: 'workspace: is pnpm\'s own protocol' } },
  { spec: 'jsr:@std/fs@^1', npa: 'error', pnpm: { kind: 'unsupported', because: 'jsr: is not installed by lode' }, expect: { protocol: 'jsr' } },
  { spec: 'path:../x', npa: 'error', pnpm: { kind: 'unsupported', because: 'pnpm refuses path: too' }, expect: { protocol: 'path' } },
]

function npaType (spec: string): NpaType {
  try {
    return npa.resolve('alias', spec, os.tmpdir()).type as NpaType
  } catch {
    return 'error'
  }
}

/** The parsed spec with the git part reduced to what the table states. */
function comparable (wanted: WantedSpec): Record<string, unknown> {
  if (wanted.kind !== 'git') return { ...wanted }
  const { hosted, url, committish, range, path } = wanted.git
  return {
    ...wanted,
    git: {
      ...(hosted === undefined ? { url } : { hosted: hosted.type }),
      ...(committish === undefined ? {} : { committish }),
      ...(range === undefined ? {} : { range }),
      ...(path === undefined ? {} : { path }),
    },
  }
}

test('specifiers are classified as npm-package-arg classifies them, except where pnpm 11 decides otherwise', () => {
  for (const row of ROWS) {
    assert.equal(npaType(row.spec), row.npa, `npm-package-arg's type for "${row.spec}"`)
    const expected = row.pnpm?.kind ?? KIND_OF[row.npa]
    assert.ok(expected !== undefined, `"${row.spec}": npa refuses it, so the row says what pnpm does`)
    const wanted = parseWantedSpec('alias', row.spec, 'package.json')
    assert.equal(wanted.kind, expected, `"${row.spec}" is ${expected}${row.pnpm === undefined ? '' : ` (${row.pnpm.because})`}`)
    if (row.npa === 'alias' && row.pnpm === undefined) assert.ok(wanted.kind === 'registry' && wanted.aliased, `"${row.spec}" is an alias`)
    if (['version', 'range', 'tag'].includes(row.npa) && row.pnpm === undefined) assert.ok(wanted.kind === 'registry' && wanted.type === row.npa && !wanted.aliased, `"${row.spec}" is a ${row.npa}`)
    const parsed = comparable(wanted)
    for (const [key, value] of Object.entries(row.expect ?? {})) {
      assert.deepEqual(parsed[key], value, `"${row.spec}": ${key}`)
    }
  }
})

test('a git URL that does not parse, and a word that is nothing, are ERR_LODE_INVALID_SPEC naming the specifier', () => {
  assert.throws(() => parseWantedSpec('x', 'git+https://exa mple.com/r.git', 'package.json'), { code: 'ERR_LODE_INVALID_SPEC', message: /"git\+https:\/\/exa mple\.com\/r\.git" is not a valid git URL/ })
  assert.throws(() => parseWantedSpec('x', 'not a spec!', 'package.json'), { code: 'ERR_LODE_INVALID_SPEC', message: /"x@not a spec!" in package\.json/ })
})

test('a specifier classified once is classified the same every time after, under any alias, and each answer is its own object', () => {
  const first = parseWantedSpec('a', '^1.2.0', 'the test')
  const again = parseWantedSpec('b', '^1.2.0', 'the test')
  assert.deepEqual(first, { kind: 'registry', alias: 'a', aliased: false, type: 'range', name: 'a', range: '^1.2.0' })
  assert.deepEqual(again, { kind: 'registry', alias: 'b', aliased: false, type: 'range', name: 'b', range: '^1.2.0' })
  // A caller changing its answer changes no other.
  ;(first as { range: string }).range = 'changed'
  assert.equal((parseWantedSpec('a', '^1.2.0', 'the test') as { range: string }).range, '^1.2.0')
  // Loose versions keep their normalized form; a name that is no tag stays an error.
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(parseWantedSpec('a', 'v1.2.3', 'the test'), { kind: 'registry', alias: 'a', aliased: false, type: 'version', name: 'a', version: '1.2.3' })
    assert.throws(() => parseWantedSpec('a', 'not a tag', 'the test'), /ERR_LODE_INVALID_SPEC|is not a version, range, tag/)
  }
})
