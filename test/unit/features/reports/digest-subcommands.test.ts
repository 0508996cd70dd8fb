import type { Respond } from '../../../../src/platform/slack/respond.js';
import { describe, expect, it } from 'vitest';
import { parseScheduleArgs } from '../../../../src/features/reports/digests/schedule.js';
import { digestSubcommands } from '../../../../src/features/reports/digests/subcommands.js';
import { digestSchedulerId } from '../../../../src/features/reports/digests/store.js';
import { describeSections, takeSectionsOption } from '../../../../src/features/reports/digests/sections.js';
import { helpText } from '../../../../src/features/reports/query.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { arrayLogger } from '../../../helpers/logs.js';

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
    expect(text).toContain("`/docs-visitors subscriptions` (this channel's and those of the channels you're in)");
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
    expect(message).toContain(
      '`/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE] [sections=…]`, for example `/docs-visitors subscribe fri 16:30 Europe/Berlin`; ' +
        '`sections=visitors,searches,feedback,questions` (any of them, comma-separated; default all)',
    );
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
        '`/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE] [sections=…]` starts one (default Mondays at 09:00 UTC, every section).\n' +
        '*Sections:* `sections=visitors,searches,feedback,questions` (any of them, comma-separated; default all).',
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

/** An error as @slack/web-api throws it for a Slack `error` answer. */
const slackError = (code: string) =>
  Object.assign(new Error(`An API error occurred: ${code}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: code },
  });
/** Redis refusing a command, as ioredis rejects. */
const redisDown = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

describe('the digests subcommands when Redis or Slack fails', () => {
  /** A digest queue (BullMQ's scheduler calls) over a map; `fail` names the calls that reject as Redis down. */
  function queueOf(fail: string[] = []) {
    const schedulers = new Map<string, unknown>();
    const calls: string[] = [];
    const call =
      <A extends unknown[], R>(name: string, f: (...a: A) => R) =>
      async (...a: A): Promise<Awaited<R>> => {
        calls.push(name);
        if (fail.includes(name)) throw redisDown();
        return f(...a) as Awaited<R>;
      };
    return {
      schedulers,
      calls,
      getJobScheduler: call('getJobScheduler', (id: string) => schedulers.get(id)),
      upsertJobScheduler: call(
        'upsertJobScheduler',
        (id: string, repeat: { pattern: string; tz: string }, t: { data: unknown }) => {
          schedulers.set(id, { key: id, pattern: repeat.pattern, tz: repeat.tz, template: { data: t.data } });
          return undefined;
        },
      ),
      removeJobScheduler: call('removeJobScheduler', (id: string) => schedulers.delete(id)),
      add: call('add', () => ({ id: 'j1' })),
    };
  }
  function rig(
    o: {
      fail?: string[];
      postMessage?: () => Promise<unknown>;
      give?: () => Promise<void>;
      take?: () => Promise<{ ok: true }>;
    } = {},
  ) {
    const queue = queueOf(o.fail);
    const { logger, lines } = arrayLogger();
    const said: string[] = [];
    const respond = (async (m: { text?: string }) => void said.push(String(m.text))) as Respond;
    const posted: unknown[] = [];
    const gave: string[] = [];
    const d = {
      ...deps(),
      digestQueue: queue as never,
      slack: {
        chat: {
          postMessage: async (a: unknown) => {
            posted.push(a);
            return o.postMessage ? o.postMessage() : { ok: true };
          },
        },
      } as never,
      quotas: {
        manualDigest: {
          take: o.take ?? (async () => ({ ok: true as const })),
          give: async (slot: string) => {
            gave.push(slot);
            if (o.give) await o.give();
          },
        },
        subscriptions: { take: async () => ({ ok: true as const }) },
      },
      logger,
    };
    const run = async (words: string) => {
      const [name = '', ...args] = words.split(' ');
      const res = digestSubcommands(d).prepare(name, args);
      if (!res.ok) throw new Error(res.message);
      await res.run({ teamId: 'T1', channel: 'C1', user: 'U0DANA' }, respond);
    };
    return { queue, lines, said, posted, gave, run };
  }

  it('subscribe when Redis does not answer: the person is told nothing was saved; an error is logged; nothing is posted', async () => {
    for (const fail of ['getJobScheduler', 'upsertJobScheduler']) {
      const r = rig({ fail: [fail] });
      await r.run('subscribe mon 09:00');
      expect(r.said).toEqual([
        "I couldn't save the subscription (the bot's storage did not answer); try again in a moment.",
      ]);
      expect(r.posted).toEqual([]);
      expect(r.lines.filter((l) => l.level === 50)).toEqual([
        expect.objectContaining({ msg: 'could not save a digest subscription' }),
      ]);
    }
  });

  it('subscribe in a channel the bot cannot post in: the subscription is removed again and the person is told to invite the bot', async () => {
    const r = rig({ postMessage: async () => Promise.reject(slackError('not_in_channel')) });
    await r.run('subscribe mon 09:00');
    expect(r.queue.calls).toContain('removeJobScheduler');
    expect(r.queue.schedulers.size).toBe(0);
    expect(r.said).toEqual([
      "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again. No digest was scheduled.",
    ]);
  });

  it('subscribe in an archived channel, or one a workspace setting keeps the bot from posting in: told to use another channel, not to invite the bot', async () => {
    const told: Record<string, string[]> = {};
    for (const code of ['is_archived', 'restricted_action']) {
      const r = rig({ postMessage: async () => Promise.reject(slackError(code)) });
      await r.run('subscribe mon 09:00');
      expect(r.queue.schedulers.size).toBe(0);
      told[code] = r.said;
    }
    expect(told).toEqual({
      is_archived: [
        "This channel is archived, so I can't post in it. Run the command in another channel. No digest was scheduled.",
      ],
      restricted_action: [
        "This channel doesn't let me post (a workspace setting limits who can post here). Run the command in another channel. No digest was scheduled.",
      ],
    });
  });

  it('…and when that removal fails too, the person is still told, and a warning names the channel', async () => {
    const r = rig({
      fail: ['removeJobScheduler'],
      postMessage: async () => Promise.reject(slackError('channel_not_found')),
    });
    await r.run('subscribe mon 09:00');
    expect(r.said).toEqual([expect.stringMatching(/^I can't post in this channel yet\..*No digest was scheduled\.$/)]);
    expect(r.lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({
        channel: 'C1',
        msg: 'could not remove the subscription of a channel the bot cannot post in',
      }),
    ]);
  });

  it('subscribe whose channel notice Slack refuses for another reason keeps the subscription and tells the person privately', async () => {
    const r = rig({ postMessage: async () => Promise.reject(slackError('ratelimited')) });
    await r.run('subscribe mon 09:00');
    expect(r.queue.schedulers.size).toBe(1);
    expect(r.said).toEqual([expect.stringMatching(/^Subscribed: Mondays at 09:00 UTC, all sections\./)]);
  });

  it('unsubscribe when Redis does not answer: the person is told nothing was removed; a warning names the failure', async () => {
    const r = rig({ fail: ['removeJobScheduler'] });
    await r.run('unsubscribe');
    expect(r.said).toEqual([
      "I couldn't remove the subscription (the bot's storage did not answer); try again in a moment.",
    ]);
    expect(r.posted).toEqual([]);
    expect(r.lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({ msg: 'could not remove a digest subscription', err: expect.anything() }),
    ]);
  });

  it('unsubscribe whose channel notice Slack refuses: the person is told privately that it is done', async () => {
    const r = rig({ postMessage: async () => Promise.reject(slackError('is_archived')) });
    r.queue.schedulers.set(digestSchedulerId('T1', 'C1'), {});
    await r.run('unsubscribe');
    expect(r.queue.schedulers.size).toBe(0);
    expect(r.said).toEqual(['Unsubscribed: no more weekly digests here.']);
  });

  it('digest now when it cannot be queued: the slot is given back, the person is told, a warning is logged (also when the give-back fails)', async () => {
    for (const give of [undefined, async () => Promise.reject(redisDown())]) {
      const r = rig({ fail: ['add'], ...(give ? { give } : {}) });
      await r.run('digest');
      expect(r.gave).toHaveLength(1);
      expect(r.said).toEqual([
        "I couldn't queue the digest (the bot's storage did not answer); try again in a moment.",
      ]);
      expect(r.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual(
        give
          ? ['could not queue a digest on request', 'could not give back a manual digest slot']
          : ['could not queue a digest on request'],
      );
    }
  });

  it('digest now when its hourly slot cannot be read: refused (fail closed), nothing queued, the person told, a warning logged', async () => {
    const r = rig({ take: async () => Promise.reject(redisDown()) });
    await r.run('digest');
    expect(r.said).toEqual([
      "I couldn't check how often this was asked (the bot's storage did not answer); try again in a moment.",
    ]);
    expect(r.queue.calls).toEqual([]);
    expect(r.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual(['could not read a digest quota; refused']);
  });
});
