import { defineConfig } from 'vitest/config';

/**
 * `npm run bench`: every benchmark in bench/, once, one file at a time. Under vitest.config.ts each
 * of its two projects ran every bench file, and two files ran at once on the 2-core machine, so the
 * figures were taken with another benchmark competing for the CPU.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
