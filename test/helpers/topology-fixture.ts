import { afterEach } from 'vitest';
import { RedisTopology } from './redis-topology.js';

/**
 * Redis topologies for the tests of one file, cleaned up after each test: `topology()` starts a
 * fresh {@link RedisTopology}; `closers` are run (newest first, errors ignored) before its
 * processes are killed. Registers vitest's `afterEach`: call it at the top level of a test file.
 */
export function useRedisTopologies(): { topology(): RedisTopology; closers: (() => Promise<unknown>)[] } {
  let topo: RedisTopology | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
    await topo?.stop();
    topo = undefined;
  });
  return { topology: () => (topo = new RedisTopology()), closers };
}
