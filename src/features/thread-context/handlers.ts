import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../platform/access.js';
import type { Intake, IntakeContext } from '../../platform/intake.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { cannotReadModal, previewModal, refusedModal } from './blocks.js';
import { previewThread, type ThreadContextDeps } from './service.js';

/** Kinds of intake the thread-context feature handles. */
export const THREAD_CONTEXT_INTAKE = {
  preview: 'thread-context.preview',
} as const;

/** A "Document this thread" shortcut: which thread, who asked, and the modal to update. */
export interface PreviewIntake {
  channel: string;
  threadTs: string;
  user: string;
  /** external_id of the modal the listener opened. */
  externalId: string;
}

/** What the handlers need. */
export interface ThreadContextHandlerDeps extends Pick<ThreadContextDeps, 'slack' | 'logger' | 'pageSize'> {
  slack: ThreadContextDeps['slack'] & { views: Pick<WebClient['views'], 'update'> };
  /** Asked before the thread is read: a person who may not start jobs there sees why, and nothing is read. */
  access: Pick<AccessGate, 'authorize'>;
  /** Clock in epoch ms. @defaultValue Date.now */
  now?: () => number;
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
 * Reads the thread and updates the modal (views.update by external_id) with the preview and the
 * instruction input, or with why the bot can't read the conversation. Counts only in the logs.
 * @throws {ModalNotOpenYetError} while the modal is not open yet (until the last try, or
 *   {@link MODAL_OPEN_WAIT_MS} after the request); transient Slack errors.
 */
export async function showPreview(deps: ThreadContextHandlerDeps, p: PreviewIntake, ctx: Pick<IntakeContext, 'finalAttempt'> & Partial<Pick<IntakeContext, 'receivedAt'>>): Promise<void> {
  const ref = { channel: p.channel, threadTs: p.threadTs };
  const decision = await deps.access.authorize({ user: p.user }, 'start_job', p.channel);
  const preview = decision.allowed ? await previewThread(deps, p.channel, p.threadTs) : undefined;
  const view = !decision.allowed
    ? refusedModal(p.externalId, ref, decision.text)
    : preview!.ok
      ? previewModal(p.externalId, ref, preview!)
      : cannotReadModal(p.externalId, ref, preview!.reason);
  try {
    await deps.slack.views.update({ external_id: p.externalId, view });
  } catch (err) {
    if (slackErrorCode(err) !== 'not_found') throw err;
    const waited = ctx.receivedAt === undefined ? 0 : (deps.now ?? Date.now)() - ctx.receivedAt;
    if (!ctx.finalAttempt && waited < MODAL_OPEN_WAIT_MS) throw new ModalNotOpenYetError();
    deps.logger.warn({ channel: p.channel }, 'the Document this thread modal never opened; preview dropped');
    return;
  }
  deps.logger.info({ channel: p.channel, allowed: decision.allowed, readable: preview?.ok ?? false, messages: preview?.ok ? preview.messages : 0 }, 'showed a thread preview');
}

/** Registers the thread-context intake handlers (run by the intake worker of any replica). */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: ThreadContextHandlerDeps): void {
  intake.on<PreviewIntake>(THREAD_CONTEXT_INTAKE.preview, (p, ctx) => showPreview(deps, p, ctx));
}
