import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackDriver } from '../../src/sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { startSandbox, statusMessage, type Sandbox } from '../helpers/sandbox.js';

const BOT = 'U0DOCSBOT';

/*
 * Thread context end to end, one bot process over signed HTTP: a mention in a thread that is not a
 * job's carries the thread; the "Document this thread" shortcut; message links in /docs-edit.
 */
describe('thread context: mentions in threads, the Document this thread shortcut, message links', () => {
  let sb: Sandbox;
  let driver: SlackDriver;
  let bot: BotProcess;

  const creates = () => sb.docs.requests.filter((r) => r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job');
  const prompt = (i: number) => (creates()[i]?.body as { prompt: string }).prompt;
  const jobIdOf = (i: number) => (creates()[i]?.responseBody as { id: string }).id;

  beforeAll(async () => {
    sb = await startSandbox();
    ({ driver, bot } = await sb.startBot());
  });
  afterAll(() => sb?.close());

  it('an @mention in a discussion thread sends the instruction, the root and the replies; the status goes in that thread', async () => {
    const root = await driver.message({ channel: 'C0DOCS', user: 'U0BOB', text: 'How do I rotate the API key? The docs say nothing.' });
    await driver.message({ channel: 'C0DOCS', user: 'U0CAROL', thread_ts: root.ts, text: 'Settings → API → *Rotate*; the old key works for 24 h' });
    await driver.message({ channel: 'C0DOCS', user: 'U0BOB', thread_ts: root.ts, text: 'thanks <@U0CAROL>!' });
    const n = creates().length;
    const mention = await driver.appMention({ channel: 'C0DOCS', user: 'U0ALICE', thread_ts: root.ts, text: `<@${BOT}> put this in the docs` });
    await sb.slack.waitFor(() => creates().length > n, 10_000);
    const lines = prompt(n).split('\n');
    expect(lines[0]).toBe('put this in the docs');
    expect(lines[2]).toBe('Context: the Slack thread this request was made in (3 messages, oldest first):');
    expect(lines.slice(3).map((l) => l.replace(/ \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)/, ''))).toEqual([
      'bob: How do I rotate the API key? The docs say nothing.',
      'carol: Settings → API → *Rotate*; the old key works for 24 h',
      'bob: thanks @carol!',
    ]);
    const status = await statusMessage(sb.slack, jobIdOf(n));
    expect(status.thread_ts).toBe(root.ts);
    expect(mention.ts).not.toBe(root.ts);
    // The logs carry counts and ids, never what people wrote.
    await sb.slack.waitFor(() => bot.output().includes('built the prompt context'));
    expect(bot.output()).not.toContain('rotate the API key');
    expect(bot.output()).not.toContain('put this in the docs');
  });
});
