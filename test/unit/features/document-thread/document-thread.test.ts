import { OPEN_GATE } from '../../../../src/platform/access.js';
import { WebClient } from '@slack/web-api';
import { describe, expect, it, vi } from 'vitest';
import {
  cannotReadModal,
  decodeThreadRef,
  encodeThreadRef,
  followUpModal,
  loadingModal,
  modalAt,
  previewModal,
  previewText,
  THREAD_REF_PURPOSE,
} from '../../../../src/features/document-thread/blocks.js';
import {
  MODAL_OPEN_WAIT_MS,
  ModalNotOpenYetError,
  PREVIEWS_PER_MINUTE,
  showPreview,
  type ThreadContextHandlerDeps,
} from '../../../../src/features/document-thread/handlers.js';
import { Quota } from '../../../../src/platform/quota.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';
import { ThreadReader } from '../../../../src/features/thread-context/read.js';
import type { ThreadContextDeps } from '../../../../src/features/thread-context/service.js';
import { createLogger } from '../../../../src/platform/logger.js';
import type { FakeSlack } from '../../../../sandbox/fake-slack.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { ValueSigner } from '../../../../src/platform/slack/signed-value.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { addThread, useThreadContextSlack } from '../../../helpers/thread-context-fixture.js';

/*
 * Document this thread: its modal (metadata signed and checked) and the shortcut's preview, updated
 * into the modal the listener opened, over the fake Slack.
 */

const logger = createLogger('silent');

let slack: FakeSlack;
let web: WebClient;
let deps: ThreadContextDeps;

useThreadContextSlack(
  () => '0123456789abcdef',
  (s) => ({ slack, web, deps } = s),
);

/** A thread in #docs: bob's root, then the replies given as [user, text]. */
const thread = (root: string, replies: [string, string][], channel = 'C0DOCS') =>
  addThread(slack, root, replies, channel);

/** The shortcut handler's dependencies over this test's fake Slack and `deps`, the open gate; `over` replaces any. */
const previewDeps = (over: Partial<ThreadContextHandlerDeps> = {}): ThreadContextHandlerDeps => ({
  slack: web,
  names: deps.names,
  logger,
  conversations: deps.conversations,
  signer: TEST_SIGNER,
  access: OPEN_GATE,
  reader: deps.reader,
  ...over,
});

describe('the Document this thread modal', () => {
  it('previews count, authors and the first line (escaped); round-trips its metadata; refuses forged metadata', () => {
    expect(
      previewText({ ok: true, messages: 12, authors: ['U1', 'U2', 'U3', 'U4', 'U5'], firstLine: 'use <Tabs> & co' }),
    ).toBe('*12 messages* from <@U1>, <@U2>, <@U3> and 2 others, starting with:\n> use &lt;Tabs&gt; &amp; co');
    // The first line is someone's message, quoted inert: no formatting, link, domain or @here goes live.
    const hostile = previewText({
      ok: true,
      messages: 2,
      authors: ['U1'],
      firstLine: '*Urgent* see https://evil.example/x @here',
    });
    expect(hostile).not.toMatch(/\*Urgent\*|https:\/\/evil\.example|evil\.example|@here/);
    expect(hostile).toContain('starting with:\n> ∗Urgent∗ see');
    expect(previewText({ ok: true, messages: 1, authors: ['U1'], firstLine: '' })).toBe('*1 message* from <@U1>');
    expect(previewText({ ok: true, messages: 0, authors: [], firstLine: '' })).toMatch(/only your instruction/);
    const ref = { channel: 'C0DOCS', threadTs: '1700000000.000100' };
    expect(decodeThreadRef(encodeThreadRef(ref, TEST_SIGNER), TEST_SIGNER)).toEqual({ ok: true, ref });
    // Unsigned (a modal from before signing, or forged), signed by another key, or of another shape: never a ref.
    expect(decodeThreadRef(JSON.stringify({ c: 'C0LEADS', t: '1700000000.000100' }), TEST_SIGNER)).toEqual({
      ok: false,
      reason: 'unsigned',
    });
    expect(decodeThreadRef(encodeThreadRef(ref, ValueSigner.fromSecret('another')), TEST_SIGNER)).toEqual({
      ok: false,
      reason: 'tampered',
    });
    expect(
      decodeThreadRef(TEST_SIGNER.sign(THREAD_REF_PURPOSE, JSON.stringify({ c: '<!channel>', t: '1.2' })), TEST_SIGNER),
    ).toEqual({ ok: false, reason: 'malformed' });
    expect(decodeThreadRef('not json', TEST_SIGNER)).toEqual({ ok: false, reason: 'unsigned' });
    const modal = previewModal(modalAt('ext-1', ref, TEST_SIGNER), {
      ok: true,
      messages: 2,
      authors: ['U1'],
      firstLine: 'x',
    });
    expect(modal).toMatchObject({
      callback_id: 'document_thread_modal',
      external_id: 'ext-1',
      submit: { text: 'Start job' },
    });
    expect(cannotReadModal(modalAt('ext-1', ref, TEST_SIGNER), 'bot_cannot_read').submit).toBeUndefined();
  });
});

