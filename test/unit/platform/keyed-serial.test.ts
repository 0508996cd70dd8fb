import { describe, expect, it } from 'vitest';
import { KeyedSerial } from '../../../src/platform/keyed-serial.js';

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('KeyedSerial (the in-process order of follow-ups to one job)', () => {
  it('runs the tasks of one key one at a time, in the order submitted, even when the first fails; other keys do not wait', async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    const gate = deferred();
    const first = serial.run('job_1', async () => {
      log.push('1 start');
      await gate.promise;
      log.push('1 end');
      throw new Error('docs API down');
    });
    const second = serial.run('job_1', async () => void log.push('2'));
    const other = serial.run('job_2', async () => void log.push('other'));
    await other;
    expect(log).toEqual(['1 start', 'other']); // job_2 ran while job_1's first task waited
    gate.resolve();
    await expect(first).rejects.toThrow('docs API down');
    await second;
    expect(log).toEqual(['1 start', 'other', '1 end', '2']);
  });
});
