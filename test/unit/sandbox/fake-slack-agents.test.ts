import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { renderTranscript } from '../../../sandbox/transcript.js';
import { fakeSlackClient, platformErrorCode as platformError } from '../../helpers/fake-slack-client.js';

const TOKEN = 'xoxb-sandbox-token';
let slack: FakeSlack;
let web: WebClient;

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN });
  web = fakeSlackClient(slack, TOKEN);
});
afterEach(() => slack.close());

const prompt = (i: number) => ({ title: `t${i}`, message: `m${i}` });

describe('fake Slack: the agent methods check their arguments as Slack documents', () => {
  it('assistant.threads.setSuggestedPrompts: channel and 1-4 prompts with title and message; thread_ts makes an agent app call fail silently', async () => {
    await web.assistant.threads.setSuggestedPrompts({
      channel_id: 'D0ALICE',
      prompts: [prompt(1), prompt(2)],
      title: 'Try',
    });
    expect(slack.agent.prompts.get('D0ALICE')).toEqual({ title: 'Try', prompts: [prompt(1), prompt(2)] });
    expect(
      await platformError(
        web.assistant.threads.setSuggestedPrompts({ channel_id: 'D0ALICE', prompts: [1, 2, 3, 4, 5].map(prompt) }),
      ),
    ).toBe('invalid_arguments');
    expect(
      await platformError(
        web.assistant.threads.setSuggestedPrompts({
          channel_id: 'D0ALICE',
          prompts: [{ title: 'no message' } as never],
        }),
      ),
    ).toBe('invalid_arguments');
    expect(await platformError(web.apiCall('assistant.threads.setSuggestedPrompts', { prompts: [prompt(1)] }))).toBe(
      'invalid_arguments',
    );
    expect(
      await platformError(web.assistant.threads.setSuggestedPrompts({ channel_id: 'C0NOPE', prompts: [prompt(1)] })),
    ).toBe('channel_not_found');
    await web.assistant.threads.setSuggestedPrompts({
      channel_id: 'D0ALICE',
      thread_ts: '1.000001',
      prompts: [prompt(9)],
    });
    expect(slack.agent.prompts.get('D0ALICE')?.prompts).toEqual([prompt(1), prompt(2)]);
  });

  it('assistant.threads.setStatus: channel_id, thread_ts of a real message and status required; cleared by "" or by the bot posting there', async () => {
    const root = slack.addUserMessage({ channel: 'D0ALICE', user: 'U0ALICE', text: 'hi' });
    const at = { channel_id: 'D0ALICE', thread_ts: root.ts };
    await web.assistant.threads.setStatus({ ...at, status: 'is reading the thread…' });
    expect(slack.agent.loading.get(`D0ALICE:${root.ts}`)).toBe('is reading the thread…');
    await web.chat.postMessage({ channel: 'D0ALICE', thread_ts: root.ts, text: 'done' });
    expect(slack.agent.loading.get(`D0ALICE:${root.ts}`)).toBeUndefined();
    await web.assistant.threads.setStatus({ ...at, status: 'again' });
    await web.assistant.threads.setStatus({ ...at, status: '' });
    expect(slack.agent.loading.size).toBe(0);
    expect(slack.agent.loadingLines.map((l) => l.status)).toEqual(['is reading the thread…', 'again']);
    expect(
      await platformError(web.apiCall('assistant.threads.setStatus', { channel_id: 'D0ALICE', status: 'x' })),
    ).toBe('invalid_arguments');
    expect(
      await platformError(
        web.assistant.threads.setStatus({ channel_id: 'D0ALICE', thread_ts: '9.000009', status: 'x' }),
      ),
    ).toBe('invalid_thread_ts');
    expect(
      await platformError(
        web.assistant.threads.setStatus({ ...at, status: 'x', loading_messages: Array.from({ length: 11 }, String) }),
      ),
    ).toBe('invalid_arguments');
  });

  it("assistant.threads.setStatus shows in its thread, under the thread's newest message, whatever was posted elsewhere in the channel since", async () => {
    const report = slack.addUserMessage({ channel: 'C0DOCS', user: 'U0ALICE', text: 'the report' });
    const other = slack.addUserMessage({ channel: 'C0DOCS', user: 'U0BOB', text: 'another thread' });
    slack.addUserMessage({ channel: 'C0DOCS', user: 'U0BOB', text: 'a reply there', thread_ts: other.ts });
    await web.assistant.threads.setStatus({
      channel_id: 'C0DOCS',
      thread_ts: report.ts,
      status: 'is starting the job…',
    });
    expect(slack.agent.loadingLines.at(-1)).toMatchObject({ threadTs: report.ts, afterTs: report.ts });
    await web.chat.postMessage({ channel: 'C0DOCS', thread_ts: report.ts, text: 'job started' });
    expect(renderTranscript(slack, { channel: 'C0DOCS' }).split('\n').slice(0, 4)).toEqual([
      '── #docs ──',
      'alice: the report',
      '  └ ⋯ Docs Agent is starting the job…',
      '  └ Docs Agent: job started',
    ]);
  });

  it('agents.sessions.setStatus: the four statuses only, a thread, a title of at most 200 kept from creation; processing warns about the missing stop subscription', async () => {
    const root = slack.addUserMessage({ channel: 'C0DOCS', user: 'U0ALICE', text: 'hi' });
    const at = { channel_id: 'C0DOCS', thread_ts: root.ts };
    const res = await web.agents.sessions.setStatus({
      ...at,
      status: 'processing',
      title: 'First',
      initiator_user_id: 'U0ALICE',
    });
    expect(res).toMatchObject({
      ok: true,
      status: 'processing',
      title: 'First',
      warning: 'missing_agent_session_stopped_event_subscription',
    });
    await web.agents.sessions.setStatus({ ...at, status: 'active', title: 'Ignored' });
    expect(slack.agent.sessions.get(`C0DOCS:${root.ts}`)).toEqual({
      channel: 'C0DOCS',
      threadTs: root.ts,
      title: 'First',
      initiator: 'U0ALICE',
      statuses: ['processing', 'active'],
    });
    expect(await platformError(web.agents.sessions.setStatus({ ...at, status: 'done' }))).toBe('invalid_arguments');
    expect(await platformError(web.agents.sessions.setStatus({ channel_id: 'C0DOCS', status: 'active' }))).toBe(
      'invalid_arguments',
    );
    expect(
      await platformError(web.agents.sessions.setStatus({ ...at, status: 'active', title: 'x'.repeat(201) })),
    ).toBe('invalid_arguments');
  });

  it('refuseWith: every agent method answers that error (an app that is not an agent, an older workspace)', async () => {
    slack.agent.refuseWith = 'not_allowed';
    const root = slack.addUserMessage({ channel: 'D0ALICE', user: 'U0ALICE', text: 'hi' });
    expect(
      await platformError(web.assistant.threads.setSuggestedPrompts({ channel_id: 'D0ALICE', prompts: [prompt(1)] })),
    ).toBe('not_allowed');
    expect(
      await platformError(web.assistant.threads.setStatus({ channel_id: 'D0ALICE', thread_ts: root.ts, status: 'x' })),
    ).toBe('not_allowed');
    expect(
      await platformError(
        web.agents.sessions.setStatus({ channel_id: 'D0ALICE', thread_ts: root.ts, status: 'active' }),
      ),
    ).toBe('not_allowed');
  });
});
