import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { test } from 'node:test'

import type { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm, readLockfileText } from './helpers.js'
import type { Project } from './helpers.js'

// Opt-in (LODE_REAL_REGISTRY=1): pnpm 11's scenarios that need real packages (huge graphs, many
// circular dependencies and peers), run on lode and pnpm 11 beside each other against the registry
// this machine is configured with (`npm config get registry`), at the same minute: the same
// pnpm-lock.yaml, byte for byte. CI never runs them (it talks to no public registry).

const OPT_IN = process.env['LODE_REAL_REGISTRY'] === undefined ? 'opt-in: set LODE_REAL_REGISTRY=1 to run against the configured registry' : false

function configuredRegistry (): TestRegistry {
  const url = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim()
  // makeProject reads only the registry's URL.
  return { url: url.endsWith('/') ? url : `${url}/` } as unknown as TestRegistry
}

/** The machine's certificate authorities (a proxy may sign the registry's answers), kept in the tools' isolated environment. */
const MACHINE_ENV: Record<string, string> = process.env['NODE_EXTRA_CA_CERTS'] === undefined ? {} : { NODE_EXTRA_CA_CERTS: process.env['NODE_EXTRA_CA_CERTS'] }

/** The same command on copies of one project: both succeed, and write the same pnpm-lock.yaml. */
async function both (
  manifest: Record<string, unknown>,
  args: string[],
  files: Record<string, string> = {}
): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const pnpmProject = makeProject(configuredRegistry(), manifest, files)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, args, false, MACHINE_ENV)
  const result = await lode(lodeProject, args, MACHINE_ENV)
  assert.equal(result.code, 0, result.stderr)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  return { pnpmProject, lodeProject }
}

const EMPTY = { name: 'project', version: '0.0.0' }
// Their packages' install scripts (core-js's) are left unbuilt, as pnpm's tests leave them.
const NO_BUILDS = { 'pnpm-workspace.yaml': 'strictDepBuilds: false\n' }

test('webpack@4.46.0 (many circular dependencies) with autoInstallPeers', { skip: OPT_IN }, async () => {
  await both(EMPTY, ['add', 'webpack@4.46.0', '--lockfile-only'])
})

// pnpm's projects (project2 without preact-particles, which was unpublished).
const ANGULAR_PROJECT = {
  name: 'project1',
  dependencies: {
    '@angular/common': '14.2.4',
    '@angular/core': '14.2.4',
    '@angular/forms': '14.2.4',
    '@angular/platform-browser': '14.2.4',
    '@angular/platform-browser-dynamic': '14.2.4',
    '@angular/router': '14.2.4',
    '@capacitor/app': '4.0.1',
    '@capacitor/core': '4.3.0',
    '@capacitor/haptics': '4.0.1',
    '@capacitor/keyboard': '4.0.1',
    '@capacitor/status-bar': '4.0.1',
    '@ionic/angular': '6.2.9',
    '@ionic/core': '6.2.9',
    ionicons: '6.0.3',
    'ng-particles': '3.3.3',
    rxjs: '7.5.7',
    tslib: '2.4.0',
    tsparticles: '2.3.4',
    'tsparticles-engine': '2.3.3',
    'tsparticles-interaction-external-attract': '2.3.3',
    'tsparticles-interaction-external-bounce': '2.3.3',
    'tsparticles-interaction-external-bubble': '2.3.3',
    'tsparticles-interaction-external-connect': '2.3.3',
    'tsparticles-interaction-external-grab': '2.3.3',
    'tsparticles-interaction-external-pause': '2.3.3',
    'tsparticles-interaction-external-push': '2.3.3',
    'tsparticles-interaction-external-remove': '2.3.3',
    'tsparticles-interaction-external-repulse': '2.3.4',
    'tsparticles-interaction-external-slow': '2.3.3',
    'tsparticles-interaction-external-trail': '2.3.3',
    'tsparticles-interaction-particles-attract': '2.3.3',
    'tsparticles-interaction-particles-collisions': '2.3.3',
    'tsparticles-interaction-particles-links': '2.3.3',
    'tsparticles-move-base': '2.3.3',
    'tsparticles-move-parallax': '2.3.3',
    'tsparticles-particles.js': '2.3.3',
    'tsparticles-plugin-absorbers': '2.3.4',
    'tsparticles-plugin-emitters': '2.3.4',
    'tsparticles-plugin-polygon-mask': '2.3.3',
    'tsparticles-shape-circle': '2.3.3',
    'tsparticles-shape-image': '2.3.3',
    'tsparticles-shape-line': '2.3.3',
    'tsparticles-shape-polygon': '2.3.3',
    'tsparticles-shape-square': '2.3.3',
    'tsparticles-shape-star': '2.3.3',
    'tsparticles-shape-text': '2.3.3',
    'tsparticles-slim': '2.3.4',
    'tsparticles-updater-angle': '2.3.3',
    'tsparticles-updater-color': '2.3.3',
    'tsparticles-updater-destroy': '2.3.3',
    'tsparticles-updater-life': '2.3.3',
    'tsparticles-updater-opacity': '2.3.3',
    'tsparticles-updater-out-modes': '2.3.3',
    'tsparticles-updater-roll': '2.3.3',
    'tsparticles-updater-size': '2.3.3',
    'tsparticles-updater-stroke-color': '2.3.3',
    'tsparticles-updater-tilt': '2.3.3',
    'tsparticles-updater-twinkle': '2.3.3',
    'tsparticles-updater-wobble': '2.3.3',
    'zone.js': '0.11.8',
  },
  devDependencies: {
    '@angular-devkit/build-angular': '14.2.4',
    '@angular-eslint/builder': '14.1.2',
    '@angular-eslint/eslint-plugin': '14.1.2',
    '@angular-eslint/eslint-plugin-template': '14.1.2',
    '@angular-eslint/template-parser': '14.1.2',
    '@angular/cli': '14.2.4',
    '@angular/compiler': '14.2.4',
    '@angular/compiler-cli': '14.2.4',
    '@angular/language-service': '14.2.4',
    '@capacitor/cli': '4.3.0',
    '@ionic/angular-toolkit': '7.0.0',
    '@types/jasmine': '4.3.0',
    '@types/jasminewd2': '2.0.10',
    '@types/node': '18.7.23',
    '@typescript-eslint/eslint-plugin': '5.38.1',
    '@typescript-eslint/parser': '5.38.1',
    eslint: '8.24.0',
    'eslint-plugin-import': '2.26.0',
    'eslint-plugin-jsdoc': '39.3.6',
    'eslint-plugin-prefer-arrow': '1.2.3',
    'jasmine-core': '4.4.0',
    'jasmine-spec-reporter': '7.0.0',
    karma: '6.4.1',
    'karma-chrome-launcher': '3.1.1',
    'karma-coverage': '2.2.0',
    'karma-coverage-istanbul-reporter': '3.0.3',
    'karma-jasmine': '5.1.0',
    'karma-jasmine-html-reporter': '2.0.0',
    protractor: '7.0.0',
    'ts-node': '10.9.1',
    typescript: '4.8.4',
  },
}
const PREACT_PROJECT = {
  name: 'project2',
  dependencies: {
    preact: '10.11.0',
    'preact-render-to-string': '5.2.4',
    'preact-router': '4.1.0',
    tsparticles: '2.3.4',
    'tsparticles-engine': '2.3.3',
  },
  devDependencies: {
    '@typescript-eslint/eslint-plugin': '5.38.1',
    '@typescript-eslint/parser': '5.38.1',
    copyfiles: '2.4.1',
    enzyme: '3.11.0',
    'enzyme-adapter-preact-pure': '4.0.1',
    eslint: '8.24.0',
    'eslint-config-preact': '1.3.0',
    'eslint-config-prettier': '8.5.0',
    'eslint-plugin-react-hooks': '4.6.0',
    'identity-obj-proxy': '3.0.0',
    'preact-cli': '3.4.1',
    prettier: '2.7.1',
    'sirv-cli': '2.0.2',
  },
}

