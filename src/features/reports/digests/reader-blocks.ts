import type { KnownBlock } from '@slack/types';
import { SLACK_LIMITS, truncate } from '../../../platform/slack/limits.js';
import { escapeReaderText } from '../../../platform/slack/markup.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { ACTION_SIGNAL_IMPROVE_PREFIX, encodeSignalImprove, type Signal } from '../signals/improve.js';
import { countOf, formatChange, formatCount } from '../format.js';
import { docsPathOf, isSafeDocsPath } from '../safe-path.js';
import { inlinePath } from '../signals/views.js';
import { readersEmpty, type ReaderSignals } from './reader-content.js';

/**
 * The digest's "What readers couldn't find" section (Block Kit): a title, then each part that has
 * something (searches nobody clicked through, pages with the most 👎, unanswered questions that
 * recur, questions asked in Slack the docs did not answer), one section per item with "Improve with agent". Reader text is escaped and cut
 * (escapeReaderText: no mention, link, unfurl or formatting survives). At most 20 blocks.
 */

/** Where the buttons go: the digest's channel (bound into each value) and docs project. */
interface ReaderBlocksContext {
  channel: string;
  projectId?: string | undefined;
  /** The digest's week in words. */
  week: string;
  signer: Pick<ValueSigner, 'sign'>;
}

const PART_TITLES = {
  searches: 'Searched often, nothing clicked',
  feedback: 'Pages with the most 👎 this week',
  questions: 'Asked the docs assistant again and again, unanswered',
  slack: 'Asked in Slack, not answered by the docs',
} as const;

function section(text: string, improve: Signal | undefined, i: number, c: ReaderBlocksContext): KnownBlock {
  const body = { type: 'mrkdwn' as const, text: truncate(text, SLACK_LIMITS.sectionText) };
  const value = improve
    ? encodeSignalImprove({ signal: improve, rangeLabel: c.week, channel: c.channel, projectId: c.projectId }, c.signer)
    : undefined;
  if (!value) return { type: 'section', text: body };
  const button = {
    type: 'button' as const,
    text: { type: 'plain_text' as const, text: 'Improve with agent', emoji: true },
    action_id: `${ACTION_SIGNAL_IMPROVE_PREFIX}${i}`,
    value,
  };
  return { type: 'section', block_id: `digest-signal-${i}`, text: body, accessory: button };
}

function title(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: `*${text}*` }] };
}

function searchBlocks(r: ReaderSignals, c: ReaderBlocksContext, next: () => number): KnownBlock[] {
  if (!r.unclicked?.length) return [];
  return [
    title(PART_TITLES.searches),
    ...r.unclicked.map((s) =>
      section(
        `“${escapeReaderText(s.searchQuery, 120)}” · ${countOf(s.hits, 'search', 'searches')}, no result clicked`,
        { kind: 'search', term: s.searchQuery, hits: s.hits },
        next(),
        c,
      ),
    ),
  ];
}

function feedbackBlocks(r: ReaderSignals, c: ReaderBlocksContext, next: () => number): KnownBlock[] {
  if (!r.thumbsDown?.length) return [];
  return [
    title(PART_TITLES.feedback),
    ...r.thumbsDown.map((p) => {
      const path = docsPathOf(p.path);
      const safe = path !== undefined && isSafeDocsPath(path);
      const latest = p.comments[0];
      const comment = latest ? `\n> “${escapeReaderText(latest.text, 160)}”` : '';
      const counts = `👎 ${formatCount(p.thumbsDown)} · 👍 ${formatCount(p.thumbsUp)}`;
      const text = `${inlinePath(p.path, 60)} · ${counts}${comment}`;
      const improve: Signal | undefined =
        safe && path
          ? {
              kind: 'feedback',
              path,
              thumbsDown: p.thumbsDown,
              thumbsUp: p.thumbsUp,
              comments: p.comments.map((x) => x.text),
            }
          : undefined;
      return section(
        safe ? text : `${text}\n_(unusual characters in the path: not offered to the agent)_`,
        improve,
        next(),
        c,
      );
    }),
  ];
}

function questionBlocks(r: ReaderSignals, c: ReaderBlocksContext, next: () => number): KnownBlock[] {
  if (!r.questions?.length) return [];
  return [
    title(PART_TITLES.questions),
    ...r.questions.map(({ group: g, lastWeek, pct }) => {
      const change =
        lastWeek === null
          ? ''
          : lastWeek === 0
            ? ' · new this week'
            : ` · ${formatChange(pct)} vs the week before (${formatCount(lastWeek)})`;
      const text = `“${escapeReaderText(g.question, 200)}” · asked ${formatCount(g.count)}×${change}`;
      const improve: Signal = {
        kind: 'question',
        question: g.question,
        count: g.count,
        response: g.response,
        pageUrl: g.pageUrls[0],
      };
      return section(text, improve, next(), c);
    }),
  ];
}

/** "here", or the channels it was asked in (`<#C…>`; "here" for the digest's own); an id that is not Slack's is left out. */
function askedWhere(channels: readonly string[] | undefined, own: string): string {
  const named = (channels ?? []).filter((ch) => /^[A-Z0-9]+$/.test(ch));
  if (named.length === 0 || (named.length === 1 && named[0] === own)) return 'here';
  return `in ${named.map((ch) => (ch === own ? 'here' : `<#${ch}>`)).join(', ')}`;
}

function slackBlocks(r: ReaderSignals, c: ReaderBlocksContext, next: () => number): KnownBlock[] {
  if (!r.slack?.length) return [];
  return [
    title(PART_TITLES.slack),
    ...r.slack.map((q) => {
      const text = `“${escapeReaderText(q.question, 200)}” · asked ${formatCount(q.count)}× ${askedWhere(q.channels, c.channel)}`;
      const improve: Signal = { kind: 'question', question: q.question, count: q.count, response: '' };
      return section(text, improve, next(), c);
    }),
  ];
}

/** The section's blocks, or none when it has nothing to show (sections with nothing in them are left out). */
export function readerBlocks(r: ReaderSignals | undefined, c: ReaderBlocksContext): KnownBlock[] {
  if (!r || readersEmpty(r)) return [];
  let i = 0;
  const next = () => i++;
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: "*What readers couldn't find* (their own words are shown as plain text)" },
    },
    ...searchBlocks(r, c, next),
    ...feedbackBlocks(r, c, next),
    ...questionBlocks(r, c, next),
    ...slackBlocks(r, c, next),
  ];
  const failed = r.failures.map((f) => `${PART_TITLES[f.section]}: not shown (${f.text})`);
  if (failed.length > 0)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: truncate(failed.join('\n'), SLACK_LIMITS.sectionText) }],
    });
  return blocks;
}

/** The section in one line, for the message's notification text (empty when it is left out). */
export function readerSummary(r: ReaderSignals | undefined): string {
  if (!r || readersEmpty(r)) return '';
  const n = (count: number | undefined, one: string, many: string) =>
    count ? `${count} ${count === 1 ? one : many}` : '';
  const parts = [
    n(r.unclicked?.length, 'search with no click', 'searches with no click'),
    n(r.thumbsDown?.length, 'page with 👎', 'pages with 👎'),
    n(r.questions?.length, 'recurring unanswered question', 'recurring unanswered questions'),
    n(r.slack?.length, 'question from Slack not answered', 'questions from Slack not answered'),
  ].filter(Boolean);
  return parts.length > 0 ? ` · readers: ${parts.join(', ')}` : '';
}
