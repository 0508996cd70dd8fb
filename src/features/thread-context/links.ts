/**
 * Slack message permalinks inside an instruction. Slack docs (chat.getPermalink; "Retrieving a
 * message's permalink"): `https://<workspace>.slack.com/archives/<channel>/p<ts without its dot>`,
 * with `?thread_ts=<root ts>&cid=<channel>` when the message is a thread reply. Enterprise Grid
 * workspaces use `<workspace>.enterprise.slack.com`.
 */

/** At most this many permalinks of one instruction are read. */
export const MAX_LINKS = 3;

/** A permalink found in an instruction. */
export interface MessageLink {
  /** The link as typed. */
  url: string;
  channel: string;
  /** The linked message's ts. */
  ts: string;
  /** The thread's root: `thread_ts` of the link's query, else the message itself. */
  threadTs: string;
}

const PERMALINK =
  /https:\/\/[a-z0-9-]+(?:\.enterprise)?\.slack\.com\/archives\/([CGD][A-Z0-9]{2,30})\/p(\d{10})(\d{6})(?:\?[^\s<>|]*)?/g;

/** `1700000000123456` digits → the ts `1700000000.123456`. */
const toTs = (seconds: string, micros: string) => `${seconds}.${micros}`;

/**
 * The Slack message permalinks in `text`, in order, one per thread (a second link into the same
 * thread adds nothing).
 */
export function findMessageLinks(text: string): MessageLink[] {
  const links: MessageLink[] = [];
  for (const m of text.matchAll(PERMALINK)) {
    const [url, channel = '', seconds = '', micros = ''] = m;
    const ts = toTs(seconds, micros);
    const query = new URLSearchParams(url.split('?')[1] ?? '');
    const threadParam = query.get('thread_ts');
    const threadTs = threadParam && /^\d{10}\.\d{6}$/.test(threadParam) ? threadParam : ts;
    if (!links.some((l) => l.channel === channel && l.threadTs === threadTs))
      links.push({ url, channel, ts, threadTs });
  }
  return links;
}

/** Why a link was not read, in the words the person sees. */
export type LinkRefusal =
  | 'not_member'
  | 'not_allowed_channel'
  | 'members_unknown'
  | 'bot_cannot_read'
  | 'not_found'
  | 'too_many'
  | 'slack_error';

/** The person's sentence for each refusal. */
const LINK_REFUSAL_TEXT: Record<LinkRefusal, string> = {
  not_member: "you're not a member of that conversation",
  not_allowed_channel: "docs jobs aren't enabled in that conversation",
  members_unknown: "you're in more conversations than I can look through, so I couldn't check that you're in that one",
  bot_cannot_read: "I'm not in that conversation (`/invite @Docs Agent` there first)",
  not_found: 'that message no longer exists',
  too_many: `I read at most ${MAX_LINKS} links per request`,
  slack_error: "Slack wouldn't let me read it just now",
};

/**
 * The one ephemeral line about links that were not read (or undefined when all were).
 * @param refused - each link with why it was not read.
 */
export function refusedLinksLine(refused: { url: string; why: LinkRefusal }[]): string | undefined {
  if (refused.length === 0) return undefined;
  const items = refused.map((r) => `${r.url} (${LINK_REFUSAL_TEXT[r.why]})`).join('; ');
  const which = refused.length === 1 ? 'One link was not expanded' : `${refused.length} links were not expanded`;
  return `${which}, so the agent got ${refused.length === 1 ? 'it' : 'them'} as typed, without the messages: ${items}.`;
}

/**
 * The ephemeral line for message links named in text the bot quotes (a question, an answer, reader
 * text): they were not read, whoever submits the form; or undefined when the quoted text names none.
 * The links themselves are not repeated (quoted text never becomes live mrkdwn).
 */
export function quotedLinksLine(quoted: string | undefined): string | undefined {
  const n = quoted ? findMessageLinks(quoted).length : 0;
  if (n === 0) return undefined;
  const what = n === 1 ? 'a Slack message link' : `${n} Slack message links`;
  return `The quoted text names ${what}; ${n === 1 ? 'it was' : 'they were'} not read: only links you type in the instruction are read, and only if you can see them.`;
}
