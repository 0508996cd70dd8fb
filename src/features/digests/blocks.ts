import type { KnownBlock } from '@slack/types';
import { z } from 'zod';
import { SLACK_LIMITS, truncate } from '../../platform/slack/limits.js';
import { SIGNATURE_OVERHEAD, type ValueSigner } from '../../platform/slack/signed-value.js';
import { MOVER_MIN_CHANGE_PCT, type DigestContent, type PageChange } from './content.js';
import {
  codeSafe,
  formatChange,
  formatCount,
  formatRange,
  formatShare,
  isSafeDocsPath,
  middleTruncate,
  pad,
  type DateRange,
} from '../visitors/index.js';
import type { ReaderSignals } from './reader-content.js';
import { readerBlocks, readerSummary } from './reader-blocks.js';

/**
 * The weekly digest message (Block Kit). Stays small whatever the paths: ≤ 20 blocks, every
 * section ≤ 3000 chars, paths cut to {@link DIGEST_PATH_MAX} code points in text (the full path
 * travels in the "Improve with agent" button's value, ≤ 2000 chars).
 */

/** Longest path shown in the digest's text, in code points. */
export const DIGEST_PATH_MAX = 60;
/** New pages listed by name (the rest are counted). */
export const NEW_PAGES_LISTED = 10;
/** Prefix of the "Improve with agent" buttons' action_ids (`visitors.digest.improve.0`, `.1`, …). */
export const ACTION_IMPROVE_PREFIX = 'visitors.digest.improve.';
/** action_id of Retry on a digest that could not be built. */
export const ACTION_DIGEST_RETRY = 'visitors.digest.retry';
/** Slack message metadata `event_type` of digest messages (lets tools and tests find them). */
export const DIGEST_EVENT_TYPE = 'docs_visitors_digest';

export { isSafeDocsPath, SAFE_DOCS_PATH } from '../visitors/index.js';

/**
 * The pages a digest message offers "Improve with agent" for (its own buttons' paths, signed by the
 * bot), read from the message as Slack sends it back with a click (block_actions `message.blocks`).
 */
export function improvablePaths(blocks: unknown, signer: Pick<ValueSigner, 'open'>): Set<string> {
  const paths = new Set<string>();
  if (!Array.isArray(blocks)) return paths;
  for (const b of blocks as { accessory?: { action_id?: unknown; value?: unknown } }[]) {
    const a = b?.accessory;
    if (
      typeof a?.action_id !== 'string' ||
      !a.action_id.startsWith(ACTION_IMPROVE_PREFIX) ||
      typeof a.value !== 'string'
    )
      continue;
    const v = decodeImproveValue(a.value, signer);
    if (v.ok) paths.add(v.page.path);
  }
  return paths;
}

/** What an "Improve with agent" button carries: the page and its numbers. */
export interface ImproveValue {
  path: string;
  /** Percent fewer human readers than the week before (positive number). */
  fellPct: number;
  current: number;
  previous: number;
  /** The digest's week in words ("Nov 15 – Nov 21, 2026"). */
  rangeLabel: string;
}

const improveSchema = z.object({
  p: z.string().min(1).max(1500),
  n: z.number().int().min(0).max(100),
  c: z.number().min(0),
  v: z.number().min(0),
  r: z.string().max(120),
});

/** What "Improve with agent" values are signed for (src/platform/slack/signed-value.ts). */
export const IMPROVE_PURPOSE = 'digests.improve';

/**
 * Encodes an {@link ImproveValue} as a signed button value, within Slack's 2000 chars (Block Kit:
 * button `value` ≤ 2000): the path is cut until the *encoded* JSON fits with the signature (quotes
 * and backslashes in a path grow when JSON-escaped).
 */
