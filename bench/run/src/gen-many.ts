// Writes a workspace of many small projects, each with a few registry dependencies taken from the
// other fixtures (so the mirror already holds their closure) and a few `workspace:` links to
// projects before it. Deterministic: the same files for the same count every time.
//
//   node gen-many.js                 bench/fixtures/many, 120 projects (then make its lockfile; see ../README.md)
//   node gen-many.js <count> <dir>   <count> projects in <dir> (the bench's `many-<count>` fixtures)
import fs from 'node:fs'
import path from 'node:path'

const fixturesDir = path.resolve(import.meta.dirname, '..', '..', '..', 'fixtures')

/** mulberry32: a small seeded PRNG, so the fixture never changes between runs. */
function prng (seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6D2B79F5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function readDeps (manifest: string): Array<[string, string]> {
  const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string>, devDependencies?: Record<string, string> }
  return Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).filter(([, spec]) => !spec.startsWith('workspace:'))
}

/** Writes a workspace of `projects` projects to `out` (replacing it). */
export function generateMany (projects: number, out: string): void {
  // The pool: every registry dependency of the small fixture and the monorepo's projects.
  const pool = new Map<string, string>()
  for (const manifest of [
    path.join(fixturesDir, 'small', 'package.json'),
    ...['packages', 'apps'].flatMap((group) => fs.readdirSync(path.join(fixturesDir, 'monorepo', group)).map((name) => path.join(fixturesDir, 'monorepo', group, name, 'package.json'))),
    path.join(fixturesDir, 'monorepo', 'package.json'),
  ]) {
    for (const [name, spec] of readDeps(manifest)) if (!pool.has(name)) pool.set(name, spec)
  }
  const names = [...pool.keys()].sort()
  const random = prng(1)
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!
  const width = Math.max(3, String(projects - 1).length)
  const dirName = (i: number): string => `p${String(i).padStart(width, '0')}`
  const projectName = (i: number): string => `@many/${dirName(i)}`

  fs.rmSync(out, { recursive: true, force: true })
  for (let i = 0; i < projects; i++) {
    const dependencies: Record<string, string> = {}
    const devDependencies: Record<string, string> = {}
    const count = 2 + Math.floor(random() * 5)
    for (let k = 0; k < count; k++) {
      const name = pick(names)
      if (random() < 0.25) devDependencies[name] = pool.get(name)!
      else dependencies[name] = pool.get(name)!
    }
    for (const name of Object.keys(dependencies)) delete devDependencies[name]
    const links = i === 0 ? 0 : Math.floor(random() * 4)
    for (let k = 0; k < links; k++) dependencies[projectName(Math.floor(random() * i))] = 'workspace:*'
    const sort = (deps: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b)))
    const manifest = {
      name: projectName(i),
      version: '1.0.0',
      private: true,
      main: 'index.js',
      dependencies: sort(dependencies),
      ...(Object.keys(devDependencies).length > 0 ? { devDependencies: sort(devDependencies) } : {}),
    }
    const dir = path.join(out, 'packages', dirName(i))
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')
    fs.writeFileSync(path.join(dir, 'index.js'), `module.exports = ${JSON.stringify(manifest.name)}\n`)
  }
  fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify({ name: 'many', version: '0.0.0', private: true, workspaces: ['packages/*'] }, null, 2) + '\n')
  fs.writeFileSync(path.join(out, 'pnpm-workspace.yaml'), "packages:\n  - 'packages/*'\nminimumReleaseAge: 0\n")
}

if (process.argv[1] === import.meta.filename) {
  const [count, dir] = process.argv.slice(2)
  const projects = count === undefined ? 120 : Number(count)
  const out = dir === undefined ? path.join(fixturesDir, 'many') : path.resolve(dir)
  generateMany(projects, out)
  console.log(`wrote ${projects} projects to ${path.relative(process.cwd(), out)}`)
}
