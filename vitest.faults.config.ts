import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: the kill -9 storm, the hostile-payload fuzz, the Redis Cluster core flows
 * and the Redis failover storms (Sentinel and one endpoint, on redis-server processes the tests
 * start). Slow; CI runs them after `npm test`. `npm run test:faults:failover` runs the storms alone.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
