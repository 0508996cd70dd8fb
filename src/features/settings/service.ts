import { audit, type AuditAction, type AuditReason } from '../../platform/audit.js';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/logger.js';
import type {
  ChannelSettings,
  DocsScope,
  FollowupPolicy,
  MentionsMode,
  SettingsChange,
  SettingsStore,
} from './store.js';
import type { Experts } from './experts.js';
import { describeChange, summary } from './describe.js';
import { askingOffNote, whoMayChangeText } from './words.js';

/**
 * Whether `user` may change channel settings. @throws when that cannot be checked (the caller then
 * changes nothing: fail closed).
 */
export type IsSettingsAdmin = (user: string) => Promise<boolean>;

/**
 * The settings admin check of today: in ADMIN_USERS, or a workspace admin or owner by `users.info`
 * (`is_admin` / `is_owner`; Slack "User object"). Asks Slack each time (a change is rare).
 * @throws the Web API error when users.info fails (fail closed).
 */
export function usersInfoAdminCheck(deps: {
  slack: { users: Pick<WebClient['users'], 'info'> };
  adminUsers: readonly string[];
}): IsSettingsAdmin {
  return async (user) => {
    if (deps.adminUsers.includes(user)) return true;
    const res = await deps.slack.users.info({ user });
    return Boolean(res.user?.is_admin || res.user?.is_owner);
  };
}

/** A channel's settings in force: its own, or the workspace defaults. */
export interface EffectiveSettings {
  projectId: string;
  /** True when the channel uses DOCS_PROJECT_ID (no project of its own, or one no longer configured). */
  projectIsDefault: boolean;
  /**
   * True when the channel has no project of its own, so it follows DOCS_PROJECT_ID when that
   * changes (false when it chose a project, the default one included, or one no longer configured).
   */
  projectFollowsDefault: boolean;
  /** The channel's own project when it is no longer configured (DOCS_PROJECT_IDS changed): the default is used. */
  staleProjectId?: string;
  followupPolicy: FollowupPolicy;
  followupIsDefault: boolean;
  /** What a mention or DM is here (default `auto`: the mention rule). */
  mentions: MentionsMode;
  /** Whether every new top-level message from a person is taken as a question (default false). */
  answerAll: boolean;
  /** The docs questions here are answered from; absent: all of them. */
  scope?: DocsScope;
  /** Who the channel's unanswered questions go to (Ask the docs team); absent: no one. */
  experts?: Experts;
  updatedBy?: string;
  updatedAt?: number;
}

/** What a settings change did; `text` is the sentence for the person (or the channel, when changed). */
export type ChangeOutcome =
  | { outcome: 'changed'; before: EffectiveSettings; after: EffectiveSettings; text: string }
  | { outcome: 'unchanged'; text: string }
  | { outcome: 'refused'; text: string }
  | { outcome: 'error'; text: string };

/** What the channel settings lookup is built from. */
export interface ChannelSettingsOptions {
  store: Pick<SettingsStore, 'get' | 'update' | 'answerAll'>;
  /**
   * The configured docs projects, the default (DOCS_PROJECT_ID) first; a function: the current
   * workspace's (DOCS_WORKSPACE_PROJECTS), read at each use.
   */
  projects: readonly string[] | (() => readonly string[]);
  /** FOLLOWUP_POLICY. */
  defaultFollowupPolicy: FollowupPolicy;
}

/** What the settings service is built from. */
interface SettingsServiceOptions extends ChannelSettingsOptions {
  /** ADMIN_USERS, named in the refusal. */
  adminUsers: readonly string[];
  /**
   * Whether asking the docs is set up (the ask feature's `configured`): else a change of mentions,
   * answer-all, scope or docs team says it has no effect until it is ({@link askingOffNote}).
   */
  asking: boolean;
  isSettingsAdmin: IsSettingsAdmin;
  logger: Logger;
  /** Clock, epoch ms. */
  now: () => number;
}

/** Answer when the admin check could not be made (Slack or Redis trouble): nothing changed. */
export const CHECK_FAILED_TEXT = "I couldn't check your access, try again. Nothing was changed.";

/** The refusal for someone who may not change settings: who may, and to ask one of them. */
function notAdminText(adminUsers: readonly string[]): string {
  return `You can't change this channel's settings. ${whoMayChangeText(adminUsers)} Nothing was changed.`;
}

/** The subcommands whose settings only asking the docs uses. */
const ASKING_ACTIONS: ReadonlySet<SettingsAuditAction> = new Set([
  'settings.mentions',
  'settings.answer-all',
  'settings.scope',
  'settings.experts',
]);

/** The audit actions of settings changes: /docs-settings project|followups|mentions, and the settings modal. */
export type SettingsAuditAction = Extract<
  AuditAction,
  | 'settings.project'
  | 'settings.followups'
  | 'settings.mentions'
  | 'settings.answer-all'
  | 'settings.scope'
  | 'settings.experts'
  | 'settings.edit'
>;

/** One audit line (`audit: true`) per settings change or refused change; no secrets, no message text. */
interface SettingsAudit {
  actor: string;
  channel: string;
  action: SettingsAuditAction;
  outcome: ChangeOutcome['outcome'];
  reason?: Extract<AuditReason, 'not_admin' | 'check_failed'>;
  from?: string;
  to?: string;
}

/**
 * Channel settings as the other features ask for them (`projectFor`, `followupPolicyFor`): the
 * channel's own, else the workspace defaults. Reads go to Redis each time (one HGETALL; no process
 * cache, so every replica sees a change at once). Built before access and the features that ask it.
 */
