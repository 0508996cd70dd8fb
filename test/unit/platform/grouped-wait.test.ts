import { describe, expect, it } from 'vitest';
import { GroupedWait } from '../../../src/platform/grouped-wait.js';

/** A stand-in for Redis' WAIT: each call is held until the test answers it (or fails it). */
function fakeWait() {
  const calls: { resolve: (n: number) => void; reject: (e: Error) => void }[] = [];
  const send = () => new Promise<number>((resolve, reject) => void calls.push({ resolve, reject }));
  return { calls, send };
}

/** Lets what is pending run: promise jobs and a few turns of the event loop (the next WAIT goes out on one). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}

describe('GroupedWait (REDIS_WAIT_REPLICAS: the WAITs of concurrent records)', () => {
  it('sends at most one WAIT at a time: callers that come while one is in flight share the next one, and each gets its reply', async () => {
    const { calls, send } = fakeWait();
    const grouped = new GroupedWait(send);
    const first = grouped.wait();
    await settle();
    expect(calls).toHaveLength(1);
    const later = [grouped.wait(), grouped.wait(), grouped.wait()];
    await settle();
    expect(calls).toHaveLength(1); // still the one in flight: the three wait behind it, together
    calls[0]!.resolve(1);
    expect(await first).toBe(1);
    await settle();
    expect(calls).toHaveLength(2); // one WAIT for the three
    calls[1]!.resolve(0);
    expect(await Promise.all(later)).toEqual([0, 0, 0]);
    await settle();
    expect(calls).toHaveLength(2); // nobody waiting: nothing more sent
  });

  it('a WAIT that fails fails every caller of its group; the next group still gets its own', async () => {
    const { calls, send } = fakeWait();
    const grouped = new GroupedWait(send);
    const first = grouped.wait();
    await settle();
    const group = [grouped.wait(), grouped.wait()];
    calls[0]!.resolve(1);
    await first;
    await settle();
    calls[1]!.reject(new Error('Command timed out'));
    for (const p of group) await expect(p).rejects.toThrow('Command timed out');
    const after = grouped.wait();
    await settle();
    expect(calls).toHaveLength(3);
    calls[2]!.resolve(1);
    expect(await after).toBe(1);
  });
});
