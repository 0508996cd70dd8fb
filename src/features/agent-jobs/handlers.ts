import type { AccessGate } from '../../platform/access.js';
import type { WebClient } from '@slack/web-api';
import type { Intake, IntakeContext } from '../../platform/intake.js';
import type { KeyedSerial } from '../../platform/keyed-serial.js';
import type { Logger } from '../../platform/logger.js';
import { markupToText, quoteReaderText } from '../../platform/slack/markup.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { checkMembership } from '../../platform/slack/member-check.js';
import { postOnce, stepKeys } from '../../platform/steps.js';
import { tellPrivately } from '../../platform/slack/tell.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { publishHome, type HomeDefaults, type HomeDeps } from './home/index.js';
import { handleFeedback, type FeedbackDeps, type FeedbackIntake } from './feedback.js';
import { continueAgentJob } from './follow-up/index.js';
import { handlePreviewFix, type PreviewFixIntake } from './preview/fix.js';
import type { PreviewStore } from './preview/record.js';
import type { MessageDeps } from './messages.js';
import { RESTART_PURPOSE, startAgentJob, startWithContext, type ContextStartDeps } from './start/index.js';
import { threadPermalink } from './permalink.js';
import type { JobStore } from './store.js';
import { jobIdCode } from './job-record.js';
import { INTAKE, type StartIntake, type ReplyIntake, type HomeIntake, type RestartIntake } from './intake.js';
import { hasCode, PlatformErrorCode } from '../../platform/errors.js';

/** What the handlers need. */
export interface AgentJobsHandlerDeps extends MessageDeps, ContextStartDeps {
  store: MessageDeps['store'] & Pick<JobStore, 'get' | 'listUserJobs' | 'update' | 'getRestart'>;
  followups: Pick<KeyedSerial, 'run'>;
  slack: MessageDeps['slack'] & {
    chat: Pick<WebClient['chat'], 'getPermalink'>;
    views: Pick<WebClient['views'], 'publish'>;
  };
  logger: Logger;
  homeDefaults: HomeDefaults;
  /** The workspaces an org-wide install was removed from (no App Home there). */
  workspaces?: HomeDeps['workspaces'];
  /** App Home: whether the viewer may start jobs, and their budget left if so. */
  access: Pick<AccessGate, 'authorize' | 'budgetLeft'>;
  /** 👍/👎 clicks on announcements. */
  feedback: FeedbackDeps;
  /** Checks "Start it again" values are the bot's. */
  signer: Pick<ValueSigner, 'open'>;
  /** "Start it again" needs its requester still in the conversation. */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** The failed previews "Ask the agent to fix the build" quotes. */
  previews: Pick<PreviewStore, 'get'>;
  /** AGENT_PROMPT_MAX_CHARS: the fix's instruction is fitted to it. */
  promptMaxChars: number;
}

/** Registers the agent-jobs intake handlers (run by the intake worker of any replica). */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: AgentJobsHandlerDeps): void {
  intake.on<StartIntake>(INTAKE.start, async (p, ctx) => {
    // An ephemeral (no response_url) goes to the requester in the job's thread.
    const to = {
      user: p.requester,
      channel: p.channel,
      responseUrl: p.responseUrl,
      threadTs: p.ephemeralThreadTs ?? p.threadTs,
    };
    const tell = (text: string) => tellPrivately(deps, to, text);
    const { responseUrl: _r, ephemeralThreadTs: _e, ...req } = p;
    await startWithContext(deps, { ...req, requestKey: ctx.jobId, receivedAt: ctx.receivedAt }, ctx, tell);
  });
  intake.on<ReplyIntake>(INTAKE.reply, (p, ctx) => docsReply(deps, p, ctx));
  intake.on<HomeIntake>(INTAKE.home, (p) => publishHome(deps, p));
  intake.on<RestartIntake>(INTAKE.restart, (p, ctx) => restart(deps, p, ctx));
  intake.on<PreviewFixIntake>(INTAKE.previewFix, (p, ctx) =>
    handlePreviewFix(
      {
        jobs: deps.store,
        previews: deps.previews,
        continue: deps.continue,
        promptMaxChars: deps.promptMaxChars,
        followups: deps.followups,
        signer: deps.signer,
        slack: deps.slack,
        logger: deps.logger,
      },
      p,
      ctx,
      (text) =>
        tellPrivately(
          deps,
          { user: p.user, channel: p.channel ?? '', ...(p.responseUrl ? { responseUrl: p.responseUrl } : {}) },
          text,
        ),
    ),
  );
  intake.on<FeedbackIntake>(INTAKE.feedback, (p, ctx) =>
    handleFeedback(deps.feedback, p, ctx, (text) =>
      tellPrivately(
        deps,
        { user: p.user, channel: p.channel ?? '', ...(p.responseUrl ? { responseUrl: p.responseUrl } : {}) },
        text,
      ),
    ),
  );
}

