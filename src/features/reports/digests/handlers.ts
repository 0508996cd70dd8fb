import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../../platform/access.js';
import type { Intake, IntakeContext } from '../../../platform/intake.js';
import type { Logger } from '../../../platform/logger.js';
import type { ConversationDirectory } from '../../../platform/slack/conversations.js';
import { checkMembership } from '../../../platform/slack/member-check.js';
import { tellPrivately } from '../../../platform/slack/tell.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../../platform/slack/signed-value.js';
import { INTAKE, type DigestRetryIntake } from '../intake.js';
import { manualDigestSlot, MANUAL_DIGEST_USED, STORAGE_DOWN, takeOrTell, type DigestQuotas } from './quotas.js';
import { decodeDigestRetry, DIGEST_RETRY_PURPOSE } from './retry.js';
import { queueDigestNow, type DigestCommandDeps } from './subcommands.js';

/** What the digests handlers need. */
export interface DigestHandlerDeps extends Pick<DigestCommandDeps, 'digestQueue' | 'defaultSchedule' | 'now'> {
  slack: { chat: Pick<WebClient['chat'], 'update'> };
  access: Pick<AccessGate, 'authorize'>;
  /** Retry re-checks that the clicker is in the digest's channel. */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Opens Retry's signed value. */
  signer: Pick<ValueSigner, 'open'>;
  /** Retry spends the channel's slot of digests on request, like `/docs-visitors digest`. */
  quotas: Pick<DigestQuotas, 'manualDigest'>;
  logger: Logger;
}

/** Answer to a Retry the bot did not sign (a notice from before Retry values were signed, or forged). */
export const RETRY_UNVERIFIED_TEXT = unverifiedValueText('run `/docs-visitors digest` in the channel');
/** Answer to a Retry clicked in another channel than the digest's, or one whose value can't be read. */
export const RETRY_ELSEWHERE_TEXT =
  "This Retry belongs to another channel's digest (or to an older notice), so I did nothing. " +
  'Run `/docs-visitors digest` in the channel whose digest you want.';

/** Registers the digests intake handlers. */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: DigestHandlerDeps): void {
  intake.on<DigestRetryIntake>(INTAKE.digestRetry, (p, ctx) => retryDigest(deps, p, ctx));
}

/** The warn line when the clicker of Retry could not be told (an expired or used response_url). */
const DIGEST_RETRY_TELL_FAILURE = { failure: 'could not tell the person about a digest Retry' };

/**
 * Retry on a failed digest: only a value the bot signed for this channel, then the access gate
 * (`manage_digests`), the clicker's membership of the channel, and the channel's slot of digests on
 * request (taken once per click, kept across the handler's retries); then the digest is queued and
 * the notice says it is on its way. Every refusal is told privately and costs nothing more.
 */
async function retryDigest(deps: DigestHandlerDeps, p: DigestRetryIntake, ctx: IntakeContext): Promise<void> {
  // Told privately through the click's response_url, when it came with one.
  const tell = (text: string) =>
    tellPrivately({ logger: ctx.log }, { responseUrl: p.responseUrl }, text, DIGEST_RETRY_TELL_FAILURE);
  const decoded = decodeDigestRetry(p.value, deps.signer);
  if (!decoded.ok && decoded.reason !== 'malformed') {
    warnUnverified(deps.logger, DIGEST_RETRY_PURPOSE, decoded.reason, { user: p.user });
    return tell(RETRY_UNVERIFIED_TEXT);
  }
  if (!decoded.ok || decoded.retry.channel !== p.channel || decoded.retry.teamId !== p.teamId)
    return tell(RETRY_ELSEWHERE_TEXT);
  const decision = await deps.access.authorize({ user: p.user, teamId: p.teamId }, 'manage_digests', p.channel);
  if (!decision.allowed) return tell(decision.text);
  const asked = { channel: p.channel, user: p.user, action: 'manage_digests' as const };
  const member = await checkMembership(deps.conversations, deps.logger, asked);
  if (!member.ok) return tell(member.text);
  const slot = manualDigestSlot(p.teamId, p.channel);
  if (!ctx.progress.slotTaken) {
    if (!(await takeOrTell(deps, tell, deps.quotas.manualDigest, slot, MANUAL_DIGEST_USED))) return;
    await ctx.save({ slotTaken: true });
  }
  if (!(await queued(deps, p, ctx, slot, tell))) return;
  if (p.ts) {
    const text = `:hourglass_flowing_sand: <@${p.user}> asked to try the weekly digest again; it is on its way.`;
    await deps.slack.chat
      .update({ channel: p.channel, ts: p.ts, text, blocks: [] })
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not edit the digest notice'));
  }
}

/**
 * Queues the channel's digest. @returns false when it could not be on the last attempt (the slot is
 * given back and the person told through `tell`). @throws the queue's error before the last attempt
 * (retried).
 */
async function queued(
  deps: DigestHandlerDeps,
  p: DigestRetryIntake,
  ctx: IntakeContext,
  slot: string,
  tell: (text: string) => Promise<void>,
): Promise<boolean> {
  try {
    const responseUrl = p.responseUrl ? { responseUrl: p.responseUrl } : {};
    await queueDigestNow(deps, { teamId: p.teamId, channel: p.channel, requestedBy: p.user, ...responseUrl });
    return true;
  } catch (err) {
    if (!ctx.finalAttempt) throw err;
    deps.logger.warn({ err }, 'could not queue a digest retry');
    await deps.quotas.manualDigest
      .give(slot)
      .catch((e: unknown) => deps.logger.warn({ err: e }, 'could not give back a manual digest slot'));
    await tell(`I couldn't queue the digest ${STORAGE_DOWN}`);
    return false;
  }
}
