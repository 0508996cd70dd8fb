import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../platform/access.js';
import { ACCESS_CHECK_FAILED_TEXT } from '../../platform/access.js';
import type { Intake, IntakeContext } from '../../platform/intake.js';
import type { Quota } from '../../platform/quota.js';
import { nextSlotText } from '../../platform/slack/dates.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { checkMembership } from '../../platform/slack/member-check.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { ModalView } from '@slack/types';
import type { ThreadOwner } from '../agent-jobs/index.js';
import { cannotReadModal, followUpModal, modalAt, previewModal, refusedModal, startingModal } from './blocks.js';
import { previewThread, type ThreadContextDeps } from '../thread-context/index.js';
import { INTAKE, type PreviewIntake } from './intake.js';

/** What the handlers need. */
export interface ThreadContextHandlerDeps extends Pick<ThreadContextDeps, 'slack' | 'names' | 'logger' | 'reader'> {
  slack: ThreadContextDeps['slack'] & { views: Pick<WebClient['views'], 'update'> };
  /** Asked before the thread is read: a person who may not start jobs there sees why, and nothing is read. */
  access: Pick<AccessGate, 'authorize'>;
  /** Clock in epoch ms. @defaultValue Date.now */
  now?: () => number;
  /** Who the thread belongs to (agent-jobs' thread index): a job's thread gets the follow-up form. @throws the Redis error. */
  owner?: (channel: string, threadTs: string) => Promise<ThreadOwner>;
  /** Per-person cooldown on the shortcut's modal ({@link PREVIEWS_PER_MINUTE} per minute, shared in Redis), asked before membership. */
  previews?: Pick<Quota, 'take'>;
  /** The person must be a member of the conversation (asked after access, before the thread is read). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Signs the modal's `private_metadata` (the thread, and the job of a follow-up form). */
  signer: Pick<ValueSigner, 'sign'>;
}

/** Thread previews ("Document this thread" opened) one person may have read per minute. */
export const PREVIEWS_PER_MINUTE = 10;

/** The refusal when the person opened too many previews, or undefined when this one may read. Fails closed on Redis errors. */
async function previewCooldown(deps: ThreadContextHandlerDeps, user: string): Promise<string | undefined> {
  if (!deps.previews) return undefined;
  try {
    const taken = await deps.previews.take(user);
    if (taken.ok) return undefined;
    const now = (deps.now ?? Date.now)();
    return `You've opened *Document this thread* ${PREVIEWS_PER_MINUTE} times in the last minute, and each one reads from Slack. ${nextSlotText(now, taken.msBeforeNext, undefined)}`;
  } catch (err) {
    deps.logger.warn({ err }, 'could not check the preview cooldown; refused (fail closed)');
    return ACCESS_CHECK_FAILED_TEXT;
  }
}

/**
 * How long after the shortcut the preview waits for its modal, in ms. Slack's trigger_id is valid
 * for 3 s, so a modal not open by then never will be (views.open failed, or the trigger was not
 * Slack's): the preview is dropped instead of being retried for minutes.
 */
export const MODAL_OPEN_WAIT_MS = 30_000;

/** Thrown while the modal is not open yet (the listener opens it after the ack): the intake retries shortly. */
export class ModalNotOpenYetError extends Error {
  constructor() {
    super('the modal is not open yet');
    this.name = 'ModalNotOpenYetError';
  }
}

/**
 * What the modal shows for a shortcut: on a job's thread, the follow-up form for that job (the
 * thread is not read); else, when the person may start jobs there, the thread's preview (or why
 * it can't be read); else the refusal. Access, the per-person cooldown, then membership of the
 * conversation are asked first, for the action the form would take: a refused person costs no
 * thread read (and one over the cooldown no membership read either).
 */
async function previewView(
  deps: ThreadContextHandlerDeps,
  p: PreviewIntake,
): Promise<{ view: ModalView; log: Record<string, unknown> }> {
  const ref = { channel: p.channel, threadTs: p.threadTs };
  const at = modalAt(p.externalId, ref, deps.signer);
  const owner = deps.owner ? await deps.owner(p.channel, p.threadTs) : undefined;
  const action = owner ? 'continue_job' : 'start_job';
  const decision = await deps.access.authorize({ user: p.user }, action, p.channel);
  if (!decision.allowed) return { view: refusedModal(at, decision.text), log: { allowed: false } };
  // The cooldown before the membership check: a person over it costs no Slack read at all.
  const cooling = await previewCooldown(deps, p.user);
  if (cooling) return { view: refusedModal(at, cooling), log: { allowed: true, cooldown: true } };
  const member = await checkMembership(deps.conversations, deps.logger, { channel: p.channel, user: p.user, action });
  // A conversation Slack won't show the bot can't be read either: the modal says how to invite it.
  if (!member.ok) {
    const hidden = member.reason === 'bot_cannot_see';
    if (hidden) return { view: cannotReadModal(at, 'bot_cannot_read'), log: { allowed: true, readable: false } };
    return { view: refusedModal(at, member.text), log: { allowed: false, member: member.reason } };
  }
  if (owner?.kind === 'starting') return { view: startingModal(at), log: { allowed: true, owner: 'starting' } };
  if (owner) {
    const form = modalAt(p.externalId, { ...ref, jobId: owner.jobId }, deps.signer);
    return { view: followUpModal(form, owner.jobId), log: { allowed: true, owner: owner.jobId } };
  }
  const preview = await previewThread(deps, p.channel, p.threadTs);
  const view = preview.ok ? previewModal(at, preview) : cannotReadModal(at, preview.reason);
  return { view, log: { allowed: true, readable: preview.ok, messages: preview.ok ? preview.messages : 0 } };
}

/**
 * Reads the thread and updates the modal (views.update by external_id) with the preview and the
 * instruction input, or with why the bot can't read the conversation; on a job's thread, with the
 * form that sends a follow-up to that job instead. Counts only in the logs.
 * @throws {ModalNotOpenYetError} while the modal is not open yet (until the last try, or
 *   {@link MODAL_OPEN_WAIT_MS} after the request); transient Slack errors.
 */
export async function showPreview(
  deps: ThreadContextHandlerDeps,
  p: PreviewIntake,
  ctx: Pick<IntakeContext, 'finalAttempt'> & Partial<Pick<IntakeContext, 'receivedAt'>>,
): Promise<void> {
  const { view, log } = await previewView(deps, p);
  try {
    await deps.slack.views.update({ external_id: p.externalId, view });
  } catch (err) {
    if (slackErrorCode(err) !== 'not_found') throw err;
    const waited = ctx.receivedAt === undefined ? 0 : (deps.now ?? Date.now)() - ctx.receivedAt;
    if (!ctx.finalAttempt && waited < MODAL_OPEN_WAIT_MS) throw new ModalNotOpenYetError();
    deps.logger.warn({ channel: p.channel }, 'the Document this thread modal never opened; preview dropped');
    return;
  }
  deps.logger.info({ channel: p.channel, ...log }, 'showed a thread preview');
}

/** Registers the thread-context intake handlers (run by the intake worker of any replica). */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: ThreadContextHandlerDeps): void {
  intake.on<PreviewIntake>(INTAKE.preview, (p, ctx) => showPreview(deps, p, ctx));
}
