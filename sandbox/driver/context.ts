/**
 * What the payload builders share: the fake Slack whose state they read and keep in step, the team id,
 * the clock (epoch **seconds**) and a per-driver counter for event ids and event_ts suffixes.
 */
import type { FakeSlack, SlackMessage } from '../fake-slack.js';
import type { HumanMessage } from './types.js';

/** Options common to the drivers. */
export interface DriverContextOptions {
  slack: FakeSlack;
  /** Defaults to `slack.teamId`. */
  teamId?: string;
  /** Clock in epoch seconds for `event_time`, `action_ts` and signatures. Default `Date.now()/1000`. */
  now?: () => number;
  /**
   * The org the driver's workspace is in and whether the app is installed org-wide there, when it
   * is not the fake's own (`slack.enterprise`): an OAuth install of another workspace or org
   * (installs.ts). `null`: a workspace outside Grid. Default: the fake's own.
   */
  enterprise?: { id: string; name: string; orgWide: boolean } | null;
}

/** Shared state of one driver's payload builders. */
export class DriverContext {
  readonly slack: FakeSlack;
  readonly teamId: string;
  readonly nowS: () => number;
  private readonly enterprise: DriverContextOptions['enterprise'];
  private seq = 0;

  constructor(opts: DriverContextOptions) {
    this.slack = opts.slack;
    this.enterprise = opts.enterprise;
    this.teamId = opts.teamId ?? opts.slack.teamId;
    this.nowS = opts.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /** The org of the driver's workspace (the fake's own unless the driver was given one), or undefined. */
  org(): { id: string; name: string; orgWide: boolean } | undefined {
    if (this.enterprise !== undefined) return this.enterprise ?? undefined;
    const org = this.slack.enterprise;
    return org ? { id: org.id, name: org.name, orgWide: org.orgWide === true } : undefined;
  }

  /** A fresh positive integer (per driver). */
  nextId(): number {
    this.seq += 1;
    return this.seq;
  }

  /** A fresh Events API event id ("Ev000000001SANDBOX"). */
  newEventId(): string {
    return `Ev${String(this.nextId()).padStart(9, '0')}SANDBOX`;
  }

  /** An event_ts-like string: epoch seconds with a unique micro part. */
  eventTs(): string {
    return `${this.nowS()}.${String(this.nextId()).padStart(6, '0')}`;
  }

  /** A user's handle, or the lowercased id when unknown. */
  userName(id: string): string {
    return this.slack.users.find((u) => u.id === id)?.name ?? id.toLowerCase();
  }

  /** The Events API `channel_type` of a channel. */
  channelType(channel: string): 'channel' | 'group' | 'im' {
    const ch = this.slack.channels.find((c) => c.id === channel);
    if (ch?.isIm) return 'im';
    return ch?.isPrivate ? 'group' : 'channel';
  }

  /** A channel's name as interaction payloads carry it ("directmessage" for IMs). */
  channelName(channel: string): string {
    const ch = this.slack.channels.find((c) => c.id === channel);
    return ch?.isIm ? 'directmessage' : (ch?.name ?? 'unknown');
  }

  /** Record a person's message in the fake (so transcripts show it) before the event about it goes out. */
  recordHuman(p: HumanMessage): SlackMessage {
    return this.slack.addUserMessage({
      channel: p.channel,
      user: p.user,
      text: p.text,
      ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
      ...(p.files?.length ? { files: p.files } : {}),
    });
  }

  /**
   * On Enterprise Grid, a person's message events carry their own workspace as `user_team` and
   * `source_team` (Slack's shared-channel message fields); nothing outside Grid.
   */
  authorTeams(user: string): Record<string, string> {
    if (!this.slack.enterprise) return {};
    const team = this.slack.users.find((u) => u.id === user)?.teamId ?? this.teamId;
    return { user_team: team, source_team: team };
  }

  /**
   * An interaction's `enterprise` and `is_enterprise_install` (Slack's interaction payloads): null
   * and false outside Grid; on Grid the org, and true for an org-wide install.
   */
  enterpriseFields(): Record<string, unknown> {
    const org = this.org();
    return {
      enterprise: org ? { id: org.id, name: org.name } : null,
      is_enterprise_install: org?.orgWide === true,
    };
  }

  /** A slash command's `is_enterprise_install` and, on Grid, `enterprise_id` / `enterprise_name` (form fields). */
  commandEnterpriseFields(): Record<string, string> {
    const org = this.org();
    return {
      ...(org ? { enterprise_id: org.id, enterprise_name: org.name } : {}),
      is_enterprise_install: String(org?.orgWide === true),
    };
  }

  /** The user object interaction payloads carry. */
  userRef(id: string): Record<string, unknown> {
    return { id, username: this.userName(id), name: this.userName(id), team_id: this.teamId };
  }
}
