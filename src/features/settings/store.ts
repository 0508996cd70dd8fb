import type { Redis } from 'ioredis';
import { globEscape, unlinkMatching, type ScanClient, type UnlinkOutcome } from '../../platform/redis-scan.js';
import { requiredSlot } from '../../platform/request-context.js';
import { readExperts, type Experts } from './experts.js';

/** Who may continue a job from its thread: anyone in the channel, or only the person who started it. */
export type FollowupPolicy = 'anyone' | 'requester';

/** The follow-up policies, as typed after `/docs-settings followups`. */
export const FOLLOWUP_POLICIES: readonly FollowupPolicy[] = ['anyone', 'requester'];

/** What a mention or DM is in a channel: decided by the mention rule (`auto`), always a question (`ask`) or always a docs change (`edit`). */
export type MentionsMode = 'auto' | 'ask' | 'edit';

/** The mentions modes, as typed after `/docs-settings mentions`. */
export const MENTIONS_MODES: readonly MentionsMode[] = ['auto', 'ask', 'edit'];

/**
 * The docs a channel's questions are answered from: the discovery API's assistant `filter`
 * (spec: discovery-openapi.json, POST /v2/assistant/{domain}/message, `filter.version`,
 * `filter.language`, `filter.groups`). At least one field is set.
 */
export interface DocsScope {
  version?: string;
  language?: string;
  groups?: string[];
}

/** A stored scope read back: the fields of {@link DocsScope} that are strings (groups: strings), or undefined. */
function readScope(raw: string | undefined): DocsScope | undefined {
  if (!raw) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const out: DocsScope = {};
  if (typeof o.version === 'string' && o.version) out.version = o.version;
  if (typeof o.language === 'string' && o.language) out.language = o.language;
  if (Array.isArray(o.groups) && o.groups.length && o.groups.every((g) => typeof g === 'string'))
    out.groups = o.groups as string[];
  return Object.keys(out).length ? out : undefined;
}

/**
 * A channel's own settings: what it overrides of the workspace defaults (DOCS_PROJECT_ID,
 * FOLLOWUP_POLICY, mentions `auto`). An absent field means "the default".
 */
export interface ChannelSettings {
  projectId?: string;
  followupPolicy?: FollowupPolicy;
  mentions?: MentionsMode;
  /** `/docs-settings answer-all on`: every new top-level message from a person is taken as a question. */
  answerAll?: boolean;
  /** `/docs-settings scope …`: the docs this channel's questions are answered from. */
  scope?: DocsScope;
  /** `/docs-settings experts`: who unanswered questions go to (Ask the docs team). */
  experts?: Experts;
  /** Who changed them last (Slack user id), and when (epoch ms). */
  updatedBy?: string;
  updatedAt?: number;
}

/** A change of a channel's settings: a value sets it, `null` goes back to the default, absent leaves it. */
export interface SettingsChange {
  projectId?: string | null;
  followupPolicy?: FollowupPolicy | null;
  mentions?: MentionsMode | null;
  /** `false` and `null` both turn answering every message off (the default). */
  answerAll?: boolean | null;
  scope?: DocsScope | null;
  experts?: Experts | null;
}

/**
 * Channel settings in Redis: one hash per channel, `{QUEUE_PREFIX}:settings:channel:{channel}`,
 * kept **without TTL** (they are configuration, not cache: Redis must persist and never evict
 * them — see docs/operations.md). Channel ids are unique within a workspace (and an Enterprise Grid).
 * OAuth mode: one hash per installation and channel, `{QUEUE_PREFIX}:settings:{installation}:channel:{channel}`,
 * so a Slack Connect channel two installed workspaces share has each one's own settings; a read or
 * write with no installation in the request context is refused (NoInstallationError,
 * `installation_missing`: callers answer as for a Redis error), never served from or written to
 * the single-token keys.
 */
export class SettingsStore {
  /**
   * @param installationOf - OAuth mode: the current request's installation (`team:T…` /
   *   `enterprise:E…`, request-context's currentInstallationSlot; undefined from it refuses);
   *   absent: single-token keys.
   */
  constructor(
    private readonly redis: Pick<Redis, 'hgetall' | 'hget' | 'multi'> & ScanClient,
    private readonly prefix: string,
    private readonly installationOf?: () => string | undefined,
  ) {}

