import { describe, expect, it, vi } from 'vitest';
import {
  ANSWER_UNKNOWN_TEXT,
  handleChange,
  NOT_THE_ASKER_TEXT,
  handleFeedback,
  type ActionDeps,
} from '../../../../src/features/ask/actions.js';
import { changeValue, PURPOSE } from '../../../../src/features/ask/blocks.js';
import type { AnswerRecord } from '../../../../src/features/ask/store.js';
import { OPEN_GATE } from '../../../../src/platform/access.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { memorySteps } from '../../../../src/platform/steps.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { expectSlackTakesMessage } from '../../../helpers/block-kit.js';
import { answerRecord } from '../../../helpers/answers.js';

const REC: AnswerRecord = answerRecord({
  question: 'How do I rotate a key?',
  answer: 'Click Rotate.',
  unanswered: false,
});

function deps(over: Partial<ActionDeps> = {}) {
  const ratings = new Map<string, string>();
  const askFeedback = vi.fn();
  const noted: string[][] = [];
  const d: ActionDeps = {
    store: {
      answer: async (id) => (id === REC.answerId ? REC : undefined),
      noteUnanswered: async (channel, answerId, question) => void noted.push([channel, answerId, question]),
      rate: async (id, user, rating) => {
        const previous = ratings.get(`${id}:${user}`) ?? '';
        ratings.set(`${id}:${user}`, rating);
        return previous;
      },
    },
    signer: TEST_SIGNER,
    access: OPEN_GATE,
    conversations: { isMember: async () => true },
    start: {} as never,
    metrics: { askFeedback },
    logger: createLogger('silent'),
    ...over,
  };
  return { d, askFeedback, noted };
}

const ctx = () => ({
  ...memorySteps(),
  jobId: 'j1',
  requestId: 'r1',
  receivedAt: 0,
  confirm: async () => undefined,
  log: createLogger('silent'),
});

describe("an answer's 👍/👎", () => {
  it("counts a person's first rating once, thanks once; a change of mind is not counted again", async () => {
    const { d, askFeedback } = deps();
    const told: string[] = [];
    const tell = async (t: string) => void told.push(t);
    const click = (rating: string) => ({
      value: TEST_SIGNER.sign(PURPOSE.feedback, `${rating}:${REC.answerId}`),
      user: 'U0BOB',
      channel: REC.channel,
    });
    await handleFeedback(d, click('positive'), ctx(), tell);
    await handleFeedback(d, click('negative'), ctx(), tell);
    expect(askFeedback).toHaveBeenCalledExactlyOnceWith('positive');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^Thanks for rating that answer 👍/);
  });

  it('a 👎 where the channel names a docs team offers Ask the docs team (signed for the answer); a 👍 or no team does not', async () => {
    const calls: Array<[string, unknown]> = [];
    const tell = async (t: string, blocks?: unknown) => void calls.push([t, blocks]);
    const rate = (rating: string, user: string) => ({
      value: TEST_SIGNER.sign(PURPOSE.feedback, `${rating}:${REC.answerId}`),
      user,
      channel: REC.channel,
    });
    const { d, noted } = deps({ hasExperts: async (c) => c === 'C0DOCS' });
    await handleFeedback(d, rate('negative', 'U0BOB'), ctx(), tell);
    await handleFeedback(d, rate('positive', 'U0CAROL'), ctx(), tell);
    // The 👎 (not the 👍) notes the question for the digest's "Asked in Slack, not answered by the docs".
    expect(noted).toEqual([['C0DOCS', REC.answerId, REC.question]]);
    await handleFeedback(deps({ hasExperts: async () => false }).d, rate('negative', 'U0DAN'), ctx(), tell);
    expect(calls.map(([, b]) => b !== undefined)).toEqual([true, false, false]);
    const blocks = calls[0]![1] as Array<{
      text?: { text: string };
      elements?: Array<{ action_id: string; value: string }>;
    }>;
    expectSlackTakesMessage({ blocks });
    expect(blocks[0]!.text!.text).toContain('Want the people who know to answer it?');
    const button = blocks[1]!.elements![0]!;
    expect(button.action_id).toBe('ask.experts');
    expect(TEST_SIGNER.open(PURPOSE.experts, button.value)).toEqual({ ok: true, payload: REC.answerId });
  });

  it("a rating carried out of the answer's conversation, or by someone no longer in it: refused, not counted, the question not noted", async () => {
    const told: string[] = [];
    const tell = async (t: string) => void told.push(t);
    const value = TEST_SIGNER.sign(PURPOSE.feedback, `negative:${REC.answerId}`);
    const elsewhere = deps({ hasExperts: async () => true });
    await handleFeedback(elsewhere.d, { value, user: 'U0BOB', channel: 'C0ELSEWHERE' }, ctx(), tell);
    await handleFeedback(elsewhere.d, { value, user: 'U0BOB' }, ctx(), tell);
    const left = deps({ conversations: { isMember: async () => false }, hasExperts: async () => true });
    await handleFeedback(left.d, { value, user: 'U0BOB', channel: REC.channel }, ctx(), tell);
    expect(told).toEqual([ANSWER_UNKNOWN_TEXT, ANSWER_UNKNOWN_TEXT, NOT_A_MEMBER_TEXT]);
    for (const { askFeedback, noted } of [elsewhere, left]) {
      expect(askFeedback).not.toHaveBeenCalled();
      expect(noted).toEqual([]);
    }
  });

  it('a retry after the rating was kept thanks the person, whatever the membership read says then', async () => {
    let member = true;
    const { d, askFeedback } = deps({ conversations: { isMember: async () => member } });
    const told: string[] = [];
    const steps = ctx();
    const click = {
      value: TEST_SIGNER.sign(PURPOSE.feedback, `positive:${REC.answerId}`),
      user: 'U0BOB',
      channel: REC.channel,
    };
    // The first try keeps the rating, then telling fails (the intake retries).
    await expect(
      handleFeedback(d, click, steps, async () => {
        throw new Error('Slack failed the ephemeral');
      }),
    ).rejects.toThrow();
    member = false;
    await handleFeedback(d, click, steps, async (t) => void told.push(t));
    expect(askFeedback).toHaveBeenCalledExactlyOnceWith('positive');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^Thanks for rating that answer 👍/);
  });

  it('a value not signed by the bot, or for another purpose, or a forgotten answer: told, not counted', async () => {
    const { d, askFeedback } = deps();
    const told: string[] = [];
    const tell = async (t: string) => void told.push(t);
    await handleFeedback(d, { value: `positive:${REC.answerId}`, user: 'U0BOB' }, ctx(), tell);
    await handleFeedback(
      d,
      { value: TEST_SIGNER.sign(PURPOSE.change, `positive:${REC.answerId}`), user: 'U0BOB' },
      ctx(),
      tell,
    );
    await handleFeedback(
      d,
      { value: TEST_SIGNER.sign(PURPOSE.feedback, 'positive:ffffffffffffffff'), user: 'U0BOB' },
      ctx(),
      tell,
    );
    expect(askFeedback).not.toHaveBeenCalled();
    expect(told[0]).toContain("I couldn't verify that button");
    expect(told[1]).toContain("I couldn't verify that button");
    expect(told[2]).toBe(ANSWER_UNKNOWN_TEXT);
  });
});

