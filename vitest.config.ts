import { defineConfig } from 'vitest/config';

/**
 * `npm test`: two projects on one pool of 2 workers (the 2-core machine).
 * - `unit` (test/unit, test/integration): files share a worker's module cache (`isolate: false`).
 *   Loading Bolt, BullMQ and the features again for each of ~120 files was most of their run
 *   (import 136 s of 183 s on a loaded machine, 11 s of 45 s without isolation); a test that
 *   depends on module state another file left is a bug of that test; test/unit/shared-module-cache.test.ts
 *   refuses module mocks, stubbed globals and env, process.env writes and fake timers left on there.
 * - `e2e` (test/e2e): each file starts the bot as a separate process; isolated as before.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests spawn the bot as a child process; keep the 2-core machine from being oversubscribed.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] },
      },
    ],
  },
});
