import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { getConfig } from '@lode/pkg-manager.config.settings'
import type { LinkPool } from '@lode/worker.pools'

import { Installer } from '../src/installer.js'

function installerIn (opts: { virtualStore: boolean }): { installer: Installer, dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-installer-'))
  fs.writeFileSync(path.join(dir, 'package.json'), '{}\n')
  if (opts.virtualStore) fs.mkdirSync(path.join(dir, 'node_modules', '.pnpm'), { recursive: true })
  const env = { HOME: path.join(dir, 'home'), XDG_CACHE_HOME: path.join(dir, 'cache'), XDG_DATA_HOME: path.join(dir, 'data') }
  const config = getConfig({ dir, env, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: () => 'http://127.0.0.1:9/' })
  const installer = new Installer({
    config, linking: true, ignoreScripts: undefined, tracePipeline: undefined, signal: undefined, onWarning: () => {},
  })
  return { installer, dir }
}

/** A symlink written by a link thread: the pool it was asked of works. */
async function linkThroughPool (installer: Installer, dir: string, name: string): Promise<void> {
  const link = path.join(dir, name)
  await installer.linkThreads.pool().link({ storeDir: path.join(dir, 'store'), method: 'auto', packages: [], links: [[link, path.join(dir, 'package.json')]] })
  assert.equal(fs.realpathSync(link), fs.realpathSync(path.join(dir, 'package.json')))
}

/** The pool the Installer has started (read afresh: a call to the Installer changes it). */
function started (installer: Installer): LinkPool | undefined {
  return installer.linkThreads.started
}

test('a project without node_modules/.pnpm: the link threads start with the Installer; released, then asked for again, a new pool starts; close() ends every one', async () => {
  const { installer, dir } = installerIn({ virtualStore: false })
  let closed = false
  try {
    const early = started(installer)
    assert.ok(early !== undefined, 'started early: there will be packages to import')
    await linkThroughPool(installer, dir, 'first')
    installer.linkThreads.release()
    assert.equal(started(installer), undefined)
    // The linker released it; its threads end, and the lender refuses new work on it.
    await assert.rejects(early.link({ storeDir: path.join(dir, 'store'), method: 'auto', packages: [] }))
    await linkThroughPool(installer, dir, 'second')
    const later = started(installer)
    assert.ok(later !== undefined && later !== early)
    await installer.close()
    closed = true
    await assert.rejects(later.link({ storeDir: path.join(dir, 'store'), method: 'auto', packages: [] }))
  } finally {
    if (!closed) await installer.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('a project with node_modules/.pnpm: no link thread starts until the linker asks for one', async () => {
  const { installer, dir } = installerIn({ virtualStore: true })
  try {
    assert.equal(started(installer), undefined)
    installer.linkThreads.release()
    assert.equal(started(installer), undefined)
    await linkThroughPool(installer, dir, 'asked')
    assert.ok(started(installer) !== undefined)
  } finally {
    await installer.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
