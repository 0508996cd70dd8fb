/**
 * What the transcript renderer shares: loose JSON accessors, ANSI colouring, and the {@link Namer}
 * that turns Slack ids and mrkdwn markup into what a person reads in the Slack client.
 */
import type { FakeSlack, SlackMessage } from '../fake-slack.js';

/** A Block Kit object or any other JSON object. */
export type Json = Record<string, unknown>;

/** The part of the fake needed to turn ids into names. */
export type Directory = Pick<FakeSlack, 'botUserId' | 'users' | 'channels'>;

/** How the bot is shown in transcripts. */
export const BOT_NAME = 'Docs Agent';

const ANSI = { bold: '1', dim: '2', cyan: '36', magenta: '35', yellow: '33', red: '31' } as const;

/** An ANSI style name of {@link paint}. */
export type Style = keyof typeof ANSI;

/** `s` wrapped in the ANSI `codes` when `on` (and `s` is not empty), else `s` unchanged. */
export function paint(on: boolean, codes: Style[], s: string): string {
  if (!on || s === '') return s;
  return `\u001b[${codes.map((c) => ANSI[c]).join(';')}m${s}\u001b[0m`;
}

/** `v` as an object, or undefined (arrays and null excluded). */
export const asObj = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
/** `v` as an array, or `[]`. */
export const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** `v` as a string, or `''`. */
export const asStr = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Turns ids and Slack mrkdwn markup into what a reader sees. */
export class Namer {
  /**
   * @param slack - users and channels to look names up in.
   * @param names - display names by user id, preferred over the fake's user names.
   */
  constructor(
    private readonly slack: Directory,
    private readonly names: Map<string, string>,
  ) {}

  /** A directory-less namer (ids stay ids), for one-line call summaries. */
  static empty(): Namer {
    return new Namer({ botUserId: '', users: [], channels: [] }, new Map());
  }

  /** Whether `m` is the bot's (its user is the bot user, or it carries a bot_id). */
  isBot(m: SlackMessage): boolean {
    return m.user === this.slack.botUserId || Boolean(m.bot_id);
  }

  /** A user's display name: "Docs Agent" for the bot, `names` first, then the fake's users; the id itself when unknown, "someone" when missing. */
  user(id: string | undefined): string {
    if (!id) return 'someone';
    if (id === this.slack.botUserId) return BOT_NAME;
    return this.names.get(id) ?? this.slack.users.find((u) => u.id === id)?.name ?? id;
  }

  /** A channel as the client titles it: `#name`, `@user (DM)` for IMs, `#<id>` when unknown. */
  channel(id: string): string {
    const ch = this.slack.channels.find((c) => c.id === id);
    if (!ch) return `#${id}`;
    return ch.isIm ? `@${this.user(ch.user)} (DM)` : `#${ch.name}`;
  }

  /** Slack mrkdwn → readable text: `<@U…>` → `@name`, `<#C…|x>` → `#x`, `<url|label>` → `label (url)`, entities unescaped. */
  mrkdwn(text: string): string {
    const out = text.replace(/<([^<>]+)>/g, (_all, inner: string) => {
      const [target = '', label] = inner.split('|', 2);
      if (target.startsWith('@')) return `@${label ?? this.user(target.slice(1))}`;
      if (target.startsWith('#')) return label ? `#${label}` : this.channel(target.slice(1));
      if (target.startsWith('!subteam^')) return `@${label ?? target.slice('!subteam^'.length)}`;
      if (target.startsWith('!date^')) return label ?? target;
      if (target.startsWith('!')) return `@${target.slice(1)}`;
      return label && label !== target ? `${label} (${target})` : target;
    });
    return out.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  }
}
