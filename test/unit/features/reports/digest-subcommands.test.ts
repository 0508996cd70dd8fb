import type { Respond } from '../../../../src/platform/slack/respond.js';
import { describe, expect, it } from 'vitest';
import { parseScheduleArgs } from '../../../../src/features/reports/digests/schedule.js';
import { digestSubcommands } from '../../../../src/features/reports/digests/subcommands.js';
import { describeSections, takeSectionsOption } from '../../../../src/features/reports/digests/sections.js';
import { helpText } from '../../../../src/features/reports/query.js';
import { createLogger } from '../../../../src/platform/logger.js';

const defaults = { pattern: '0 9 * * 1', tz: 'UTC' };
const deps = (schedule = defaults) => ({
  digestQueue: undefined as never,
  slack: { chat: { postMessage: async () => ({ ok: true }) } } as never,
  defaultSchedule: schedule,
  quotas: {
    manualDigest: { take: async () => ({ ok: true as const }), give: async () => undefined },
    subscriptions: { take: async () => ({ ok: true as const }) },
  },
  conversations: { membershipsOf: async () => new Map() },
  logger: createLogger('silent'),
  now: () => 0,
});
const sub = (schedule = defaults) => digestSubcommands(deps(schedule));
const prepare = (words: string) => {
  const [name = '', ...args] = words.split(/\s+/);
  return sub().prepare(name, args);
};

describe('the digests subcommands of /docs-visitors', () => {
  it('help names the default schedule and the subscribe syntax', () => {
    const s = sub();
    const text = helpText(s.helpLines, s.examples);
    expect(text).toContain('Mondays at 09:00 UTC');
    expect(text).toContain('subscribe [DAY] [HH:MM] [TIME_ZONE]');
    expect(s.names).toEqual(['subscribe', 'unsubscribe', 'subscriptions', 'digest']);
  });

  it('unsubscribe, subscriptions and digest take no arguments', () => {
    for (const name of ['unsubscribe', 'subscriptions', 'digest']) expect(prepare(name).ok).toBe(true);
    const refused = prepare('digest now');
    expect(refused.ok).toBe(false);
    expect((refused as { message: string }).message).toContain('`digest` takes no arguments');
  });

  it('subscribe with no arguments uses DIGEST_CRON and DIGEST_TZ', () => {
    expect(parseScheduleArgs([], { pattern: '*/2 * * * * *', tz: 'Europe/Berlin' })).toEqual({
      ok: true,
      schedule: { pattern: '*/2 * * * * *', tz: 'Europe/Berlin' },
    });
    expect(sub({ pattern: '*/2 * * * * *', tz: 'Europe/Berlin' }).prepare('subscribe', []).ok).toBe(true);
  });

  it('subscribe with a day, a time and a time zone, in any order', () => {
    const parse = (text: string) => parseScheduleArgs(text.split(' '), defaults);
    expect(parse('fri 16:30 Europe/Berlin')).toEqual({
      ok: true,
      schedule: { pattern: '30 16 * * 5', tz: 'Europe/Berlin' },
    });
    expect(parse('asia/tokyo 7am Tuesday')).toEqual({ ok: true, schedule: { pattern: '0 7 * * 2', tz: 'Asia/Tokyo' } });
    expect(parse('sunday')).toEqual({ ok: true, schedule: { pattern: '0 9 * * 0', tz: 'UTC' } });
    expect(parse('5:45pm')).toEqual({ ok: true, schedule: { pattern: '45 17 * * 1', tz: 'UTC' } });
    expect(parse('America/New_York')).toEqual({ ok: true, schedule: { pattern: '0 9 * * 1', tz: 'America/New_York' } });
  });

  it.each([
    ['subscribe funday', "I don't understand `funday`"],
    ['subscribe 25:00', '`25:00` is not a time of day'],
    ['subscribe Mars/Olympus_Mons', '`Mars/Olympus_Mons` is not a time zone I know'],
    ['subscribe mon tue', 'Give one day only'],
    ['subscribe 09:00 10:00', 'Give one time only'],
  ])('%s is refused before the ack: %s', (text, problem) => {
    const res = prepare(text);
    expect(res.ok).toBe(false);
    const message = (res as { message: string }).message;
    expect(message).toContain(problem);
    expect(message).toContain('/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE]');
  });

  it('subscribe sections=…: the option anywhere among the words; a section that does not exist is refused before the ack', () => {
    expect(takeSectionsOption(['mon', 'sections=questions,Feedback', '09:00'])).toEqual({
      ok: true,
      rest: ['mon', '09:00'],
      sections: ['feedback', 'questions'],
    });
    expect(takeSectionsOption(['mon'])).toEqual({ ok: true, rest: ['mon'] });
    expect(prepare('subscribe fri sections=searches').ok).toBe(true);
    for (const [words, problem] of [
      ['subscribe sections=charts', '`charts` is not a digest section'],
      ['subscribe sections=', 'name at least one section'],
      ['subscribe sections=searches sections=feedback', 'Give `sections=` once'],
    ] as const) {
      const res = prepare(words);
      expect(res.ok).toBe(false);
      expect((res as { message: string }).message).toContain(problem);
      expect((res as { message: string }).message).toContain('`sections=visitors,searches,feedback,questions`');
    }
    expect(describeSections(['questions'])).toBe('only unanswered questions that recur');
    expect(describeSections(undefined)).toBe('all sections');
  });

  it('digest (send one now) says whether the channel has a weekly digest; without one, how to start one', async () => {
    const said: string[] = [];
    const respond = (async (m: { text?: string }) => void said.push(String(m.text))) as Respond;
    const added: unknown[] = [];
    const queueWith = (scheduler: unknown) => ({
      getJobScheduler: async () => scheduler,
      add: async (_name: string, data: unknown) => void added.push(data),
    });
    const subscribed = {
      key: 'k',
      pattern: '0 9 * * 1',
      tz: 'Europe/Berlin',
      template: { data: { teamId: 'T1', channel: 'C1', requestedBy: 'U0DANA' } },
    };
    for (const scheduler of [undefined, subscribed]) {
      const s = digestSubcommands({ ...deps(), digestQueue: queueWith(scheduler) as never });
      const res = s.prepare('digest', []);
      if (!res.ok) throw new Error('expected ok');
      await res.run({ teamId: 'T1', channel: 'C1', user: 'U1' }, respond);
    }
    expect(said).toEqual([
      ":hourglass_flowing_sand: Sending this channel's digest now, once: this channel has no weekly digest. " +
        '`/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE]` starts one (default Mondays at 09:00 UTC).',
      ":hourglass_flowing_sand: Sending this channel's digest now, once more (its weekly schedule doesn't change).",
    ]);
    expect(added).toHaveLength(2);
  });

  it('a prepared subcommand runs only when called (after the ack)', async () => {
    const said: string[] = [];
    const respond = (async (m: { text?: string }) => void said.push(String(m.text))) as Respond;
    const res = prepare('subscriptions');
    expect(said).toEqual([]);
    if (!res.ok) throw new Error('expected ok');
    // digestQueue is missing here: the run fails like a storage outage, and says so.
    await res.run({ teamId: 'T1', channel: 'C1', user: 'U1' }, respond);
    expect(said[0]).toContain("I couldn't read the subscriptions (my storage or Slack did not answer)");
  });
});