test('a workspace of Angular, Ionic and Preact projects (many circular dependencies), autoInstallPeers, --lockfile-only', { skip: OPT_IN }, async () => {
  await both({ name: 'root', version: '0.0.0', private: true }, ['install', '--lockfile-only'], {
    'pnpm-workspace.yaml': 'packages:\n  - project1\n  - project2\nstrictPeerDependencies: false\n',
    'project1/package.json': JSON.stringify(ANGULAR_PROJECT),
    'project2/package.json': JSON.stringify(PREACT_PROJECT),
  })
})

test('an auto-installed peer does not replace a direct dependency\'s version (rxjs 6 beside jest-preset-angular)', { skip: OPT_IN }, async () => {
  const { lodeProject } = await both({ ...EMPTY, dependencies: { rxjs: '6.6.7' }, devDependencies: { 'jest-preset-angular': '12.0.1' } }, ['install', '--lockfile-only'])
  assert.match(readLockfileText(lodeProject), /\n {6}rxjs:\n {8}specifier: 6\.6\.7\n {8}version: 6\.6\.7\n/)
})

test('babel-preset-es2015@6.3.13 (a big graph with cycles) installs and loads', { skip: OPT_IN }, async () => {
  const { lodeProject } = await both(EMPTY, ['add', 'babel-preset-es2015@6.3.13'], NO_BUILDS)
  assert.equal(typeof createRequire(path.join(lodeProject.dir, 'package.json'))('babel-preset-es2015'), 'object')
})

for (const pkg of ['@teambit/bit@0.0.30', '@teambit/react@0.0.30']) {
  test(`${pkg} (a huge graph with many peers), --lockfile-only`, { skip: OPT_IN }, async () => {
    await both(EMPTY, ['add', pkg, '--lockfile-only'], { 'pnpm-workspace.yaml': 'strictPeerDependencies: false\n' })
  })
}

test('@medusajs/medusa-js@6.1.7 (circular peers) installs', { skip: OPT_IN }, async () => {
  const { lodeProject } = await both(EMPTY, ['add', '@medusajs/medusa-js@6.1.7'], NO_BUILDS)
  assert.ok(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '@medusajs', 'medusa-js', 'package.json')))
})

test('a workspace whose peer comes from a link: among many circular dependencies (@bryntum), --lockfile-only', { skip: OPT_IN }, async () => {
  const siesta = { '@bryntum/siesta': '6.0.0-beta-1' }
  await both({ name: 'root', version: '0.0.0', private: true }, ['install', '--lockfile-only'], {
    'pnpm-workspace.yaml': 'packages:\n  - chained-iterator\n  - chronograph\n  - typescript-mixin-class\n',
    'chained-iterator/package.json': JSON.stringify({ name: 'chained-iterator', version: '0.0.4', dependencies: siesta }),
    'chronograph/package.json': JSON.stringify({
      name: '@bryntum/chronograph',
      version: '2.0.3',
      dependencies: { ...siesta, 'typescript-serializable-mixin': '0.0.3', 'typescript-mixin-class': 'link:../typescript-mixin-class' },
    }),
    'typescript-mixin-class/package.json': JSON.stringify({ name: 'typescript-mixin-class', version: '0.0.3', dependencies: siesta }),
  })
})
