// Lint: typescript-eslint's type-aware rules, import order, and no unused code.
import js from '@eslint/js'
import { importX } from 'eslint-plugin-import-x'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'toolchain/**', 'bench/.cache/**', 'bench/.work/**', 'bench/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    rules: {
      'import-x/order': ['error', {
        groups: ['builtin', ['external', 'internal'], ['parent', 'sibling', 'index']],
        'newlines-between': 'always',
        alphabetize: { order: 'asc', caseInsensitive: true },
      }],
      'import-x/no-duplicates': 'error',
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(fs|path|os|crypto|child_process|zlib|url|util|http|net|stream|worker_threads)(/|$)', message: 'Use the node: prefix for built-ins.' }] }],
      'import-x/no-default-export': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // node:test's test() returns a promise the runner tracks; awaiting it at top level is noise.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', name: ['test', 'describe', 'it'], package: 'node:test' }],
      }],
      'no-unused-private-class-members': 'error',
      'no-unreachable': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['eslint.config.js'],
    rules: { 'import-x/no-default-export': 'off' },
  },
)
