import { describe, expect, it } from 'vitest';
import type { FeedbackByPageResponse } from '../../../../src/platform/docs-api/analytics-schemas.js';
import { buildSignalMessage } from '../../../../src/features/reports/signals/blocks.js';
import type { CommentsPage, UnansweredPage } from '../../../../src/features/reports/signals/data.js';
import type { SignalState } from '../../../../src/features/reports/signals/state.js';
import { feedbackView, questionsView } from '../../../../src/features/reports/signals/views.js';
import { buildDigest } from '../../../../src/features/reports/digests/blocks.js';
import { buildDigestContent, type WeekOfVisitors } from '../../../../src/features/reports/digests/content.js';
import type { ReaderSignals } from '../../../../src/features/reports/digests/reader-content.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { expectSlackTakesMessage } from '../../../helpers/block-kit.js';
import { signalState } from '../../../helpers/signal-state.js';

/*
 * A page path is reader-supplied (the feedback widget's path, an assistant conversation's
 * `currentPath`, a made-up URL someone visited): shown in a report or the digest, it is one inert
 * line of inline code, whatever line breaks and control or format characters it carries.
 */

/** A path that, with its line break kept, would end the code span and post live mrkdwn. */
const HOSTILE_PATH = '/billing\nhttps://evil.example/login *urgent* <!here>\u2028@channel\u202e\r\n\t`x`';

/** Every mrkdwn/plain `text` string in blocks. */
function texts(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(texts);
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => (k === 'text' && typeof x === 'string' ? [x] : texts(x)));
  return [];
}

/** The path is shown on one line, in one code span, and nothing of it is outside code. */
function expectInertPath(blocks: unknown[]): void {
  const all = texts(blocks).join('\n\n');
  expect(all).toMatch(/`\/billing https:\/\/evil\.exa[^`\n]*ˋxˋ`/);
  for (const line of all.split('\n')) {
    const outside = line.replace(/`[^`]*`/g, '');
    expect(outside).not.toMatch(/evil\.example|\*urgent\*|<!here>|@channel/);
  }
  expect(all).not.toMatch(/[\u2028\u202e\r\t]/);
}

const state: SignalState = signalState({ report: 'feedback' });

describe('a reader-supplied page path with line breaks', () => {
  it('is one inert line in the feedback report', () => {
    const byPage: FeedbackByPageResponse = {
      feedback: [{ path: HOSTILE_PATH, thumbsUp: 0, thumbsDown: 4, code: 0, total: 4 }],
      hasMore: false,
    };
    const comments: CommentsPage = { comments: [], scanned: 0 } as unknown as CommentsPage;
    const m = buildSignalMessage(feedbackView(byPage, comments), state, { channel: 'C0DOCS', signer: TEST_SIGNER });
    expectInertPath(m.blocks);
    expectSlackTakesMessage(m);
  });

  it("is one inert line in the questions report (the conversation's page)", () => {
    const page: UnansweredPage = {
      turns: [
        {
          query: 'How do I pay?',
          response: 'Not covered.',
          timestamp: '2026-11-20T10:00:00Z',
          pageUrl: HOSTILE_PATH,
        },
      ],
      scanned: 1,
      nextCursor: null,
    } as unknown as UnansweredPage;
    const m = buildSignalMessage(
      questionsView(page, 0),
      { ...state, report: 'questions' },
      {
        channel: 'C0DOCS',
        signer: TEST_SIGNER,
      },
    );
    expectInertPath(m.blocks);
  });

  it('is one inert line in the weekly digest: its visitors section and its pages with 👎', () => {
    const week = (dateFrom: string, dateTo: string, human: number): WeekOfVisitors => ({
      range: { dateFrom, dateTo },
      totals: { human: 1000, ai: 100, total: 1100 },
      rows: [
        { path: HOSTILE_PATH, human, ai: 10, total: human + 10 },
        { path: '/quickstart', human: 500, ai: 50, total: 550 },
      ],
      truncated: false,
    });
    const content = buildDigestContent(week('2026-11-16', '2026-11-23', 100), week('2026-11-09', '2026-11-16', 300));
    const signals: ReaderSignals = {
      unclicked: [],
      thumbsDown: [{ path: HOSTILE_PATH, thumbsDown: 9, thumbsUp: 1, code: 0, total: 10, comments: [] }],
      questions: [],
      failures: [],
    };
    const m = buildDigest(
      { week: content, visitors: content, readers: { signals, channel: 'C0DOCS', projectId: 'proj_docs' } },
      { kind: 'scheduled' },
      TEST_SIGNER,
    );
    const all = texts(m.blocks).join('\n');
    // The falling page, the top 10 (a code block: one row per page) and the pages with 👎.
    expect(all.match(/^`\/billing https:\/\/evil\.example\/…[^`\n]*ˋxˋ`/gm)).toHaveLength(2);
    expect(all).toMatch(/^ 1\. \/billing https:\/\/evi…[^\n]*ˋxˋ +110 +▼ 65%$/m);
    expectInertPath(m.blocks.filter((b) => !JSON.stringify(b).includes('```')));
    expectSlackTakesMessage(m);
  });
});
