import fs from 'node:fs'
import path from 'node:path'

export interface Fixture {
  name: string
  dir: string
  /** The fixture's pnpm-lock.yaml, the lockfile the pnpm-compatible tools start from. */
  lockfile: string
  /** The directories with a package.json, relative to the fixture: `.` and the workspace projects. */
  projects: string[]
}

export function loadFixture (fixturesDir: string, name: string): Fixture {
  const dir = path.join(fixturesDir, name)
  const lockfile = path.join(dir, 'pnpm-lock.yaml')
  if (!fs.existsSync(path.join(dir, 'package.json')) || !fs.existsSync(lockfile)) {
    throw new Error(`no fixture ${name}: ${dir} needs a package.json and a pnpm-lock.yaml (fixtures: ${listFixtures(fixturesDir).join(', ')})`)
  }
  return { name, dir, lockfile, projects: projectDirs(dir) }
}

export function listFixtures (fixturesDir: string): string[] {
  return fs.readdirSync(fixturesDir).filter((name) => fs.existsSync(path.join(fixturesDir, name, 'pnpm-lock.yaml'))).sort()
}

function projectDirs (root: string): string[] {
  const found: string[] = []
  const walk = (rel: string): void => {
    const abs = path.join(root, rel)
    if (fs.existsSync(path.join(abs, 'package.json'))) found.push(rel === '' ? '.' : rel)
    for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(path.join(rel, entry.name))
    }
  }
  walk('')
  return found
}

/** Copies the fixture's manifests (not its lockfile) into `project`, replacing what was there. */
export function copyFixture (fixture: Fixture, project: string, registry: string): void {
  fs.rmSync(project, { recursive: true, force: true })
  fs.cpSync(fixture.dir, project, { recursive: true, filter: (src) => path.basename(src) !== 'pnpm-lock.yaml' && path.basename(src) !== 'node_modules' })
  // Every tool reads .npmrc (bun too); the mirror is the only registry a run can reach.
  fs.writeFileSync(path.join(project, '.npmrc'), `registry=${registry}\n`)
}
