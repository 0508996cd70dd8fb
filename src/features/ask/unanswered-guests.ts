/**
 * Whether a digest channel has guests, for the digest's "Asked in Slack, not answered by the docs"
 * (see `unanswered-reach`): a guest (`is_restricted`, multi-channel; `is_ultra_restricted`,
 * single-channel; docs.slack.dev "User object") can't see the public channels they are not in, so a
 * channel with one must not be shown other channels' questions. Read from Slack's member list
 * (conversations.members, cursor-paginated) and people's facts (users.info, through the access
 * directory's cache), within bounds: a channel too large to read, or with too many people whose facts
 * are not cached, is "unknown", like one whose reads fail.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/logger.js';
import { slackErrorCode } from '../../platform/slack/errors.js';

/** Members of a digest channel read at most (conversations.members, pages of {@link MEMBERS_PAGE}): a larger channel is "unknown". */
export const DIGEST_MEMBERS_AT_MOST = 1_000;
/** users.info calls one digest makes at most (people whose facts are not cached): more needed is "unknown", and none is made. */
export const DIGEST_USERS_INFO_AT_MOST = 200;
/** conversations.members page size (Slack: at most 999; 5 pages for {@link DIGEST_MEMBERS_AT_MOST}). */
const MEMBERS_PAGE = 200;
/** users.info calls in flight at once (users.info is Tier 4: 100+ per minute). */
const LOOKUPS_AT_ONCE = 8;

/** People's facts as the access directory tells them (`SlackDirectory`). */
export interface DigestPeople {
  /** The person's facts (cached, else users.info). @throws when Slack fails. */
  user(id: string): Promise<{ isGuest: boolean; isStranger: boolean }>;
  /** Whether the person's facts are cached (asking them costs no users.info call). */
  knows(id: string): boolean;
}

/** What a digest channel's members are: all full members of the workspace, someone who isn't, or not known. */
type ChannelGuests = 'none' | 'guests' | 'unknown';

/**
 * The members of `channel` (conversations.members, pages of 200), or undefined when there are more
 * than {@link DIGEST_MEMBERS_AT_MOST} (at most 5 calls). @throws the Slack error.
 */
async function membersOf(
  slack: { conversations: Pick<WebClient['conversations'], 'members'> },
  channel: string,
): Promise<string[] | undefined> {
  const members: string[] = [];
  let cursor: string | undefined;
  do {
    if (members.length >= DIGEST_MEMBERS_AT_MOST) return undefined;
    const page = await slack.conversations.members({ channel, limit: MEMBERS_PAGE, ...(cursor ? { cursor } : {}) });
    members.push(...(page.members ?? []));
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return members.length > DIGEST_MEMBERS_AT_MOST ? undefined : members;
}

/**
 * Whether `channel` has a guest (or a stranger, `is_stranger`) among its members: `none`, `guests`,
 * or `unknown` when it has more than {@link DIGEST_MEMBERS_AT_MOST} members, more than
 * {@link DIGEST_USERS_INFO_AT_MOST} members whose facts `people` has not cached (no users.info call
 * is made then), or a read fails (a warn line, without names). Cached people are asked first; the
 * first guest found ends the lookups. Never throws.
 */
export async function digestChannelGuests(
  slack: { conversations: Pick<WebClient['conversations'], 'members'> },
  people: DigestPeople,
  channel: string,
  logger: Logger,
): Promise<ChannelGuests> {
  try {
    const members = await membersOf(slack, channel);
    if (!members) return 'unknown';
    const cached = members.filter((m) => people.knows(m));
    const fetched = members.filter((m) => !people.knows(m));
    if (fetched.length > DIGEST_USERS_INFO_AT_MOST) return 'unknown';
    const ordered = [...cached, ...fetched];
    for (let i = 0; i < ordered.length; i += LOOKUPS_AT_ONCE) {
      const facts = await Promise.all(ordered.slice(i, i + LOOKUPS_AT_ONCE).map((m) => people.user(m)));
      if (facts.some((f) => f.isGuest || f.isStranger)) return 'guests';
    }
    return 'none';
  } catch (err) {
    const why = slackErrorCode(err) ?? (err as { code?: unknown }).code ?? 'error';
    logger.warn(
      { channel, reason: String(why) },
      'could not tell whether a digest channel has guests; its digest shows only the questions asked in it',
    );
    return 'unknown';
  }
}
