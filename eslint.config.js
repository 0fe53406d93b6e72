// Lint: typescript-eslint's type-aware rules, import order, no unused code, and the layers: a
// package imports only from its own tier and the tiers below it (ARCHITECTURE.md), by `import` and `import()`. File cycles
// and package cycles are checked by scripts/check-imports.mjs, which `npm run lint` runs too.
import js from '@eslint/js'
import stylistic from '@stylistic/eslint-plugin'
import { importX } from 'eslint-plugin-import-x'
import tseslint from 'typescript-eslint'

const BUILTINS = { regex: '^(fs|path|os|crypto|child_process|zlib|url|util|http|net|stream|worker_threads)(/|$)', message: 'Use the node: prefix for built-ins.' }

// Which tiers each tier's source may import (`@lode/<tier>.<package>`, in any folder below the
// tier's: `pkg-manager/lockfile/format` is `@lode/pkg-manager.lockfile.format`), bottom first.
// `cli` sits on pkg-manager (core's API and the commands' domain packages), plus the worker entries its bundle names.
const TIERS = {
  core: ['core'],
  fs: ['core', 'fs'],
  store: ['core', 'fs', 'store'],
  worker: ['core', 'fs', 'store', 'worker'],
  resolving: ['core', 'fs', 'resolving'],
  'pkg-manager': ['core', 'fs', 'store', 'worker', 'resolving', 'pkg-manager'],
  cli: ['core', 'pkg-manager'],
}

function layerRules (tier) {
  const allowed = TIERS[tier].join('|')
  const upward = `${tier}/ imports only from ${TIERS[tier].join(', ')} (the layers of ARCHITECTURE.md: never upward).`
  return {
    // import() is an import too: the same layers.
    'no-restricted-syntax': ['error',
      { selector: `ImportExpression > Literal[value=/^@lode\\/(?!(${allowed})\\.)/]`, message: upward },
      ...tier === 'pkg-manager' ? [{ selector: 'ImportExpression > Literal[value=/^@lode\\/pkg-manager\\.core(\\/|$)/]', message: 'pkg-manager/core orchestrates the other packages; none of them imports it.' }] : [],
    ],
    'no-restricted-imports': ['error', {
      patterns: [
        BUILTINS,
        {
          regex: `^@lode/(?!(${allowed})\\.)`,
          message: upward,
        },
        ...tier === 'pkg-manager' ? [{ regex: '^@lode/pkg-manager\\.core(/|$)', message: 'pkg-manager/core orchestrates the other packages; none of them imports it.' }] : [],
      ],
    }],
  }
}

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'toolchain/**', 'bench/.cache/**', 'bench/.work/**', 'bench/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX, '@stylistic': stylistic },
    rules: {
      'import-x/order': ['error', {
        groups: ['builtin', ['external', 'internal'], ['parent', 'sibling', 'index']],
        'newlines-between': 'always',
        alphabetize: { order: 'asc', caseInsensitive: true },
      }],
      'import-x/no-duplicates': 'error',
      'no-restricted-imports': ['error', { patterns: [BUILTINS] }],
      'import-x/no-default-export': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // node:test's test() returns a promise the runner tracks; awaiting it at top level is noise.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', name: ['test', 'describe', 'it'], package: 'node:test' }],
      }],
      'no-unused-private-class-members': 'error',
      'no-unreachable': 'error',
      // Code lines stay readable beside a diff; prose (messages, comments, URLs) may run longer.
      '@stylistic/max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreComments: true, ignoreUrls: true }],
    },
  },
  ...Object.keys(TIERS).map((tier) => ({
    files: [`${tier}/**/src/**/*.ts`],
    rules: layerRules(tier),
  })),
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['eslint.config.js'],
    rules: { 'import-x/no-default-export': 'off' },
  },
)
