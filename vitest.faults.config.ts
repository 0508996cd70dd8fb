import { defineConfig } from 'vitest/config';

/** `npm run test:faults`: the kill -9 storm, the hostile-payload fuzz and the Redis Cluster core flows (slow; CI runs them after `npm test`). */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    // The Redis failover storms run on their own (npm run test:faults:failover; vitest.failover.config.ts).
    exclude: ['test/faults/redis-failover.test.ts', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
