/**
 * Who may continue a job, asked before the follow-up's text is read or anything is spent: the
 * channel's follow-up policy, the access policy, and (for a job with Slack context) membership of
 * every conversation its context came from; and the sentences for each refusal.
 */
import { audit, type AuditReason } from '../../../platform/audit.js';
import { jobIdCode } from '../job-record.js';
import type { JobRecord } from '../store.js';
import type { ContinueJobDeps, Refused } from './request.js';

/** Answer to a follow-up from someone outside a conversation the job's context came from. */
export const NOT_A_READER_TEXT =
  "This job carries context from a conversation you're not in, so only people in every conversation it read can continue it. Your follow-up was not sent. Ask the person who started it, or start your own job with `/docs-edit`.";

/**
 * Answer when membership could not be checked (Slack failed or is busy, or the author is in too many
 * conversations to read).
 */
export const READERS_CHECK_FAILED_TEXT =
  "This job carries context from other conversations, and I couldn't check that you're in all of them, so your follow-up was not sent. Try again in a moment, or ask the person who started it.";

/**
 * Sentence for a job id the bot does not know here: no record, the API's 404, or (for
 * `/docs-reply`) a job of another conversation — one answer whatever the reason, so the command
 * cannot tell anyone which ids exist elsewhere. The id is what the person typed, so it is escaped
 * and shortened: `<!channel>` stays text, never a mention.
 */
export function unknownJobText(jobId: string): string {
  return `There is no job ${jobIdCode(jobId)} here that I know of. Job ids are shown on each job's status message (like \`job_abc123\`); run \`/docs-reply\` in the job's own conversation, or reply in its thread.`;
}

/** Sentence when the process died while a follow-up was being sent (the docs API can't be asked). */
export const UNCERTAIN_FOLLOWUP_TEXT =
  "I lost the answer to your follow-up (I was stopped, or the docs service did not answer in time), and the docs service can't tell me whether it arrived. If the job's status doesn't show it working again, send it again.";

/** Answer to a follow-up made against a cycle the job has since left (another follow-up went first). */
export const STALE_FOLLOWUP_TEXT =
  'The job moved on since (another follow-up was sent first), so yours was not sent. Reply in the thread to ask the agent for a change.';

/** Answer to a follow-up with nothing in it once the bot's mention is removed. */
export const EMPTY_FOLLOWUP_TEXT = 'That reply has no instruction in it, so I did not send it to the agent.';

/**
 * Whether `author` may see every conversation `rec`'s context came from besides the job's own
 * (its requester always may): undefined when so, else the refusal. Fails closed: an answer Slack
 * can't give refuses.
 */
async function readersRefusal(deps: ContinueJobDeps, rec: JobRecord, author: string): Promise<Refused | undefined> {
  // The job's own conversation is not asked: every way to continue a job comes from inside it (a
  // reply or mention in its thread, /docs-reply there, the shortcut on its thread), so asking
  // would only spend Slack reads.
  const from = rec.contextFrom.split(',').filter((c) => c && c !== rec.channel);
  if (author === rec.requester || from.length === 0) return undefined;
  const refuse = (reason: AuditReason, message: string) => {
    audit(deps.logger, {
      actor: author,
      channel: rec.channel,
      action: 'continue_job',
      outcome: 'refused',
      reason,
      jobId: rec.jobId,
    });
    return { ok: false as const, reason: 'not_a_reader' as const, message };
  };
  if (!deps.conversations) return refuse('not_a_reader', NOT_A_READER_TEXT);
  for (const channel of from) {
    let member: boolean;
    try {
      member = await deps.conversations.isMember(channel, author);
    } catch (err) {
      deps.logger.warn(
        { err, channel, jobId: rec.jobId },
        "could not check a follow-up author's membership; refused (fail closed)",
      );
      return refuse('check_failed', READERS_CHECK_FAILED_TEXT);
    }
    if (!member) return refuse('not_a_reader', NOT_A_READER_TEXT);
  }
  return undefined;
}

/**
 * Why `author` may not continue `rec` (undefined: they may), asked before the follow-up's text is
 * read: the channel's follow-up policy, then (until admitted) the access policy, which spends no
 * budget and costs no Slack call for someone it refuses, then (until sent) that they read every
 * conversation the job's context came from.
 */
export async function authorRefusal(
  deps: ContinueJobDeps,
  rec: JobRecord,
  author: string,
  p: { sent?: 'sending' | 'done'; admitted?: boolean },
): Promise<Refused | undefined> {
  if (author !== rec.requester && (await deps.policyFor(rec.channel)) === 'requester') {
    const message = `Only <@${rec.requester}>, who started this job, can continue it (this channel's follow-up policy is "requester"). Ask them, or start your own job with \`/docs-edit\`.`;
    return { ok: false, reason: 'not_allowed', message };
  }
  if (p.sent === 'sending') return { ok: false, reason: 'uncertain', message: UNCERTAIN_FOLLOWUP_TEXT };
  if (p.sent !== 'done' && !p.admitted) {
    const who = await deps.access.authorize({ user: author }, 'continue_job', rec.channel);
    if (!who.allowed) return { ok: false, reason: 'refused', message: who.text };
  }
  // Context follows its readers: checked before anything is spent or sent (a retry that already sent skips it).
  if (!p.sent) return readersRefusal(deps, rec, author);
  return undefined;
}
