import type { KnownBlock, PlainTextOption } from '@slack/types';
import { z } from 'zod';
import { SLACK_LIMITS } from '../../platform/slack/limits.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { DateRange } from './date-range.js';
import { apiDate, datesInOrder, stateCodec, wireFields, type OpenedState } from './signed-state.js';

/**
 * The menu on every report ("Other reports for these dates"): a `static_select` listing the other
 * reports; choosing one replaces the message in place with that report's first page, for the same
 * dates and docs project. An option's `value` holds only the report's name (Slack: option value ≤ 150
 * chars), so the dates and the project ride, signed, in the menu block's `block_id` (Slack: ≤ 255
 * chars; Block Kit sends it back with the action as `actions[].block_id`). The signature binds it
 * to the report's channel too (the channel is part of what is signed, not of the payload, which has
 * no room for it): a block_id chosen in another channel does not open.
 */

/** The reports of `/docs-visitors`, as typed after it (`visitors` is the one with no name). */
export const REPORT_KINDS = ['visitors', 'searches', 'feedback', 'questions'] as const;
/** One of {@link REPORT_KINDS}. */
export type ReportKind = (typeof REPORT_KINDS)[number];

/** `action_id` of the menu's select. */
export const ACTION_MENU = 'visitors.menu';
/** What the menu's block_id is signed for (src/platform/slack/signed-value.ts), with its channel: {@link menuPurpose}. */
export const MENU_PURPOSE = 'visitors.menu';

/** The purpose a menu in `channel` is signed for: a block_id made for one channel does not open in another. */
function menuPurpose(channel: string): string {
  return `${MENU_PURPOSE}:${channel}`;
}

/** What each report is called in the menu and in help. */
const REPORT_TITLES: Readonly<Record<ReportKind, string>> = {
  visitors: 'Visitors and views',
  searches: 'Searches',
  feedback: 'Feedback (👍/👎 and comments)',
  questions: 'Unanswered assistant questions',
};

/** What the menu remembers: the dates and the docs project of the report it sits on. */
interface MenuState extends DateRange {
  projectId?: string | undefined;
}

/** The menu's state on the wire ({@link stateCodec}): no version, no channel (it is in the purpose). */
const menuSchema = z
  .object({
    f: apiDate,
    t: apiDate,
    p: wireFields.p.optional(),
  })
  .refine(datesInOrder, 'dateFrom not before dateTo');
const codec = stateCodec<MenuState, z.infer<typeof menuSchema>>({
  schema: menuSchema,
  toWire: (s) => ({ f: s.dateFrom, t: s.dateTo, ...(s.projectId ? { p: s.projectId } : {}) }),
  fromWire: (w) => ({ dateFrom: w.f, dateTo: w.t, ...(w.p ? { projectId: w.p } : {}) }),
});

/** True for one of {@link REPORT_KINDS}. */
export function isReportKind(s: unknown): s is ReportKind {
  return typeof s === 'string' && (REPORT_KINDS as readonly string[]).includes(s);
}

/**
 * The menu block of a `current` report in `channel`: a section whose block_id is the signed
 * {@link MenuState} (≤ 228 chars: dates ≤ 40, a project id ≤ 100; signed for {@link menuPurpose})
 * and whose accessory selects one of the other reports.
 */
export function reportMenu(
  current: ReportKind,
  state: MenuState,
  channel: string,
  signer: Pick<ValueSigner, 'sign'>,
): KnownBlock {
  const blockId = codec.sign(state, menuPurpose(channel), signer);
  if (blockId === undefined || blockId.length > SLACK_LIMITS.blockId)
    throw new Error('menu state too long for a block_id');
  const options: PlainTextOption[] = REPORT_KINDS.filter((k) => k !== current).map((k) => ({
    text: { type: 'plain_text', text: REPORT_TITLES[k], emoji: true },
    value: k,
  }));
  return {
    type: 'section',
    block_id: blockId,
    text: { type: 'mrkdwn', text: '*Other reports for these dates*' },
    accessory: {
      type: 'static_select',
      action_id: ACTION_MENU,
      placeholder: { type: 'plain_text', text: 'Open a report', emoji: true },
      options,
    },
  };
}

/**
 * The state of a menu's `block_id` chosen in `channel`, when the bot signed it for that channel and
 * it validates; else why not (`unsigned`/`tampered`: not the bot's, or another channel's;
 * `malformed`: empty, unreadable).
 */
export function openMenuState(
  blockId: string | undefined,
  channel: string,
  signer: Pick<ValueSigner, 'open'>,
): OpenedState<MenuState> {
  return codec.open(blockId, menuPurpose(channel), signer);
}