export function encodeImproveValue(v: ImproveValue, signer: Pick<ValueSigner, 'sign'>): string {
  const wire = (p: string) => ({ p, n: v.fellPct, c: v.current, v: v.previous, r: v.rangeLabel.slice(0, 120) });
  const json = fitJson(v.path, 1500, SLACK_LIMITS.buttonValue - SIGNATURE_OVERHEAD, wire);
  return signer.sign(IMPROVE_PURPOSE, json);
}

/**
 * JSON of `build(path cut to some length)`, cutting the path (from `startCut` chars, by a fifth
 * each time) until the JSON is at most `max` chars long.
 */
export function fitJson(path: string, startCut: number, max: number, build: (path: string) => unknown): string {
  let cut = Math.min(path.length, startCut);
  for (;;) {
    const json = JSON.stringify(build(path.slice(0, cut)));
    if (json.length <= max || cut === 0) return json;
    cut = Math.floor(cut * 0.8);
  }
}

/**
 * Decodes a button value: the page when the bot signed the value and its path is safe; else why
 * not (`unsigned`/`tampered`: not the bot's; `malformed`: unreadable or an unsafe path).
 */
export function decodeImproveValue(
  value: string | undefined,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; page: ImproveValue } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  if (!value || value.length > SLACK_LIMITS.buttonValue) return { ok: false, reason: 'malformed' };
  const opened = signer.open(IMPROVE_PURPOSE, value);
  if (!opened.ok) return opened;
  try {
    const w = improveSchema.parse(JSON.parse(opened.payload));
    if (!isSafeDocsPath(w.p)) return { ok: false, reason: 'malformed' };
    return { ok: true, page: { path: w.p, fellPct: w.n, current: w.c, previous: w.v, rangeLabel: w.r } };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}

/** How the digest was triggered, for its footer. */
export type DigestTrigger = { kind: 'scheduled'; scheduleText?: string } | { kind: 'manual'; requestedBy: string };

function inlinePath(path: string): string {
  return `\`${codeSafe(middleTruncate(path, DIGEST_PATH_MAX))}\``;
}

function moverLine(p: PageChange): string {
  return `${inlinePath(p.path)}  ${formatCount(p.human.previous)} → ${formatCount(p.human.current)} (${formatChange(p.human.pct)})`;
}

function topBlock(top: PageChange[]): string {
  const width = Math.min(40, Math.max(4, ...top.map((p) => [...p.path].length)));
  const totalWidth = Math.max(5, ...top.map((p) => formatCount(p.current.total).length));
  const lines = top.map((p, i) =>
    codeSafe(
      `${pad(String(i + 1), 2, 'right')}. ${pad(middleTruncate(p.path, width), width, 'left')}  ${pad(formatCount(p.current.total), totalWidth, 'right')}  ${formatChange(p.total.pct)}`,
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
  const schedule = trigger.kind === 'scheduled' && trigger.scheduleText ? `, ${trigger.scheduleText}` : '';
  const footer =
    trigger.kind === 'manual'
      ? `Sent now at the request of <@${trigger.requestedBy}> (the schedule is unchanged)`
      : `This channel's weekly digest${schedule} · \`/docs-visitors unsubscribe\` stops it`;
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: footer }] });
  const t = parts.visitors?.totals;
  const change = t ? `${formatChange(t.total.pct)} vs the week before` : '';
  const traffic = t ? `: ${formatCount(t.total.current)} visitors (${change})` : '';
  return { text: `Weekly docs digest, ${week}${traffic}${readerSummary(readers?.signals)}`, blocks };
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

/**
 * The message posted when a digest run could not be built after its retries, with a Retry button
 * that queues the digest again.
 */
export function buildDigestFailureMessage(reason: string, rangeLabel: string): { text: string; blocks: KnownBlock[] } {
  const text = `The weekly docs digest for ${rangeLabel} could not be built. ${reason}`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(`:warning: ${text}`, SLACK_LIMITS.sectionText) } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Retry' },
            action_id: ACTION_DIGEST_RETRY,
            value: 'retry',
          },
        ],
      },
    ],
  };
}
