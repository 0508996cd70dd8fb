import type { WebClient } from '@slack/web-api';
import type { AccessDecision, Actor } from '../../platform/access.js';
import type { Intake, IntakeContext } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { respondVia } from '../../platform/slack/respond.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import { buildSettingsMessage } from './blocks.js';
import type { SettingsService } from './service.js';
import type { SettingsChange } from './store.js';
import type { Experts } from './experts.js';
import type { SettingsCommand } from './command.js';
import { INTAKE, type CommandIntake, type SaveIntake } from './intake.js';

/** What the settings handlers need. */
export interface SettingsHandlerDeps {
  service: Pick<SettingsService, 'effective' | 'isAdmin' | 'change'>;
  /**
   * Whether `actor` may see settings in `channel` (the access gate's `view_settings`: full members;
   * guests and people of other organizations are refused, with the sentence to show them).
   */
  authorizeView: (actor: Actor, channel: string) => Promise<AccessDecision>;
  /** Usage of `/docs-settings` (for `help`); a function: the current workspace's (DOCS_WORKSPACE_PROJECTS). */
  usage: string | (() => string);
  /** Who may start jobs in `channel`, in words (the access policy's; default "every full member"). */
  describeAccess: (channel: string) => Promise<string>;
  /** `channel`'s digest subscription, in words (the reports feature's). */
  describeDigest: (teamId: string, channel: string) => Promise<string>;
  /** Whether asking the docs is set up (the ask feature's `configured`): the settings message says so when not. */
  asking: boolean;
  /** ADMIN_USERS, named in the settings message as who may change settings besides workspace admins. */
  adminUsers: readonly string[];
  /**
   * Why the bot can't reach a docs team (not in its channel, an unknown user group), or undefined
   * (see `expertsProblem`). @throws when that can't be checked (the intake retries).
   */
  checkExperts: (e: Experts) => Promise<string | undefined>;
  /** Tells the channel about a change made in the modal, and the person about a refusal. */
  slack: { chat: Pick<WebClient['chat'], 'postMessage' | 'postEphemeral'> };
  /** Signs the Edit button's value (the channel). */
  signer: Pick<ValueSigner, 'sign'>;
  logger: Logger;
}

/** What the person is told when a settings change could not be saved, even on the last attempt. */
export const SAVE_FAILED =
  "I couldn't save the settings (my storage did not answer); try again in a moment. Nothing was changed.";

/** What the person is told when the settings could not be read, even on the last attempt. */
export const READ_FAILED = "I couldn't read the settings (my storage did not answer); try again in a moment.";

/** Registers the settings intake handlers. */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: SettingsHandlerDeps): void {
  intake.on<CommandIntake>(INTAKE.command, (p, ctx) => runCommand(deps, p, ctx));
  intake.on<SaveIntake>(INTAKE.save, (p, ctx) => save(deps, p, ctx));
}

/**
 * `/docs-settings`: to full members only (any form, help included: it names the projects), shows
 * the effective settings, the usage or a mistake, or changes one (admins), answering through the
 * response_url.
 */
async function runCommand(deps: SettingsHandlerDeps, p: CommandIntake, ctx: IntakeContext): Promise<void> {
  const respond = respondVia(p.responseUrl);
  const decision = await deps.authorizeView({ user: p.user, ...(p.teamId ? { teamId: p.teamId } : {}) }, p.channel);
  if (!decision.allowed) return void (await respond({ response_type: 'ephemeral', text: decision.text }));
  if (p.command.kind === 'help')
    return void (await respond({
      response_type: 'ephemeral',
      text: typeof deps.usage === 'function' ? deps.usage() : deps.usage,
    }));
  if (p.command.kind === 'invalid')
    return void (await respond({ response_type: 'ephemeral', text: p.command.message }));
  if (p.command.kind === 'show') {
    const message = await orGiveUp(deps, p.channel, ctx, 'read channel settings', () => settingsMessage(deps, p));
    await respond({ response_type: 'ephemeral', ...(message ?? { text: READ_FAILED }) });
    return;
  }
  const c = p.command;
  const change = changeOf(c);
  const experts = c.kind === 'experts' ? c.experts : null;
  const check = experts ? () => deps.checkExperts(experts) : undefined;
  const outcome = await orGiveUp(deps, p.channel, ctx, 'save channel settings', () =>
    deps.service.change(p.user, p.channel, change, `settings.${c.kind}`, check),
  );
  if (!outcome) return void (await respond({ response_type: 'ephemeral', text: SAVE_FAILED }));
  // A change is announced to the channel (everyone's next jobs move); anything else only to the person.
  await respond({ response_type: outcome.outcome === 'changed' ? 'in_channel' : 'ephemeral', text: outcome.text });
}