export class ChannelSettingsLookup {
  constructor(private readonly lookup: ChannelSettingsOptions) {}

  /** The default project and the configured ones, default first (the current workspace's). */
  get projects(): readonly string[] {
    const p = this.lookup.projects;
    return typeof p === 'function' ? p() : p;
  }

  /** @returns the settings in force in `channel`. @throws the Redis error. */
  async effective(channel: string): Promise<EffectiveSettings> {
    return this.resolve(await this.lookup.store.get(channel));
  }

  /** The docs project `channel` uses. @throws the Redis error. */
  async projectFor(channel: string): Promise<string> {
    return (await this.effective(channel)).projectId;
  }

  /** Who may continue a job in `channel`. @throws the Redis error. */
  async followupPolicyFor(channel: string): Promise<FollowupPolicy> {
    return (await this.effective(channel)).followupPolicy;
  }

  /** What a mention or DM is in `channel` (`auto` unless set). @throws the Redis error. */
  async mentionsModeFor(channel: string): Promise<MentionsMode> {
    return (await this.effective(channel)).mentions;
  }

  /** Whether `channel` is a question channel (`/docs-settings answer-all on`). @throws the Redis error. */
  async answersAllIn(channel: string): Promise<boolean> {
    return this.lookup.store.answerAll(channel);
  }

  /** The docs scope of `channel`'s questions, or undefined (all the docs). @throws the Redis error. */
  async scopeFor(channel: string): Promise<DocsScope | undefined> {
    return (await this.lookup.store.get(channel)).scope;
  }

  /** Who `channel`'s unanswered questions go to, or undefined. @throws the Redis error. */
  async expertsFor(channel: string): Promise<Experts | undefined> {
    return (await this.lookup.store.get(channel)).experts;
  }

  /** A channel's own settings resolved against the defaults. */
  protected resolve(own: ChannelSettings): EffectiveSettings {
    const projects = this.projects;
    const [fallback = ''] = projects;
    const configured = own.projectId !== undefined && projects.includes(own.projectId);
    return {
      projectId: configured ? (own.projectId as string) : fallback,
      projectIsDefault: !configured || own.projectId === fallback,
      projectFollowsDefault: own.projectId === undefined,
      ...(own.projectId !== undefined && !configured ? { staleProjectId: own.projectId } : {}),
      followupPolicy: own.followupPolicy ?? this.lookup.defaultFollowupPolicy,
      followupIsDefault: own.followupPolicy === undefined,
      mentions: own.mentions ?? 'auto',
      answerAll: own.answerAll === true,
      ...(own.scope ? { scope: own.scope } : {}),
      ...(own.experts ? { experts: own.experts } : {}),
      ...(own.updatedBy ? { updatedBy: own.updatedBy } : {}),
      ...(own.updatedAt ? { updatedAt: own.updatedAt } : {}),
    };
  }
}

/** The channel settings lookup, plus changes by settings admins (`/docs-settings`). */
export class SettingsService extends ChannelSettingsLookup {
  constructor(private readonly o: SettingsServiceOptions) {
    super(o);
  }

  /** Whether `user` may change settings. @throws when it cannot be checked. */
  isAdmin(user: string): Promise<boolean> {
    return this.o.isSettingsAdmin(user);
  }

  /**
   * Changes `channel`'s settings for `actor`, if they are a settings admin: fail closed (a check
   * that cannot be made changes nothing), then `check` (a value's own check, made for admins only:
   * its sentence refuses the change). Writes one audit line whatever happens.
   * @throws the Redis error of the write (nothing changed; the intake retries).
   */
  async change(
    actor: string,
    channel: string,
    change: SettingsChange,
    action: SettingsAuditAction,
    check?: () => Promise<string | undefined>,
  ): Promise<ChangeOutcome> {
    const audit = (a: Omit<SettingsAudit, 'actor' | 'channel' | 'action'>) =>
      this.audit({ actor, channel, action, ...a });
    let admin: boolean;
    try {
      admin = await this.o.isSettingsAdmin(actor);
    } catch (err) {
      this.o.logger.warn({ err, actor }, 'could not check whether the person is a settings admin');
      audit({ outcome: 'error', reason: 'check_failed' });
      return { outcome: 'error', text: CHECK_FAILED_TEXT };
    }
    if (!admin) {
      audit({ outcome: 'refused', reason: 'not_admin' });
      return { outcome: 'refused', text: notAdminText(this.o.adminUsers) };
    }
    const problem = await check?.();
    if (problem) {
      audit({ outcome: 'refused' });
      return { outcome: 'refused', text: `:warning: ${problem} Nothing was changed.` };
    }
    const before = await this.effective(channel);
    const after = this.resolve(await this.o.store.update(channel, change, actor, this.o.now()));
    const fromTo = describeChange(before, after, this.o.asking);
    const askingOff = !this.o.asking && (ASKING_ACTIONS.has(action) || fromTo?.asking === true);
    const note = askingOff ? ` ${askingOffNote(fromTo !== undefined)}` : '';
    if (!fromTo) {
      audit({ outcome: 'unchanged' });
      return { outcome: 'unchanged', text: `This channel already has ${summary(after, action)}.${note}` };
    }
    audit({ outcome: 'changed', from: fromTo.from, to: fromTo.to });
    return {
      outcome: 'changed',
      before,
      after,
      text: `:gear: <@${actor}> changed this channel's settings: ${fromTo.text}.${note}`,
    };
  }

  private audit(a: SettingsAudit): void {
    audit(this.o.logger, { ...a });
  }
}
