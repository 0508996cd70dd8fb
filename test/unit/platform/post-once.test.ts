import { describe, expect, it, vi } from 'vitest';
import { handleIncomingMessage, MENTION_HELP, type MessageDeps } from '../../../src/features/agent-jobs/messages.js';
import { UnreplicatedStepError } from '../../../src/platform/replica-guard.js';
import { POST_ONCE_EVENT_TYPE, postOnce, type PostOnceClient, type Steps } from '../../../src/platform/steps.js';
import { arrayLogger } from '../../helpers/logs.js';

/**
 * postOnce is given the request's receipt time everywhere (so a late retry never posts twice): a late retry of
 * an intake (BullMQ backs off for minutes) looks for what an earlier try posted from the receipt
 * time, not from "now", so it finds it instead of posting twice.
 */

const RECEIVED = Date.UTC(2026, 10, 24, 9, 0);
const LATE = RECEIVED + 10 * 60_000; // the retry runs 10 minutes later

/** A thread whose messages conversations.replies returns from `oldest` (s) on, as Slack does. */
function fakeSlack() {
  const posted: { ts: string; text: string; metadata?: unknown }[] = [];
  let clock = RECEIVED;
  const slack = {
    chat: {
      postMessage: vi.fn(async (args: { text: string; metadata?: unknown }) => {
        const ts = `${clock / 1000}.000100`;
        posted.push({ ts, text: args.text, metadata: args.metadata });
        return { ok: true, ts };
      }),
      postEphemeral: vi.fn(async () => ({ ok: true })),
    },
    conversations: {
      replies: vi.fn(async (args: { oldest?: string }) => ({
        ok: true,
        messages: posted.filter((m) => Number(m.ts) >= Number(args.oldest ?? 0)),
      })),
      history: vi.fn(async () => ({ ok: true, messages: [] })),
    },
  };
  return { slack, posted, setClock: (t: number) => void (clock = t) };
}

function steps(progress: Record<string, unknown>, finalAttempt = false): Steps {
  return { progress, save: async (patch) => void Object.assign(progress, patch), finalAttempt };
}

describe('postOnce gets the receipt time', () => {
  it('an @mention without an instruction: a retry 10 minutes after a crash between post and save finds the help reply instead of posting it again', async () => {
    const { slack, posted, setClock } = fakeSlack();
    const deps = {
      store: { findByThread: async () => undefined },
      slack,
      logger: arrayLogger().logger,
      now: () => LATE,
      ignorePrefix: '!aside',
    } as unknown as MessageDeps;
    const msg = {
      teamId: 'T1',
      channel: 'C1',
      user: 'U0ALICE',
      text: '<@U0BOT>',
      ts: `${RECEIVED / 1000}.000001`,
      viaMention: true,
    };
    const progress: Record<string, unknown> = {};
    // First try: posts, then "crashes" before saving the ts (the posting mark is saved first).
    await handleIncomingMessage(deps, msg, 'U0BOT', steps(progress), { key: 'intake-1', receivedAt: RECEIVED });
    expect(posted).toHaveLength(1);
    delete progress['intake-1:help:ts'];
    setClock(LATE);
    await handleIncomingMessage(deps, msg, 'U0BOT', steps(progress), { key: 'intake-1', receivedAt: RECEIVED });
    expect(posted.map((m) => m.text)).toEqual([MENTION_HELP]);
    expect(posted[0]!.metadata).toEqual({ event_type: POST_ONCE_EVENT_TYPE, event_payload: { key: 'intake-1:help' } });
    expect(slack.conversations.replies).toHaveBeenCalledWith(
      expect.objectContaining({ oldest: String(RECEIVED / 1000 - 60) }),
    );
  });
});

describe('postOnce before a failover (REDIS_WAIT_REPLICAS)', () => {
  it('posts only once the posting mark is confirmed on the replicas; an unconfirmed mark posts nothing, and the retry posts once', async () => {
    const { slack, posted } = fakeSlack();
    const progress: Record<string, unknown> = {};
    const confirm = vi.fn(async (_what: string) => {
      throw new UnreplicatedStepError('the primary has fewer replicas than a moment ago (a failover may be under way)');
    });
    const save = async (patch: Record<string, unknown>) => void Object.assign(progress, patch);
    const first: Steps = { progress, save, finalAttempt: false, confirm };
    const m = { channel: 'C1', thread_ts: '1.000001', text: 'hello', key: 'intake-2:note', since: RECEIVED };
    const client = slack as unknown as PostOnceClient;
    await expect(postOnce(client, first, m)).rejects.toBeInstanceOf(UnreplicatedStepError);
    expect(confirm).toHaveBeenCalledWith('intake-2:note');
    expect(posted).toEqual([]);

    const retry: Steps = { ...first, confirm: async () => undefined };
    expect(await postOnce(client, retry, m)).toBe(posted[0]!.ts);
    expect(posted).toHaveLength(1);
  });
});

describe('postOnce on the last try', () => {
  /** chat.postMessage that delivers the message, then fails as a timeout after delivery would. */
  function deliveredThenTimedOut() {
    const { slack, posted } = fakeSlack();
    const deliver = slack.chat.postMessage;
    slack.chat.postMessage = vi.fn(async (args: { text: string; metadata?: unknown }) => {
      await deliver(args);
      throw Object.assign(new Error('A request error occurred: timeout'), { code: 'slack_webapi_request_error' });
    });
    return { slack, posted };
  }
  const m = {
    channel: 'C1',
    thread_ts: `${RECEIVED / 1000}.000001`,
    text: 'hello',
    key: 'intake-3:note',
    since: RECEIVED,
  };

  it('a post that failed after Slack delivered it is found by its metadata: its ts returned and saved, not posted again', async () => {
    const { slack, posted } = deliveredThenTimedOut();
    const progress: Record<string, unknown> = {};
    const ts = await postOnce(slack as unknown as PostOnceClient, steps(progress, true), m);
    expect(posted).toHaveLength(1);
    expect(ts).toBe(posted[0]!.ts);
    expect(progress['intake-3:note:ts']).toBe(ts);
  });

  it('before the last try the error is thrown (the retry finds it); a post Slack refused is never looked for', async () => {
    const { slack } = deliveredThenTimedOut();
    await expect(postOnce(slack as unknown as PostOnceClient, steps({}, false), m)).rejects.toThrow('timeout');
    expect(slack.conversations.replies).not.toHaveBeenCalled();
    const refused = fakeSlack().slack;
    refused.chat.postMessage = vi.fn(async () => {
      throw Object.assign(new Error('An API error occurred: not_in_channel'), {
        code: 'slack_webapi_platform_error',
        data: { ok: false, error: 'not_in_channel' },
      });
    });
    await expect(postOnce(refused as unknown as PostOnceClient, steps({}, true), m)).rejects.toThrow('not_in_channel');
    expect(refused.conversations.replies).not.toHaveBeenCalled();
  });

  it('a failed post not found on the last try: its error is thrown', async () => {
    const { slack } = fakeSlack();
    slack.chat.postMessage = vi.fn(async () => {
      throw Object.assign(new Error('A request error occurred: timeout'), { code: 'slack_webapi_request_error' });
    });
    await expect(postOnce(slack as unknown as PostOnceClient, steps({}, true), m)).rejects.toThrow('timeout');
    expect(slack.conversations.replies).toHaveBeenCalledTimes(1);
  });
});
