import { WebClient, type WebAPIPlatformError } from '@slack/web-api';
import type { KnownBlock } from '@slack/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { renderTranscript } from '../../../sandbox/transcript.js';
import { fakeSlackClient } from '../../helpers/fake-slack-client.js';

/*
 * The fake Slack's checks of plan, task_card, context_actions and feedback_buttons (Slack's Block Kit
 * reference), over the real WebClient, and how the transcript draws them.
 */

const TOKEN = 'xoxb-sandbox-token';
let slack: FakeSlack;
let web: WebClient;

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, now: () => 1_700_000_000_000 });
  web = fakeSlackClient(slack, TOKEN);
});
afterEach(() => slack.close());

const rich = (text: string) => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }],
});
const plan = (tasks: unknown[], title: unknown = 'Docs agent job') =>
  ({ type: 'plan', title, tasks }) as unknown as KnownBlock;
const task = (over: Record<string, unknown> = {}) => ({
  task_id: 'read',
  title: 'Read the thread',
  status: 'complete',
  ...over,
});
const feedback = (over: Record<string, unknown> = {}) =>
  ({
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: 'fb',
        positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'positive:job_1' },
        negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'negative:job_1' },
        ...over,
      },
    ],
  }) as unknown as KnownBlock;

async function code(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: WebAPIPlatformError) => e.data?.error,
  );
}

describe('fake Slack: agent blocks', () => {
  it('accepts a plan of task cards (statuses, details, output, URL sources) and feedback buttons, in posts and edits', async () => {
    const posted = await web.chat.postMessage({
      channel: 'C0DOCS',
      text: 'x',
      blocks: [
        plan([
          task({ details: rich('12 messages') }),
          task({
            task_id: 'pr',
            title: 'Open a PR',
            status: 'in_progress',
            sources: [{ type: 'url', url: 'https://github.com/acme/docs/pull/1', text: 'PR #1' }],
          }),
          task({ task_id: 'x', title: 'Later', status: 'pending' }),
          task({ task_id: 'y', title: 'Bad', status: 'error', output: rich('failed') }),
        ]),
        feedback(),
      ],
    });
    expect(posted.ok).toBe(true);
    await web.chat.update({
      channel: 'C0DOCS',
      ts: posted.ts as string,
      text: 'y',
      blocks: [
        plan([task()], { type: 'plain_text', text: 'Done' }),
        { type: 'task_card', task_id: 't', title: 'Alone', status: 'complete' } as unknown as KnownBlock,
      ],
    });
    expect(slack.messages.at(-1)?.edited).toBe(true);
  });

  it.each([
    ['a plan without a title', [{ type: 'plan', tasks: [task()] }]],
    ['a task without task_id', [plan([task({ task_id: undefined })])]],
    ['a task without a title', [plan([task({ title: '' })])]],
    ['an unknown status', [plan([task({ status: 'done' })])]],
    ['"completed" (Slack says complete)', [plan([task({ status: 'completed' })])]],
    ['details that are not rich_text', [plan([task({ details: { type: 'mrkdwn', text: 'x' } })])]],
    ['a source without text', [plan([task({ sources: [{ type: 'url', url: 'https://x.example' }] })])]],
    ['a source of another type', [plan([task({ sources: [{ type: 'link', url: 'https://x.example', text: 'x' }] })])]],
    ['tasks that are not an array', [plan('read' as unknown as unknown[])]],
    ['a block_id over 255 chars', [{ ...plan([task()]), block_id: 'b'.repeat(256) }]],
    ['context_actions without elements', [{ type: 'context_actions', elements: [] }]],
    [
      'context_actions with 6 elements',
      [
        {
          type: 'context_actions',
          elements: Array.from({ length: 6 }, () => (feedback() as unknown as { elements: unknown[] }).elements[0]),
        },
      ],
    ],
    [
      'a button element in context_actions',
      [{ type: 'context_actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'x' } }] }],
    ],
    ['feedback buttons without a negative button', [feedback({ negative_button: undefined })]],
    [
      'a feedback button text over 75 chars',
      [feedback({ positive_button: { text: { type: 'plain_text', text: 'x'.repeat(76) }, value: 'v' } })],
    ],
    [
      'a feedback button in mrkdwn',
      [feedback({ positive_button: { text: { type: 'mrkdwn', text: 'x' }, value: 'v' } })],
    ],
    [
      'a feedback value over 2000 chars',
      [feedback({ positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'v'.repeat(2001) } })],
    ],
    [
      'an accessibility_label over 75 chars',
      [
        feedback({
          positive_button: {
            text: { type: 'plain_text', text: '👍' },
            value: 'v',
            accessibility_label: 'a'.repeat(76),
          },
        }),
      ],
    ],
    ['an action_id over 255 chars', [feedback({ action_id: 'a'.repeat(256) })]],
    [
      'feedback buttons in an actions block',
      [{ type: 'actions', elements: (feedback() as unknown as { elements: unknown[] }).elements }],
    ],
  ])('refuses %s with invalid_blocks (post and update)', async (_what, blocks) => {
    expect(await code(web.chat.postMessage({ channel: 'C0DOCS', text: 'x', blocks: blocks as KnownBlock[] }))).toBe(
      'invalid_blocks',
    );
    const ok = await web.chat.postMessage({ channel: 'C0DOCS', text: 'x' });
    expect(
      await code(
        web.chat.update({ channel: 'C0DOCS', ts: ok.ts as string, text: 'y', blocks: blocks as KnownBlock[] }),
      ),
    ).toBe('invalid_blocks');
    expect(slack.messages.at(-1)?.edited).toBeFalsy();
  });

  it('the transcript draws a plan as a checklist and the feedback buttons', async () => {
    await web.chat.postMessage({
      channel: 'C0DOCS',
      text: 'x',
      blocks: [
        plan([
          task({ details: rich('12 messages') }),
          task({ task_id: 'w', title: 'Agent working', status: 'in_progress' }),
          task({
            task_id: 'o',
            title: 'Pull request',
            status: 'pending',
            sources: [{ type: 'url', url: 'https://github.com/acme/docs/pull/1', text: 'acme/docs#1' }],
          }),
          task({ task_id: 'e', title: 'Failed', status: 'error' }),
        ]),
        feedback(),
      ],
    });
    expect(renderTranscript(slack, { channel: 'C0DOCS' })).toBe(
      [
        '── #docs ──',
        'Docs Agent: Plan: Docs agent job',
        '    ☑ Read the thread',
        '        12 messages',
        '    ◐ Agent working',
        '    ☐ Pull request',
        '        ↗ acme/docs#1 https://github.com/acme/docs/pull/1',
        '    ☒ Failed',
        '  [ 👍 ] [ 👎 ]',
      ].join('\n'),
    );
  });
});
