import { describe, expect, it } from 'vitest';
import { removeInstallationSubscriptions, type DigestJobData } from '../../../../src/features/reports/digests/store.js';

/**
 * An uninstall reads the digest schedulers page by page in next-run order (BullMQ's
 * `getJobSchedulers(start, end, asc)`): a schedule that runs during the walk moves to the end and
 * shifts every later one a place earlier, so the one at the next page's first place is read by
 * neither page. The walk is made again until it saw each scheduler once.
 */

interface FakeScheduler {
  key: string;
  id: string;
  template: { data: DigestJobData };
}

/** A BullMQ queue's schedulers in next-run order; `onRead(start)` runs before each page is read. */
function fakeQueue(schedulers: FakeScheduler[], onRead: (start: number, list: FakeScheduler[]) => void) {
  const list = [...schedulers];
  return {
    list,
    getJobSchedulersCount: async () => list.length,
    getJobSchedulers: async (start: number, end: number) => {
      onRead(start, list);
      return list.slice(start, end + 1);
    },
    removeJobScheduler: async (id: string) => {
      const i = list.findIndex((s) => s.id === id);
      if (i < 0) return false;
      list.splice(i, 1);
      return true;
    },
  };
}

const scheduler = (teamId: string, channel: string): FakeScheduler => ({
  key: `digest-${teamId}-${channel}`,
  id: `digest-${teamId}-${channel}`,
  template: { data: { teamId, channel, requestedBy: 'U0ADMIN' } },
});

describe("an uninstall's walk over the digest schedulers", () => {
  it('finds the subscription a schedule running mid-walk pushed past the page boundary', async () => {
    // 1,200 schedulers of other workspaces, the uninstalled workspace's at place 1,000 (page 3's first).
    const all = Array.from({ length: 1_200 }, (_, i) => scheduler(`T0OTHER${i}`, 'C0ONE'));
    all[1_000] = scheduler('T0GONE', 'C0ONE');
    let fired = false;
    const queue = fakeQueue(all, (start, list) => {
      // While page 3 is about to be read, the schedule at place 10 runs and moves to the end.
      if (start === 1_000 && !fired) {
        fired = true;
        list.push(...list.splice(10, 1));
      }
    });
    const result = await removeInstallationSubscriptions(queue as never, 'team:T0GONE');
    expect(result).toEqual({ removed: 1, capped: false });
    expect(queue.list.map((s) => s.id)).not.toContain('digest-T0GONE-C0ONE');
    expect(queue.list).toHaveLength(1_199);
  });

  it('reads each page once when nothing moves', async () => {
    const all = Array.from({ length: 1_200 }, (_, i) => scheduler(i % 2 ? 'T0GONE' : `T0OTHER${i}`, `C0${i}`));
    const starts: number[] = [];
    const queue = fakeQueue(all, (start) => starts.push(start));
    expect(await removeInstallationSubscriptions(queue as never, 'team:T0GONE')).toEqual({
      removed: 600,
      capped: false,
    });
    expect(starts).toEqual([0, 500, 1_000]);
  });

  it('stops after three walks when the schedulers keep moving, and says some may be left', async () => {
    const all = Array.from({ length: 1_200 }, (_, i) => scheduler(`T0OTHER${i}`, 'C0ONE'));
    all[1_000] = scheduler('T0GONE', 'C0ONE');
    const starts: number[] = [];
    // Before every third page, a schedule runs and moves to the end: no walk sees each one once.
    const queue = fakeQueue(all, (start, list) => {
      starts.push(start);
      if (start === 1_000) list.push(...list.splice(10, 1));
    });
    const result = await removeInstallationSubscriptions(queue as never, 'team:T0GONE');
    expect(starts).toHaveLength(9);
    expect(result.capped).toBe(true);
  });
});
