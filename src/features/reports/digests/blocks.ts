import type { KnownBlock } from '@slack/types';
import { SLACK_LIMITS, truncate } from '../../../platform/slack/limits.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { MOVER_MIN_CHANGE_PCT, type DigestContent, type PageChange } from './content.js';
import { codeSafe, formatChange, formatCount, formatShare, inlineReaderPath, pad, readerPath } from '../format.js';
import { formatRange, type DateRange } from '../date-range.js';
import { isSafeDocsPath } from '../safe-path.js';
import type { ReaderSignals } from './reader-content.js';
import { readerBlocks, readerSummary } from './reader-blocks.js';
import { ACTION_IMPROVE_PREFIX, encodeImproveValue } from './improve-value.js';

/**
 * The weekly digest message (Block Kit). Stays small whatever the paths: ≤ 20 blocks, every
 * section ≤ 3000 chars, paths cut to {@link DIGEST_PATH_MAX} code points in text (the full path
 * travels in the "Improve with agent" button's value, ≤ 2000 chars).
 */

/** Longest path shown in the digest's text, in code points. */
const DIGEST_PATH_MAX = 60;
/** New pages listed by name (the rest are counted). */
const NEW_PAGES_LISTED = 10;
/** Slack message metadata `event_type` of digest messages (lets tools and tests find them). */
export const DIGEST_EVENT_TYPE = 'docs_visitors_digest';

/**
 * How the digest was triggered, for its footer. A manual one knows whether the channel has a weekly
 * digest (`subscribed`; absent when it could not be read).
 */
export type DigestTrigger =
  { kind: 'scheduled'; scheduleText?: string } | { kind: 'manual'; requestedBy: string; subscribed?: boolean };

function inlinePath(path: string): string {
  return inlineReaderPath(path, DIGEST_PATH_MAX);
}

function moverLine(p: PageChange): string {
  return `${inlinePath(p.path)}  ${formatCount(p.human.previous)} → ${formatCount(p.human.current)} (${formatChange(p.human.pct)})`;
}

function topBlock(top: PageChange[]): string {
  const width = Math.min(40, Math.max(4, ...top.map((p) => [...readerPath(p.path, 40)].length)));
  const totalWidth = Math.max(5, ...top.map((p) => formatCount(p.current.total).length));
  const lines = top.map((p, i) =>
    codeSafe(
      `${pad(String(i + 1), 2, 'right')}. ${pad(readerPath(p.path, width), width, 'left')}  ${pad(formatCount(p.current.total), totalWidth, 'right')}  ${formatChange(p.total.pct)}`,
    ),
  );
  return `*Top ${top.length} pages* (all visitors, change vs the week before)\n\`\`\`\n${lines.join('\n')}\n\`\`\``;
}

/**
 * Builds the digest message of the visitors section alone (the digest of a channel that chose only
 * it, and of one whose readers part is empty).
 *
 * @param content - from buildDigestContent.
 * @param trigger - scheduled (with the schedule in words) or a manual "send now".
 * @returns text (notification fallback) and blocks; each falling page has an "Improve with agent"
 *   button (`visitors.digest.improve.<i>`) whose value is an {@link ImproveValue}, signed by `signer`.
 */
export function buildDigestMessage(
  content: DigestContent,
  trigger: DigestTrigger,
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  return buildDigest({ week: content, visitors: content }, trigger, signer);
}

/** What one digest shows: its weeks, and the sections the channel gets (a section absent: not chosen). */
export interface DigestParts {
  week: { current: DateRange; previous: DateRange };
  visitors?: DigestContent | undefined;
  /** "What readers couldn't find", with where its buttons go. */
  readers?: { signals: ReaderSignals; channel: string; projectId?: string | undefined } | undefined;
}

/**
 * Builds the digest message: the header, the visitors section (totals, top pages, risers, falling
 * pages with "Improve with agent", new pages) when chosen, "What readers couldn't find" when chosen
 * and not empty, and the footer (≤ 45 blocks).
 */
export function buildDigest(
  parts: DigestParts,
  trigger: DigestTrigger,
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  const week = formatRange(parts.week.current);
  const header = truncate(`Weekly docs digest · ${week}`, SLACK_LIMITS.headerText);
  const blocks: KnownBlock[] = parts.visitors
    ? visitorBlocks(parts.visitors, week, signer)
    : [{ type: 'header', text: { type: 'plain_text', text: header, emoji: true } }];
  const readers = parts.readers;
  if (readers) {
    const where = { channel: readers.channel, projectId: readers.projectId, week, signer };
    blocks.push(...readerBlocks(readers.signals, where));
  }
  if (blocks.length === 1) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: '_Nothing to report this week._' } });
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: digestFooter(trigger) }] });
  const t = parts.visitors?.totals;
  const change = t ? `${formatChange(t.total.pct)} vs the week before` : '';
  const traffic = t ? `: ${formatCount(t.total.current)} visitors (${change})` : '';
  return { text: `Weekly docs digest, ${week}${traffic}${readerSummary(readers?.signals)}`, blocks };
}

