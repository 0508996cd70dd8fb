/**
 * The settings feature: per-channel settings (the docs project, the follow-up policy) kept in
 * Redis without TTL, `/docs-settings` to show and change them (admins), and the narrow ports other
 * features ask: `projectFor(channel)`, `followupPolicyFor(channel)`.
 */
import type { App } from '@slack/bolt';
import type { AccessDecision, Actor } from '../../platform/access.js';
import { docsProjects, type Config } from '../../platform/config.js';
import { currentInstallationSlot } from '../../platform/request-context.js';
import type { Platform } from '../../platform/runtime.js';
import { settingsUsage } from './command.js';
import { expertsProblem } from './experts.js';
import { registerHandlers, type SettingsHandlerDeps } from './handlers.js';
import { register as registerListeners } from './listeners.js';
import { ChannelSettingsLookup, SettingsService, usersInfoAdminCheck, type IsSettingsAdmin } from './service.js';
import { SettingsStore, type FollowupPolicy, type MentionsMode } from './store.js';

export { scopeText } from './scope.js';
export { EXPERTS_TARGETS, EXPERTS_USAGE, expertsProblem, type Experts } from './experts.js';
export { SettingsService, usersInfoAdminCheck } from './service.js';
export { SettingsStore, type FollowupPolicy, type MentionsMode } from './store.js';

/** The configuration the settings read: the configured docs projects (the default first) and the default policy. */
export type SettingsConfig = Pick<Config, 'DOCS_PROJECT_ID' | 'DOCS_PROJECT_IDS' | 'FOLLOWUP_POLICY'>;

/** What the channel settings lookup is built from (it is built first: access and every feature ask it). */
export interface ChannelSettingsOptions {
  /** `docsWorkspaces`: each workspace's projects (DOCS_WORKSPACE_PROJECTS); absent, the configured ones. */
  platform: Pick<Platform, 'redis' | 'prefix'> & Partial<Pick<Platform, 'docsWorkspaces' | 'installations'>>;
  config: SettingsConfig;
}

/**
 * The channel settings as other features ask for them: `projectFor(channel)`,
 * `followupPolicyFor(channel)` (each @throws the Redis error). Reads Redis each time; no state of
 * its own, so it can be built before access, and `/docs-settings` ({@link createSettings}) after
 * the features it describes.
 */
export function createChannelSettings(o: ChannelSettingsOptions): ChannelSettingsLookup {
  return new ChannelSettingsLookup({
    store: settingsStore(o.platform),
    projects: workspaceProjects(o.platform, o.config),
    defaultFollowupPolicy: o.config.FOLLOWUP_POLICY,
  });
}

/**
 * OAuth mode, on `app_uninstalled`: deletes every channel's settings of the uninstalled
 * installation `slot` (`team:T…` / `enterprise:E…`; store.ts' forgetInstallation), so a reinstall
 * starts from the defaults. @throws the Redis error.
 */
export function forgetChannelSettings(
  platform: Pick<Platform, 'redis' | 'prefix'>,
  slot: string,
): Promise<{ removed: number; capped: boolean }> {
  return new SettingsStore(platform.redis, platform.prefix).forgetInstallation(slot);
}

/** The settings store; in OAuth mode (an installation store) keyed by the current installation too. */
function settingsStore(
  platform: Pick<Platform, 'redis' | 'prefix'> & Partial<Pick<Platform, 'installations'>>,
): SettingsStore {
  const perInstallation = platform.installations !== undefined;
  return new SettingsStore(platform.redis, platform.prefix, perInstallation ? currentInstallationSlot : undefined);
}

/**
 * The docs projects of the current workspace (`docsWorkspaces`, read at each use), else the
 * configured ones: a channel's project outside its workspace's falls back to that workspace's default.
 */
function workspaceProjects(
  platform: Partial<Pick<Platform, 'docsWorkspaces'>>,
  config: SettingsConfig,
): readonly string[] | (() => readonly string[]) {
  const { docsWorkspaces } = platform;
  return docsWorkspaces?.mapped ? () => docsWorkspaces.current() : docsProjects(config);
}

