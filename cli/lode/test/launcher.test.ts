import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

const launcher = path.join(import.meta.dirname, '..', '..', 'bin', 'lode')

/** A copy of bin/lode in a package whose bundle and tsc output each print which one ran. */
function fakePackage (): { dir: string, run: () => string, age: (file: string, seconds: number) => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-launcher-'))
  const write = (file: string, content: string): void => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), content)
  }
  write('bin/lode', fs.readFileSync(launcher, 'utf8'))
  write('package.json', '{"type":"module"}')
  // What bin/lode takes of the entry: main, and the cap on the main thread's young generation.
  for (const kind of ['bundle', 'src']) {
    write(`dist/${kind}/index.js`, `export async function main (argv, ctx) { ctx.stdout.write('${kind}\\n'); return 0 }\nexport function capYoungGeneration () {}\n`)
  }
  return {
    dir,
    run: () => execFileSync(process.execPath, [path.join(dir, 'bin', 'lode')], { encoding: 'utf8' }).trim(),
    age: (file, seconds) => {
      const when = new Date(Date.now() - seconds * 1000)
      fs.utimesSync(path.join(dir, file), when, when)
    },
  }
}

test('bin/lode runs the bundle, unless it is missing or older than tsc\'s last build', () => {
  const pkg = fakePackage()
  assert.equal(pkg.run(), 'bundle', 'no tsc build info (a published package): the bundle')

  fs.writeFileSync(path.join(pkg.dir, 'dist', 'tsconfig.tsbuildinfo'), '{}')
  pkg.age('dist/tsconfig.tsbuildinfo', 60)
  assert.equal(pkg.run(), 'bundle', 'built after tsc')

  pkg.age('dist/bundle/index.js', 120)
  assert.equal(pkg.run(), 'src', 'tsc ran since the bundle was built: its output')

  fs.rmSync(path.join(pkg.dir, 'dist', 'bundle'), { recursive: true })
  assert.equal(pkg.run(), 'src', 'no bundle: tsc\'s output')
})