/** The footer: the channel's schedule, or who asked for this one and whether the channel has a weekly digest. */
function digestFooter(trigger: DigestTrigger): string {
  if (trigger.kind === 'scheduled') {
    const schedule = trigger.scheduleText ? `, ${trigger.scheduleText}` : '';
    return `This channel's weekly digest${schedule} · \`/docs-visitors unsubscribe\` stops it`;
  }
  const asked = `Sent now at the request of <@${trigger.requestedBy}>`;
  if (trigger.subscribed === undefined) return asked;
  return trigger.subscribed
    ? `${asked} (this channel's weekly schedule is unchanged)`
    : `${asked} · this channel has no weekly digest: \`/docs-visitors subscribe\` starts one`;
}

/** The visitors section: summary, top pages, risers, falling pages (with Improve), new pages. */
function visitorBlocks(content: DigestContent, week: string, signer: Pick<ValueSigner, 'sign'>): KnownBlock[] {
  const section = (text: string): KnownBlock => ({
    type: 'section',
    text: { type: 'mrkdwn', text: truncate(text, SLACK_LIMITS.sectionText) },
  });
  const blocks: KnownBlock[] = [
    ...summaryBlocks(content, week),
    section(content.top.length > 0 ? topBlock(content.top) : 'No visitors were recorded this week.'),
  ];
  const risers = content.risers.length
    ? content.risers.map((p) => `• ${moverLine(p)}`).join('\n')
    : `_No page gained ${MOVER_MIN_CHANGE_PCT}% or more human readers._`;
  blocks.push(section(`*Biggest risers* (human readers)\n${risers}`), ...fallerBlocks(content, week, signer));
  if (content.newPages.length > 0) {
    const listed = content.newPages
      .slice(0, NEW_PAGES_LISTED)
      .map((p) => `${inlinePath(p.path)} (${formatCount(p.current.total)})`);
    const more = content.newPages.length - listed.length;
    blocks.push(
      section(
        `*New this week* (${content.newPages.length}): ${listed.join(' · ')}${more > 0 ? ` · and ${more} more` : ''}`,
      ),
    );
  }
  return blocks;
}

/** Header, the four totals with their change, and what was compared. */
function summaryBlocks(content: DigestContent, week: string): KnownBlock[] {
  const t = content.totals;
  const compared = `Last 7 full days vs the 7 before (${formatRange(content.previous)}) · ${formatCount(content.pageCount)} pages with visitors${content.truncated ? ' (the busiest ones compared)' : ''}`;
  return [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: truncate(`Weekly docs digest · ${week}`, SLACK_LIMITS.headerText),
        emoji: true,
      },
    },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Human*\n${formatCount(t.human.current)}  ${formatChange(t.human.pct)}` },
        { type: 'mrkdwn', text: `*AI*\n${formatCount(t.ai.current)}  ${formatChange(t.ai.pct)}` },
        {
          type: 'mrkdwn',
          text: `*Total (deduplicated)*\n${formatCount(t.total.current)}  ${formatChange(t.total.pct)}`,
        },
        { type: 'mrkdwn', text: `*AI share*\n${formatShare(t.ai.current, t.total.current)}` },
      ],
    },
    { type: 'context', elements: [{ type: 'mrkdwn', text: compared }] },
    { type: 'divider' },
  ];
}

/** The falling pages, each with its "Improve with agent" button (or a line saying none fell). */
function fallerBlocks(content: DigestContent, week: string, signer: Pick<ValueSigner, 'sign'>): KnownBlock[] {
  if (content.fallers.length === 0) {
    return [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `*Falling pages* (human readers)\n_No page lost ${MOVER_MIN_CHANGE_PCT}% or more of its readers._`,
        },
      },
    ];
  }
  return [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: '*Falling pages* (human readers): ask the docs agent to take a look' },
    },
    ...content.fallers.map((p, i): KnownBlock => {
      const fellPct = Math.min(100, Math.round(Math.abs(p.human.pct ?? 0)));
      const text = truncate(moverLine(p), SLACK_LIMITS.sectionText);
      if (!isSafeDocsPath(p.path)) {
        // A path anyone could have made up to carry text to the agent: listed, never offered.
        return {
          type: 'section',
          block_id: `visitors-faller-${i}`,
          text: {
            type: 'mrkdwn',
            text: truncate(
              `${moverLine(p)}  _(unusual characters in the path: not offered to the agent)_`,
              SLACK_LIMITS.sectionText,
            ),
          },
        };
      }
      const improve = { path: p.path, fellPct, current: p.human.current, previous: p.human.previous, rangeLabel: week };
      return {
        type: 'section',
        block_id: `visitors-faller-${i}`,
        text: { type: 'mrkdwn', text },
        accessory: {
          type: 'button',
          text: { type: 'plain_text', text: 'Improve with agent', emoji: true },
          action_id: `${ACTION_IMPROVE_PREFIX}${i}`,
          value: encodeImproveValue(improve, signer),
        },
      };
    }),
  ];
}
