import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults:failover`: Redis failovers under load on real redis-server processes
 * (Sentinel SENTINEL FAILOVER and kill -9, a single endpoint re-pointed), two bot replicas each.
 * Kept apart from `npm run test:faults` (and from CI) while they still find intermittent failures
 * (docs/reliability.md "Redis failover").
 */
export default defineConfig({
  test: {
    include: ['test/faults/redis-failover.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 360_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