/** What `/docs-settings` is built from: built last, from features that already exist. */
export interface SettingsOptions {
  /** `slack.web`, the intake, `conversations` (the Edit button and the modal need the person in the channel), the signer. */
  platform: Pick<Platform, 'redis' | 'prefix' | 'intake' | 'slack' | 'conversations' | 'signer' | 'logger' | 'now'> &
    Partial<Pick<Platform, 'docsWorkspaces' | 'installations'>>;
  /** The docs projects, FOLLOWUP_POLICY and ADMIN_USERS. */
  config: SettingsConfig & Pick<Config, 'ADMIN_USERS'>;
  /** Who may change settings; default {@link usersInfoAdminCheck} (ADMIN_USERS, or users.info is_admin/is_owner). */
  isSettingsAdmin?: IsSettingsAdmin;
  /** Who may see settings (the access gate's `view_settings`: full members only). */
  authorizeView: (actor: Actor, channel: string) => Promise<AccessDecision>;
  /** Who may start jobs in a channel, in words; default "every full member". */
  describeAccess?: (channel: string) => Promise<string>;
  /** A channel's digest subscription, in words (the reports feature's, built before this one). */
  describeDigest: SettingsHandlerDeps['describeDigest'];
  /**
   * Whether asking the docs is set up (the ask feature's `configured`): else the settings, their
   * usage and their changes say mentions and answer-all have no effect.
   */
  asking: boolean;
}

/** The running feature, as the composition root holds it. */
export interface Settings {
  service: SettingsService;
  /** The docs project `channel` uses (its own, else DOCS_PROJECT_ID). @throws the Redis error. */
  projectFor(channel: string): Promise<string>;
  /** Who may continue a job in `channel` (its own policy, else FOLLOWUP_POLICY). @throws the Redis error. */
  followupPolicyFor(channel: string): Promise<FollowupPolicy>;
  /** What a mention or DM is in `channel` (its own mode, else `auto`). @throws the Redis error. */
  mentionsModeFor(channel: string): Promise<MentionsMode>;
  /** Registers `/docs-settings`, its Edit button and modal. */
  register(app: App): void;
}

/** Builds the settings feature and registers its intake handlers. */
export function createSettings(o: SettingsOptions): Settings {
  const { intake, conversations, signer, now } = o.platform;
  const slack = o.platform.slack.web;
  const logger = o.platform.logger.child({ feature: 'settings' });
  const projects = docsProjects(o.config);
  const adminUsers = o.config.ADMIN_USERS;
  const { asking } = o;
  const facts = { adminUsers, asking };
  const service = new SettingsService({
    store: settingsStore(o.platform),
    projects: workspaceProjects(o.platform, o.config),
    defaultFollowupPolicy: o.config.FOLLOWUP_POLICY,
    adminUsers,
    asking,
    isSettingsAdmin: o.isSettingsAdmin ?? usersInfoAdminCheck({ slack, adminUsers }),
    logger,
    now,
  });
  const { authorizeView } = o;
  registerHandlers(intake, {
    service,
    authorizeView,
    usage: o.platform.docsWorkspaces?.mapped
      ? () => settingsUsage(service.projects, facts)
      : settingsUsage(projects, facts),
    describeAccess: o.describeAccess ?? (async () => 'every full member'),
    describeDigest: o.describeDigest,
    asking,
    adminUsers,
    checkExperts: (e) => expertsProblem(slack, e),
    slack,
    signer,
    logger,
  });
  return {
    service,
    projectFor: (channel) => service.projectFor(channel),
    followupPolicyFor: (channel) => service.followupPolicyFor(channel),
    mentionsModeFor: (channel) => service.mentionsModeFor(channel),
    register: (app) =>
      registerListeners(app, {
        ...{ intake, service, slack, authorizeView, conversations, signer, logger },
        modal: { defaultFollowupPolicy: o.config.FOLLOWUP_POLICY, asking },
        usageFacts: facts,
      }),
  };
}
