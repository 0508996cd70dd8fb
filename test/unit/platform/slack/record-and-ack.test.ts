import { describe, expect, it, vi } from 'vitest';
import { BUSY_TEXT, EventNotRecordedError } from '../../../../src/platform/slack/edge.js';
import { recordEvent } from '../../../../src/platform/slack/record-and-ack.js';
import { arrayLogger } from '../../../helpers/logs.js';

/** Redis refusing a command, as ioredis rejects. */
const redisDown = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
/** An error as @slack/web-api throws it for a Slack `error` answer. */
const slackError = (code: string) =>
  Object.assign(new Error(`An API error occurred: ${code}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: code },
  });

const entry = (retryNum: number) => ({
  kind: { name: 'ask.question' } as never,
  id: 'ev-1',
  requestId: 'Ev1',
  payload: { text: 'how do I rotate my API key sk-secret?' },
  retryNum,
});

describe('an event Redis will not take', () => {
  it('before Slack’s last try: not acked (throws) so Slack redelivers; the person is not told yet', async () => {
    const { logger, lines } = arrayLogger('warn');
    const tell = vi.fn(async () => undefined);
    const intake = { record: vi.fn(async () => Promise.reject(redisDown())) };
    await expect(recordEvent(intake, logger, entry(2), tell)).rejects.toBeInstanceOf(EventNotRecordedError);
    expect(tell).not.toHaveBeenCalled();
    expect(lines.map((l) => l.msg)).toEqual(['could not record an event; not acked, so Slack redelivers it']);
  });

  it('on Slack’s last try the person is told; when even that fails, a second warning says so, and the message text is never logged', async () => {
    const { logger, lines } = arrayLogger('warn');
    const tell = vi.fn(async () => Promise.reject(slackError('channel_not_found')));
    const intake = { record: vi.fn(async () => Promise.reject(redisDown())) };
    await expect(recordEvent(intake, logger, entry(3), tell)).rejects.toBeInstanceOf(EventNotRecordedError);
    expect(tell).toHaveBeenCalledExactlyOnceWith(BUSY_TEXT);
    expect(lines.map((l) => l.msg)).toEqual([
      "could not record an event on Slack's last try; told the person",
      'could not tell the person their message was not taken',
    ]);
    expect(JSON.stringify(lines)).toContain('channel_not_found');
    expect(JSON.stringify(lines)).not.toContain('sk-secret');
  });
});