/**
 * `/docs-reply` (and the follow-up form of "Document this thread"): sends the follow-up, posts a
 * note in the job's thread ("@user continued this job from the channel: …", once), and answers the
 * person with a link to that thread. The job is found and the person's access checked before the
 * instruction's markup is converted.
 */
async function docsReply(deps: AgentJobsHandlerDeps, p: ReplyIntake, ctx: IntakeContext): Promise<void> {
  const prompt = p.via === 'form' ? p.raw.trim() : () => markupToText(p.raw, p.botUserId, deps.names.lookup(p.teamId));
  const res = await deps.followups.run(p.jobId, () =>
    continueAgentJob(deps.continue, { jobId: p.jobId, author: p.user, prompt, fromChannel: p.channel }, ctx),
  );
  const to = { user: p.user, channel: p.channel, responseUrl: p.responseUrl, threadTs: p.ephemeralThreadTs };
  if (!res.ok) return tellPrivately(deps, to, res.message);
  const rec = res.rec;
  const note = `<@${p.user}> continued this job ${p.via === 'form' ? 'with Document this thread' : 'from the channel'}:\n${quoteReaderText(res.prompt, 2800)}`;
  const key = stepKeys(ctx.jobId, 'note').note;
  const message = { channel: rec.channel, thread_ts: rec.threadTs, text: note, key, since: ctx.receivedAt };
  await postOnce(deps.slack, ctx, message).catch((err: unknown) => {
    // Not posted: the intake tries again (the follow-up is not sent twice).
    if (hasCode(err, PlatformErrorCode.StepUnreplicated)) throw err;
    deps.logger.warn({ err }, 'could not post the /docs-reply note');
  });
  const link = await threadPermalink(deps.slack, deps.store, rec);
  await tellPrivately(
    deps,
    to,
    `Sent your follow-up to job ${jobIdCode(p.jobId)}. I'll reply in ${link ? `<${link}|its thread>` : 'its thread'} when the agent is done.`,
  );
}

/** Answer to "Start it again" when its value is not the bot's, or names an instruction it no longer has here. */
const RESTART_UNKNOWN_TEXT =
  'I no longer have that instruction (it is kept for 30 days). Start the job again with `/docs-edit`.';

/** Answer to "Start it again" clicked by someone other than the job's requester: who may, and what they can do. */
export function restartNotYoursText(requester: string): string {
  return `Only <@${requester}>, who asked for this job, can start it again. To run it yourself, start a job with \`/docs-edit\`.`;
}

/**
 * "Start it again": starts the job whose first start was uncertain, in the same place. Only its
 * requester may, from the notice's own conversation, while still a member of it; a value the bot
 * did not sign is refused (a warning log).
 */
async function restart(deps: AgentJobsHandlerDeps, p: RestartIntake, ctx: IntakeContext): Promise<void> {
  const where = { user: p.user, channel: p.channel ?? '', ...(p.responseUrl ? { responseUrl: p.responseUrl } : {}) };
  const opened = deps.signer.open(RESTART_PURPOSE, p.restartId);
  if (!opened.ok) {
    warnUnverified(deps.logger, RESTART_PURPOSE, opened.reason, { user: p.user });
    return tellPrivately(deps, where, unverifiedValueText('start the job with `/docs-edit`'));
  }
  const saved = await deps.store.getRestart(opened.payload);
  // An instruction of another conversation is answered as unknown: nobody learns it exists.
  if (!saved || saved.channel !== p.channel) return tellPrivately(deps, where, RESTART_UNKNOWN_TEXT);
  if (saved.requester !== p.user) return tellPrivately(deps, where, restartNotYoursText(saved.requester));
  const asked = { channel: saved.channel, user: p.user, action: 'start_job' as const };
  const member = await checkMembership(deps.conversations, deps.logger, asked);
  if (!member.ok) return tellPrivately(deps, where, member.text);
  const res = await startAgentJob(deps.start, { ...saved, requestKey: ctx.jobId, receivedAt: ctx.receivedAt }, ctx);
  if (!res.ok && res.message) await tellPrivately(deps, where, res.message);
}
