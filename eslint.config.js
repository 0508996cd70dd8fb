import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import noSilentCatch from './eslint-rules/no-silent-catch.js';

export default tseslint.config(
  // test/fixtures: vendor copies and the planted violations test/unit/layering.test.ts lints on purpose.
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // One feature shape, readable in one sitting: files ≤ 300 lines, functions ≤ 60 (CONTRIBUTING.md "Layering rules").
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  {
    // Code that runs (the bot, the sandbox, scripts, benchmarks): no error dropped without a word (CONTRIBUTING.md).
    files: ['src/**/*.ts', 'sandbox/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    plugins: { local: { rules: { 'no-silent-catch': noSilentCatch } } },
    rules: { 'local/no-silent-catch': 'error' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['sandbox/**', 'test/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
);
