import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import noErrorClassDecision from './eslint-rules/no-error-class-decision.js';
import noSilentCatch from './eslint-rules/no-silent-catch.js';

/** The project's own rules (eslint-rules/). */
const local = { rules: { 'no-silent-catch': noSilentCatch, 'no-error-class-decision': noErrorClassDecision } };

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
    plugins: { local },
    rules: { 'local/no-silent-catch': 'error' },
  },
  {
    // The bot decides on errors by their codes, never their classes (src/platform/errors.ts, CONTRIBUTING.md).
    files: ['src/**/*.ts'],
    plugins: { local },
    rules: { 'local/no-error-class-decision': 'error' },
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
