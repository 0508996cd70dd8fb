import { defineConfig } from 'vitest/config';

/** `npm run test:faults`: the kill -9 storm and the hostile-payload fuzz (slow; CI runs them after `npm test`). */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