/** The subcommands that change a setting. */
type ChangeKind = Exclude<SettingsCommand['kind'], 'show' | 'help' | 'invalid'>;

/** The settings change a `/docs-settings` subcommand that changes one asks for. */
function changeOf(c: Extract<SettingsCommand, { kind: ChangeKind }>): SettingsChange {
  switch (c.kind) {
    case 'project':
      return { projectId: c.projectId };
    case 'followups':
      return { followupPolicy: c.policy };
    case 'mentions':
      return { mentions: c.mode };
    case 'answer-all':
      return { answerAll: c.on };
    case 'scope':
      return { scope: c.scope };
    case 'experts':
      return { experts: c.experts };
  }
}

/** The settings message of `p.channel` for `p.user` (the Edit button only for admins). @throws the Redis error. */
async function settingsMessage(
  deps: SettingsHandlerDeps,
  p: { teamId: string; channel: string; user: string },
): Promise<ReturnType<typeof buildSettingsMessage>> {
  const settings = await deps.service.effective(p.channel);
  const [access, digest, canEdit] = await Promise.all([
    deps.describeAccess(p.channel).catch(() => "I couldn't read it just now"),
    deps.describeDigest(p.teamId, p.channel).catch(() => "I couldn't read it just now"),
    deps.service.isAdmin(p.user).catch((err: unknown) => {
      deps.logger.warn({ err }, 'could not check whether the viewer is a settings admin');
      return 'unknown' as const;
    }),
  ]);
  const ctx = { channel: p.channel, access, digest, canEdit, asking: deps.asking, adminUsers: deps.adminUsers };
  return buildSettingsMessage(settings, ctx, deps.signer);
}

/**
 * `run()`'s result, or undefined when Redis failed on the last attempt (an error line names the
 * channel and `what`); earlier attempts throw, so the intake retries.
 */
async function orGiveUp<T>(
  deps: SettingsHandlerDeps,
  channel: string,
  ctx: IntakeContext,
  what: string,
  run: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await run();
  } catch (err) {
    if (!ctx.finalAttempt) throw err;
    deps.logger.error({ err, channel }, `could not ${what}`);
    return undefined;
  }
}

/** The modal's submission: the change is announced in the channel; a refusal or failure goes to the person only. */
async function save(deps: SettingsHandlerDeps, p: SaveIntake, ctx: IntakeContext): Promise<void> {
  const outcome = await orGiveUp(deps, p.channel, ctx, 'save channel settings', () =>
    deps.service.change(p.user, p.channel, p.change, 'settings.edit'),
  );
  const text = outcome?.text ?? SAVE_FAILED;
  const chat = deps.slack.chat;
  // Not tellPrivately: a modal has no response_url, and the fallback here is a DM.
  const dm = () => chat.postMessage({ channel: p.user, text });
  try {
    if (outcome?.outcome === 'changed') await chat.postMessage({ channel: p.channel, text }).catch(dm);
    else await chat.postEphemeral({ channel: p.channel, user: p.user, text }).catch(dm);
  } catch (err) {
    deps.logger.warn({ err }, 'could not tell the outcome of a settings change');
  }
}
