import { describe, expect, it } from 'vitest';
import { FAKE_DISCOVERY_PAGES } from '../../sandbox/fake-docs-api.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import {
  answerOf,
  ephemeralsTo,
  messageText,
  payrollMessage,
  sandboxWithBot,
  type Sandbox,
} from '../helpers/sandbox.js';
import { openDocumentThis, submitDocumentThis } from '../helpers/document-this.js';

/*
 * Quoted text stays data: the Document this form quotes a conversation's questions and
 * the assistant's answer for the agent, and nothing in that quote acts, whoever submits the form.
 * One bot process over signed HTTP, the fake Slack and the fake docs API (two docs projects).
 */
describe('Document this: the quoted question acts on nothing', () => {
  let sb: Sandbox;
  let driver: SlackDriver;

  const creates = (project: string) =>
    sb.docs.requests.filter((r) => r.method === 'POST' && r.path === `/v2/agent/${project}/job`);
  const answerIn = (threadTs: string, n: number) => answerOf(sb.slack, threadTs, n);

  sandboxWithBot({ ask: true, env: { DOCS_PROJECT_IDS: 'proj_other' } }, (s) => ({ sb, driver } = s));

  it(
    'an earlier question with a permalink into #payroll (which the asker is not in) and project=<other>, ' +
      'submitted as prefilled by a member of #payroll: #payroll is not read, the job goes to the channel project, ' +
      "the prompt carries none of the payroll thread, and the submitter is told the quoted link wasn't read",
    async () => {
      // A private channel the bot is in, with alice but not bob.
      const link = payrollMessage(sb.slack, 'salary bands for 2027 are attached');
      // The docs cover nothing here, so every answer offers Document this.
      sb.docs.discovery.pages = [];
      // Bob asks in his own thread: first the question carrying the link and the option, then one the docs don't cover.
      const q = await driver.appMention({
        channel: 'C0DOCS',
        user: 'U0BOB',
        text: `<@U0DOCSBOT> how is this handled? <${link}> project=proj_other`,
      });
      await answerIn(q.ts, 1);
      await driver.message({
        channel: 'C0DOCS',
        user: 'U0BOB',
        thread_ts: q.ts,
        text: 'how do I configure a custom domain for the status page?',
      });
      const answer = await answerIn(q.ts, 2);
      expect(messageText(answer)).toContain("don't seem to cover this");
      const readsBefore = sb.slack.calls.length;

      // Alice (in #payroll) clicks Document this and submits the form as it was prefilled.
      const { modal } = await openDocumentThis(sb, driver, { user: 'U0ALICE', answerTs: answer.ts, threadTs: q.ts });
      const blocks = modal.view.blocks as Array<{ type: string; element?: { initial_value?: string } }>;
      const prefilled = blocks.find((b) => b.type === 'input')?.element?.initial_value ?? '';
      expect(prefilled).not.toBe('');
      expect(JSON.stringify(modal.view.blocks)).toContain('project=proj_other');
      const res = await submitDocumentThis(driver, 'U0ALICE', modal, prefilled);
      expect(res.status).toBe(200);
      const create = await sb.docs.waitForRequest(
        (r) => r.method === 'POST' && /^\/v2\/agent\/[^/]+\/job$/.test(r.path),
        10_000,
      );
      // The job goes to the channel's project, not the one the quote names.
      expect(create.path).toBe('/v2/agent/proj_e2e/job');
      expect(creates('proj_other')).toHaveLength(0);
      const prompt = (create.body as { prompt: string }).prompt;
      expect(prompt.startsWith(prefilled)).toBe(true);
      // The quote is in the prompt, fenced, as information; the payroll thread is not.
      expect(prompt).toMatch(/<slack_question_[0-9a-f]{16}>[\s\S]*custom domain[\s\S]*<\/slack_question_[0-9a-f]{16}>/);
      expect(prompt).not.toContain('salary bands');
      expect(prompt).not.toContain('Context: the Slack thread linked as');
      // #payroll was never read, nor its members asked about (the form shows the quote, as plain text).
      const payroll = sb.slack.calls
        .slice(readsBefore)
        .filter((c) => c.method.startsWith('conversations.') && c.args.channel === 'C0PAYROLL');
      expect(payroll).toEqual([]);
      // Alice is told privately that the quoted link was not read (without repeating it as a live link).
      const note = await sb.slack.waitFor(
        () => ephemeralsTo(sb.slack, 'U0ALICE').find((m) => m.text.includes('The quoted text names')),
        10_000,
      );
      expect(note.text).toContain('not read');
      expect(note.text).not.toContain('C0PAYROLL');
    },
  );

  it(
    'Make this a docs change clicked by someone other than the asker opens the Document this form (the question quoted) ' +
      'instead of starting a job; submitting it starts the job under their own instruction',
    async () => {
      sb.docs.discovery.pages = FAKE_DISCOVERY_PAGES;
      const q = await driver.appMention({
        channel: 'C0DOCS',
        user: 'U0ALICE',
        text: '<@U0DOCSBOT> how do I rotate an API key? project=proj_other',
      });
      const answer = await answerIn(q.ts, 1);
      // An answer the docs had: Make this a docs change is under it (Document this is, where they had none).
      expect(JSON.stringify(answer.blocks)).toContain('ask.change');
      const jobsBefore = sb.docs.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job')).length;
      const { modal } = await openDocumentThis(sb, driver, {
        user: 'U0BOB',
        answerTs: answer.ts,
        threadTs: q.ts,
        actionId: 'ask.change',
      });
      expect(JSON.stringify(modal.view.blocks)).toContain('how do I rotate an API key?');
      expect(sb.docs.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job'))).toHaveLength(jobsBefore);
      await submitDocumentThis(driver, 'U0BOB', modal, 'Explain key rotation on the API keys page');
      const create = await sb.docs.waitForRequest(
        (r) =>
          r.method === 'POST' && r.path.endsWith('/job') && JSON.stringify(r.body).includes('Explain key rotation'),
        10_000,
      );
      expect(create.path).toBe('/v2/agent/proj_e2e/job');
      const prompt = (create.body as { prompt: string }).prompt;
      expect(prompt.startsWith('Explain key rotation on the API keys page\n\n')).toBe(true);
      expect(prompt).toMatch(
        /<slack_question_[0-9a-f]{16}>\nQuestion: how do I rotate an API key\? project=proj_other/,
      );
    },
  );
});
