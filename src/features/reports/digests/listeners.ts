import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { ButtonArgs } from '../../../platform/slack/listener-args.js';
import { actionEntry, recordInteraction } from '../../../platform/slack/record-and-ack.js';
import { unverifiedValueText } from '../../../platform/slack/signed-value.js';
import { jobFormButton, jobFormSubmission, refuseUnverified, type JobFormDeps } from '../../agent-jobs/index.js';
import { ACTION_IMPROVE_PREFIX, decodeImproveValue, improvablePaths, IMPROVE_PURPOSE } from './improve-value.js';
import { ACTION_DIGEST_RETRY } from './retry.js';
import { buildImproveModal, IMPROVE_CALLBACK_ID, IMPROVE_FORM } from './improve-modal.js';
import { INTAKE, type DigestRetryIntake } from '../intake.js';
import { ACTION_SIGNAL_IMPROVE_PREFIX } from '../signals/improve.js';
import { SIGNAL_IMPROVE_CALLBACK_ID, signalImproveAction, signalImproveSubmission } from './improve-signal.js';

/**
 * What the digest buttons and the "Improve with agent" modals need (agent-jobs' job form kit: the
 * access policy and membership are asked at the click and again at submission; the worker's gate
 * asks a third time, with the budget).
 */
interface DigestListenerDeps extends JobFormDeps {
  /** The configured docs projects (a function: the current workspace's): an Improve on a signal of another one is not followed. */
  projects: readonly string[] | (() => readonly string[]);
}

function where(body: BlockAction): { channel?: string; ts?: string; teamId?: string } {
  return {
    channel: body.channel?.id ?? body.container?.channel_id,
    ts: body.container?.message_ts ?? body.message?.ts,
    teamId: body.team?.id ?? body.user.team_id,
  };
}

/** Answer to an "Improve with agent" button the bot did not sign (a digest from before signing, or tampered). */
export const IMPROVE_UNVERIFIED_TEXT = unverifiedValueText(
  'use the button on a newer digest, or start a job with `/docs-edit`',
);

/** Answer to an Improve button whose digest page the bot can't match any more: what to do instead. */
export const OLDER_DIGEST_TEXT =
  "This button belongs to an older digest I can't read any more: use the button on a newer digest, or start a job with `/docs-edit`.";

/**
 * "Improve with agent" next to a falling page of a digest (block_actions
 * `visitors.digest.improve.<i>`): acks, then opens the modal with views.open (the trigger_id is
 * valid for 3 s) pre-filled with an instruction about that page — only a page the digest itself
 * offers, with a value the bot signed and a path of safe characters (SAFE_DOCS_PATH), for someone
 * the access policy lets start jobs in the digest's channel and who is a member of it (agent-jobs'
 * `jobFormButton`). The digest's channel and ts ride in the modal's signed private_metadata, so the
 * job starts in the digest's thread.
 */
function improveAction(deps: DigestListenerDeps) {
  return jobFormButton(deps, 'the Improve with agent modal', (body, value) => {
    const decoded = decodeImproveValue(value, deps.signer);
    if (!decoded.ok && decoded.reason !== 'malformed')
      return refuseUnverified(deps, IMPROVE_PURPOSE, decoded.reason, body, IMPROVE_UNVERIFIED_TEXT);
    const { channel, ts } = where(body);
    // The page must be one the digest itself offers (its own buttons, in the message Slack sends back) and a safe path.
    const own = improvablePaths((body.message as { blocks?: unknown } | undefined)?.blocks, deps.signer);
    if (!decoded.ok || !channel || !ts || !own.has(decoded.page.path)) return { say: OLDER_DIGEST_TEXT };
    const page = decoded.page;
    return { channel, view: () => buildImproveModal(page, { channel, threadTs: ts, path: page.path }, deps.signer) };
  });
}

/**
 * Submission of the "Improve with agent" modal (view_submission `visitors_improve`): agent-jobs'
 * `jobFormSubmission` over {@link IMPROVE_FORM} (a blank instruction or forged metadata refused in
 * the modal; access and membership checked again; the job start recorded, its status message in
 * the digest's thread). If it cannot be recorded, the modal says so and stays open.
 */
export const improveSubmission = (deps: DigestListenerDeps) => jobFormSubmission(deps, IMPROVE_FORM);

/**
 * Retry on a digest that could not be built (block_actions `visitors.digest.retry`): recorded with
 * its signed value (`digests.retry`) and acked; the worker checks the value, access, membership and
 * the channel's slot of digests on request, queues the channel's digest again and edits the notice.
 */
export function digestRetryAction(deps: DigestListenerDeps) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const { channel, ts, teamId } = where(body);
    if (!channel || !teamId) return void (await ack());
    const payload: DigestRetryIntake = {
      ...(action.value ? { value: action.value } : {}),
      teamId,
      channel,
      user: body.user.id,
      ...(ts ? { ts } : {}),
      ...(body.response_url ? { responseUrl: body.response_url } : {}),
    };
    const entry = actionEntry(action, INTAKE.digestRetry, payload);
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, entry);
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Registers the digest's buttons and the "Improve with agent" modal. */
export function register(app: App, deps: DigestListenerDeps): void {
  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^${escapeRegExp(ACTION_IMPROVE_PREFIX)}\\d+$`),
    improveAction(deps),
  );
  app.action<BlockAction<ButtonAction>>(ACTION_DIGEST_RETRY, digestRetryAction(deps));
  app.view({ type: 'view_submission', callback_id: IMPROVE_CALLBACK_ID }, improveSubmission(deps));
  const signalImprove = new RegExp(`^${escapeRegExp(ACTION_SIGNAL_IMPROVE_PREFIX)}\\d+$`);
  app.action<BlockAction<ButtonAction>>(signalImprove, signalImproveAction(deps));
  app.view({ type: 'view_submission', callback_id: SIGNAL_IMPROVE_CALLBACK_ID }, signalImproveSubmission(deps));
}