describe('Make this a docs change', () => {
  it("someone no longer in the answer's conversation is refused (fail closed), and no job starts", async () => {
    const start = { access: { admitAgentCall: vi.fn() } };
    const { d } = deps({ conversations: { isMember: async () => false }, start: start as never });
    const told: string[] = [];
    const c = ctx();
    const value = changeValue(TEST_SIGNER, REC.asker, REC.answerId);
    await handleChange(d, { value, user: 'U0ALICE' }, c, async (t) => void told.push(t));
    await handleChange(d, { value, user: 'U0ALICE' }, c, async (t) => void told.push(t));
    expect(told).toEqual([NOT_A_MEMBER_TEXT]);
    expect(start.access.admitAgentCall).not.toHaveBeenCalled();
  });

  it('a click recorded for someone other than the asker starts nothing: they are told to click again for the form', async () => {
    const start = { access: { admitAgentCall: vi.fn(), authorize: vi.fn() } };
    const { d } = deps({ start: start as never });
    const told: string[] = [];
    const c = ctx();
    const value = changeValue(TEST_SIGNER, REC.asker, REC.answerId);
    await handleChange(d, { value, user: 'U0BOB' }, c, async (t) => void told.push(t));
    await handleChange(d, { value, user: 'U0BOB' }, c, async (t) => void told.push(t));
    expect(told).toEqual([NOT_THE_ASKER_TEXT]);
    expect(start.access.admitAgentCall).not.toHaveBeenCalled();
    expect(start.access.authorize).not.toHaveBeenCalled();
  });

  it('a value the bot did not sign, or one of an older version (no asker in it), starts nothing', async () => {
    const start = { access: { admitAgentCall: vi.fn() } };
    const { d } = deps({ start: start as never });
    const told: string[] = [];
    await handleChange(d, { value: REC.answerId, user: 'U0BOB' }, ctx(), async (t) => void told.push(t));
    const older = TEST_SIGNER.sign(PURPOSE.change, REC.answerId);
    await handleChange(d, { value: older, user: REC.asker }, ctx(), async (t) => void told.push(t));
    expect(told).toHaveLength(2);
    expect(told[0]).toContain("I couldn't verify that button");
    expect(told[1]).toContain("I couldn't verify that button");
    expect(start.access.admitAgentCall).not.toHaveBeenCalled();
  });
});