describe('the preview of the shortcut (intake handler)', () => {
  it('waits for the modal the listener opens (retried while it is not open), then updates it by external_id', async () => {
    const { root } = thread('How do I rotate keys?', [['U0ALICE', 'Settings → API']]);
    const p = { channel: 'C0DOCS', threadTs: root.ts, user: 'U0ALICE', externalId: 'document-thread-t1' };
    const hDeps = previewDeps();
    await expect(showPreview(hDeps, p, { finalAttempt: false })).rejects.toBeInstanceOf(ModalNotOpenYetError);
    await expect(showPreview(hDeps, p, { finalAttempt: true })).resolves.toBeUndefined(); // gives up quietly on the last try
    await web.views.open({
      trigger_id: slack.triggerId('U0ALICE'),
      view: loadingModal(modalAt(p.externalId, { channel: 'C0DOCS', threadTs: root.ts }, TEST_SIGNER)),
    });
    await showPreview(hDeps, p, { finalAttempt: false });
    const updated = slack.views.at(-1)!;
    expect(updated).toMatchObject({
      method: 'views.update',
      view: { external_id: p.externalId, submit: { text: 'Start job' } },
    });
    expect(JSON.stringify(updated.view.blocks)).toContain('*2 messages* from <@U0BOB> and <@U0ALICE>');
  });

  it("the follow-up form keeps the job's id inside its inline code: a backtick in it closes nothing", () => {
    const at = modalAt('x', { channel: 'C0DOCS', threadTs: '1.2' }, TEST_SIGNER);
    const text = JSON.stringify(followUpModal(at, 'job_1`*x*`<!here>').blocks);
    expect(text).toContain("docs agent job `job_1'*x*'&lt;!here&gt;`, so");
  });

  it("on a job's thread: the follow-up form for that job (asked as continue_job, the thread not read); while a job starts there, nothing to submit", async () => {
    const { root } = thread('Job thread', [['U0ALICE', 'x']]);
    const p = { channel: 'C0DOCS', threadTs: root.ts, user: 'U0CAROL', externalId: 'document-thread-job' };
    await web.views.open({
      trigger_id: slack.triggerId('U0CAROL'),
      view: loadingModal(modalAt(p.externalId, { channel: 'C0DOCS', threadTs: root.ts }, TEST_SIGNER)),
    });
    const asked: string[] = [];
    const access = {
      authorize: async (_a: unknown, action: string) => (asked.push(action), { allowed: true as const }),
    };
    await showPreview(previewDeps({ access, owner: async () => ({ kind: 'job', jobId: 'job_abc' }) }), p, {
      finalAttempt: false,
    });
    const form = slack.views.at(-1)!;
    expect(form.view.submit).toMatchObject({ text: 'Send follow-up' });
    expect(decodeThreadRef(form.view.private_metadata as string, TEST_SIGNER)).toEqual({
      ok: true,
      ref: { channel: 'C0DOCS', threadTs: root.ts, jobId: 'job_abc' },
    });
    expect(asked).toEqual(['continue_job']);
    expect(slack.calls.filter((c) => c.method === 'conversations.replies')).toHaveLength(0);
    await showPreview(previewDeps({ access, owner: async () => ({ kind: 'starting' }) }), p, { finalAttempt: false });
    expect(slack.views.at(-1)!.view.submit).toBeUndefined();
    expect(
      decodeThreadRef(
        TEST_SIGNER.sign(THREAD_REF_PURPOSE, JSON.stringify({ c: 'C0DOCS', t: '1.2', j: '<!channel>' })),
        TEST_SIGNER,
      ),
    ).toEqual({ ok: false, reason: 'malformed' });
  });

  it('someone not in the conversation (a public channel they only look at) sees the refusal: nothing is read; a conversation Slack hides from the bot says to invite it', async () => {
    slack.channels.push({ id: 'C0OPEN', name: 'open', botIsMember: true, members: ['U0ALICE', slack.botUserId] });
    const root = slack.addUserMessage({ channel: 'C0OPEN', user: 'U0ALICE', text: 'the pricing page is wrong' });
    const p = { channel: 'C0OPEN', threadTs: root.ts, user: 'U0CAROL', externalId: 'document-thread-outsider' };
    await web.views.open({
      trigger_id: slack.triggerId('U0CAROL'),
      view: loadingModal(modalAt(p.externalId, { channel: 'C0OPEN', threadTs: root.ts }, TEST_SIGNER)),
    });
    const reads = () =>
      slack.calls.filter((c) => c.method === 'conversations.replies' || c.method === 'conversations.history').length;
    const before = reads();
    await showPreview(previewDeps(), p, { finalAttempt: false });
    const refused = slack.views.at(-1)!;
    expect(JSON.stringify(refused.view.blocks)).toContain(NOT_A_MEMBER_TEXT);
    expect(JSON.stringify(refused.view.blocks)).not.toContain('pricing');
    expect(refused.view.submit).toBeUndefined();
    expect(reads()).toBe(before);

    const q = {
      channel: 'C0LEADS',
      threadTs: '1700000000.000100',
      user: 'U0ALICE',
      externalId: 'document-thread-hidden',
    };
    await web.views.open({
      trigger_id: slack.triggerId('U0ALICE'),
      view: loadingModal(modalAt(q.externalId, { channel: 'C0LEADS', threadTs: q.threadTs }, TEST_SIGNER)),
    });
    await showPreview(previewDeps(), q, { finalAttempt: false });
    expect(JSON.stringify(slack.views.at(-1)!.view.blocks)).toContain('/invite @Docs Agent');
  });

  it(`a per-person cooldown: ${PREVIEWS_PER_MINUTE} previews a minute (shared in Redis), then the modal says when the next one frees and nothing is read; Redis failing refuses`, async () => {
    const redis = testRedis();
    const prefix = randomPrefix();
    try {
      const { root } = thread('Cooldown', [['U0ALICE', 'x']]);
      const p = { channel: 'C0DOCS', threadTs: root.ts, user: 'U0CAROL', externalId: 'document-thread-cool' };
      await web.views.open({
        trigger_id: slack.triggerId('U0CAROL'),
        view: loadingModal(modalAt(p.externalId, { channel: 'C0DOCS', threadTs: root.ts }, TEST_SIGNER)),
      });
      const previews = new Quota(redis, {
        keyPrefix: `${prefix}:previews`,
        points: PREVIEWS_PER_MINUTE,
        durationS: 60,
      });
      const membership = { isMember: vi.fn((c: string, u: string) => deps.conversations.isMember(c, u)) };
      const hDeps = previewDeps({
        conversations: membership,
        reader: new ThreadReader({ slack: web, ttlMs: 1 }),
        previews,
      });
      for (let i = 0; i < PREVIEWS_PER_MINUTE; i += 1) await showPreview(hDeps, p, { finalAttempt: false });
      const reads = slack.calls.filter((c) => c.method === 'conversations.replies').length;
      membership.isMember.mockClear();
      await showPreview(hDeps, p, { finalAttempt: false });
      const refused = slack.views.at(-1)!;
      expect(JSON.stringify(refused.view.blocks)).toMatch(
        /opened \*Document this thread\* 10 times in the last minute.*Next free slot: <!date\^/,
      );
      expect(refused.view.submit).toBeUndefined();
      expect(slack.calls.filter((c) => c.method === 'conversations.replies')).toHaveLength(reads);
      expect(membership.isMember).not.toHaveBeenCalled(); // the cooldown comes first: no membership read either
      // Another person is not held back.
      await showPreview(hDeps, { ...p, user: 'U0BOB' }, { finalAttempt: false });
      expect(slack.views.at(-1)!.view.submit).toMatchObject({ text: 'Start job' });
      const broken = { take: async () => Promise.reject(new Error('connect ECONNREFUSED')) };
      await showPreview({ ...hDeps, previews: broken }, p, { finalAttempt: false });
      expect(JSON.stringify(slack.views.at(-1)!.view.blocks)).toContain("I couldn't check your access");
    } finally {
      await dropPrefix(redis, prefix);
      redis.disconnect();
    }
  });

  it('an update Slack fails (5xx) is thrown for the retry, not taken for a modal that is not open; the retry shows the preview', async () => {
    const { root } = thread('How do I rotate keys?', [['U0ALICE', 'Settings → API']]);
    const p = { channel: 'C0DOCS', threadTs: root.ts, user: 'U0ALICE', externalId: 'document-thread-5xx' };
    await web.views.open({
      trigger_id: slack.triggerId('U0ALICE'),
      view: loadingModal(modalAt(p.externalId, { channel: 'C0DOCS', threadTs: root.ts }, TEST_SIGNER)),
    });
    slack.failNext('views.update', { error: 'internal_error' });
    const err = await showPreview(previewDeps(), p, { finalAttempt: false }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ModalNotOpenYetError);
    expect(err).toMatchObject({ data: { error: 'internal_error' } });
    await showPreview(previewDeps(), p, { finalAttempt: false });
    expect(slack.views.at(-1)).toMatchObject({ method: 'views.update', view: { submit: { text: 'Start job' } } });
  });

  // Found by the fuzz test (test/faults/fuzz.test.ts): a shortcut whose modal never opened (a trigger_id
  // Slack did not issue) was retried for about four minutes.
  it('a modal still not open 30 s after the shortcut never will be: dropped with a warning, not retried', async () => {
    const { root } = thread('Never opened', [['U0ALICE', 'x']]);
    const p = { channel: 'C0DOCS', threadTs: root.ts, user: 'U0ALICE', externalId: 'document-thread-never' };
    const receivedAt = 1_800_000_000_000;
    const at = (ms: number) => previewDeps({ now: () => receivedAt + ms });
    await expect(showPreview(at(15_000), p, { finalAttempt: false, receivedAt })).rejects.toBeInstanceOf(
      ModalNotOpenYetError,
    );
    await expect(showPreview(at(MODAL_OPEN_WAIT_MS), p, { finalAttempt: false, receivedAt })).resolves.toBeUndefined();
  });
});