  /**
   * The Redis key of `channel`'s settings (of the current installation, in OAuth mode).
   * @throws NoInstallationError (`installation_missing`) in OAuth mode with no installation.
   */
  key(channel: string): string {
    const slot = requiredSlot(this.installationOf, 'channel settings');
    return slot ? `${this.prefix}:settings:${slot}:channel:${channel}` : `${this.prefix}:settings:channel:${channel}`;
  }

  /**
   * @returns the channel's own settings ({} when it has none); a stored follow-up policy that is not
   *   one of {@link FOLLOWUP_POLICIES} reads as absent.
   * @throws the Redis error; NoInstallationError as {@link key}.
   */
  async get(channel: string): Promise<ChannelSettings> {
    const h = await this.redis.hgetall(this.key(channel));
    const out: ChannelSettings = {};
    if (h.projectId) out.projectId = h.projectId;
    if (h.followupPolicy && (FOLLOWUP_POLICIES as readonly string[]).includes(h.followupPolicy))
      out.followupPolicy = h.followupPolicy as FollowupPolicy;
    const mentions = h.mentions;
    if (mentions && (MENTIONS_MODES as readonly string[]).includes(mentions)) out.mentions = mentions as MentionsMode;
    if (h.answerAll === 'on') out.answerAll = true;
    const scope = readScope(h.scope);
    if (scope) out.scope = scope;
    const experts = readExperts(h.experts);
    if (experts) out.experts = experts;
    if (h.updatedBy) out.updatedBy = h.updatedBy;
    if (h.updatedAt) out.updatedAt = Number(h.updatedAt);
    return out;
  }

  /**
   * Whether `channel` is a question channel (one HGET: asked for every new message the rule takes).
   * @throws the Redis error; NoInstallationError as {@link key}.
   */
  async answerAll(channel: string): Promise<boolean> {
    return (await this.redis.hget(this.key(channel), 'answerAll')) === 'on';
  }

  /**
   * Applies `change` atomically (MULTI) and notes who made it, when (epoch ms). No TTL is set.
   * @returns the settings after the change.
   * @throws the Redis error, or NoInstallationError as {@link key} (nothing was changed).
   */
  async update(channel: string, change: SettingsChange, by: string, atMs: number): Promise<ChannelSettings> {
    const key = this.key(channel);
    const set: Record<string, string> = { updatedBy: by, updatedAt: String(atMs) };
    const del: string[] = [];
    for (const field of ['projectId', 'followupPolicy', 'mentions'] as const) {
      const v = change[field];
      if (v === null) del.push(field);
      else if (v !== undefined) set[field] = v;
    }
    if (change.answerAll === true) set.answerAll = 'on';
    else if (change.answerAll === false || change.answerAll === null) del.push('answerAll');
    if (change.scope === null) del.push('scope');
    else if (change.scope !== undefined) set.scope = JSON.stringify(change.scope);
    if (change.experts === null) del.push('experts');
    else if (change.experts !== undefined) set.experts = JSON.stringify(change.experts);
    const m = this.redis.multi();
    if (del.length) m.hdel(key, ...del);
    m.hset(key, set);
    const res = await m.exec();
    const failed = res?.find(([err]) => err);
    if (failed?.[0]) throw failed[0];
    return this.get(channel);
  }

  /**
   * OAuth mode, on `app_uninstalled`: deletes every channel's settings of installation `slot`
   * (`team:T…` or `enterprise:E…`), the keys `settings:<slot>:channel:*`. There is no list of a
   * workspace's channels, so they are found by SCAN (platform/redis-scan.ts: bounded, idempotent);
   * another installation's keys, and the single-token keys, never match.
   * @returns how many channels' settings were deleted, and `capped` when the scan's cap stopped it.
   * @throws the Redis error (a second call deletes the rest).
   */
  async forgetInstallation(slot: string): Promise<UnlinkOutcome> {
    return unlinkMatching(this.redis, `${globEscape(`${this.prefix}:settings:${slot}:channel:`)}*`);
  }
}
