import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/faults/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests spawn the bot as a child process; keep the 2-core machine from being oversubscribed.
    maxWorkers: 2,
  },
});
