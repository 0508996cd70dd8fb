import { WebClient, type Button } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { renderBlocks, renderTranscript, renderTranscriptWithButtons } from '../../../sandbox/transcript.js';
import { fakeSlackClient } from '../../helpers/fake-slack-client.js';

const TOKEN = 'xoxb-transcript-test';
let slack: FakeSlack;
let web: WebClient;
let clock: number;

const button = (text: string, extra: Partial<Button> = {}): Button => ({
  type: 'button',
  text: { type: 'plain_text', text },
  ...extra,
});

beforeEach(async () => {
  clock = 1_700_000_000_000;
  slack = await startFakeSlack({ botToken: TOKEN, now: () => clock });
  web = fakeSlackClient(slack, TOKEN);
});

afterEach(async () => {
  await slack.close();
});

describe('transcript buttons', () => {
  it('numbers buttons in order of appearance across threads and channels, and says which is which', async () => {
    const root = await web.chat.postMessage({
      channel: 'C0DOCS',
      text: 'root',
      blocks: [
        {
          type: 'section',
          block_id: 's1',
          text: { type: 'mrkdwn', text: 'Job' },
          accessory: button('Cancel', { action_id: 'job.cancel', value: 'job-1' }),
        },
      ],
    });
    await web.chat.postMessage({
      channel: 'C0DOCS',
      text: 'later top-level',
      blocks: [{ type: 'actions', elements: [button('Retry', { action_id: 'retry' })] }],
    });
    // Posted after "later top-level" but drawn before it, under its root.
    const reply = await web.chat.postMessage({
      channel: 'C0DOCS',
      thread_ts: root.ts as string,
      text: 'pr',
      blocks: [{ type: 'actions', elements: [button('PR', { url: 'https://x.test/pr/1' })] }],
    });
    await web.chat.postMessage({
      channel: 'D0ALICE',
      text: 'dm',
      blocks: [{ type: 'actions', block_id: 'dm', elements: [button('Open', { action_id: 'open' })] }],
    });

    const { text, buttons } = renderTranscriptWithButtons(slack);
    expect(text).toBe(
      [
        '── #docs ──',
        'Docs Agent: Job',
        '  [1: Cancel]',
        '  └ Docs Agent: [2: PR ↗ https://x.test/pr/1]',
        'Docs Agent: [3: Retry]',
        '',
        '── @alice (DM) ──',
        'Docs Agent: [4: Open]',
      ].join('\n'),
    );
    expect(buttons.map((b) => [b.n, b.label, b.channel, b.actionId])).toEqual([
      [1, 'Cancel', 'C0DOCS', 'job.cancel'],
      [2, 'PR', 'C0DOCS', 'button-2'], // no action_id: a stand-in for the one Slack would generate
      [3, 'Retry', 'C0DOCS', 'retry'],
      [4, 'Open', 'D0ALICE', 'open'],
    ]);
    expect(buttons[0]).toEqual({
      n: 1,
      label: 'Cancel',
      channel: 'C0DOCS',
      messageTs: root.ts,
      actionId: 'job.cancel',
      value: 'job-1',
      blockId: 's1',
    });
    expect(buttons[1]).toMatchObject({ messageTs: reply.ts, url: 'https://x.test/pr/1' });
    expect(buttons[1]?.blockId).toBeUndefined();
    expect(renderTranscript(slack)).toBe(text);

    const dmOnly = renderTranscriptWithButtons(slack, { channel: 'D0ALICE' });
    expect(dmOnly.buttons.map((b) => [b.n, b.label])).toEqual([[1, 'Open']]);
  });

  it('renders blocks outside messages (App Home) with names and unnumbered buttons', () => {
    const lines = renderBlocks(slack, [
      { type: 'header', text: { type: 'plain_text', text: 'Your recent docs jobs' } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '*Fix typo* for <@U0BOB>' },
        accessory: button('Open', { action_id: 'open' }),
      },
    ]);
    expect(lines).toBe('== Your recent docs jobs ==\n*Fix typo* for @bob\n[ Open ]');
  });
});

describe('transcript of the agent view', () => {
  it('shows the Messages tab suggestions, loading lines where they appeared, and each thread session', async () => {
    await web.assistant.threads.setSuggestedPrompts({
      channel_id: 'D0ALICE',
      title: 'Ask the docs agent',
      prompts: [{ title: 'Fix typos', message: 'Fix the typos' }],
    });
    expect(renderTranscript(slack)).toBe(['── @alice (DM) ──', '✦ Ask the docs agent:', '  [ Fix typos ]'].join('\n'));
    const ask = slack.addUserMessage({ channel: 'D0ALICE', user: 'U0ALICE', text: 'Fix the typos' });
    await web.assistant.threads.setStatus({ channel_id: 'D0ALICE', thread_ts: ask.ts, status: 'is starting the job…' });
    await web.chat.postMessage({ channel: 'D0ALICE', thread_ts: ask.ts, text: 'Working' });
    await web.agents.sessions.setStatus({
      channel_id: 'D0ALICE',
      thread_ts: ask.ts,
      status: 'processing',
      title: 'Fix the typos',
    });
    await web.agents.sessions.setStatus({ channel_id: 'D0ALICE', thread_ts: ask.ts, status: 'active' });
    expect(renderTranscript(slack)).toBe(
      [
        '── @alice (DM) ──',
        '✦ Ask the docs agent:',
        '  [ Fix typos ]',
        'alice: Fix the typos',
        '  └ ⋯ Docs Agent is starting the job…',
        '  └ Docs Agent: Working',
        '  └ ◆ agent session “Fix the typos”: processing → active',
      ].join('\n'),
    );
  });
});
