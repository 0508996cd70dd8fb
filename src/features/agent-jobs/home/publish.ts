import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../../platform/access.js';
import type { Logger } from '../../../platform/logger.js';
import type { WorkspaceAccess } from '../../../platform/workspace-access.js';
import { threadPermalink } from '../permalink.js';
import type { JobStore } from '../store.js';
import { buildHomeView, type HomeAccess, type HomeDefaults } from './blocks.js';

/** What publishing the App Home tab needs. */
export interface HomeDeps {
  store: Pick<JobStore, 'listUserJobs' | 'update'>;
  slack: { chat: Pick<WebClient['chat'], 'getPermalink'>; views: Pick<WebClient['views'], 'publish'> };
  /** Whether the viewer may start jobs (the policy every entry point asks), and their budget left if so. */
  access: Pick<AccessGate, 'authorize' | 'budgetLeft'>;
  homeDefaults: HomeDefaults;
  /** The workspaces an org-wide install was removed from: their App Home is not published. */
  workspaces?: Pick<WorkspaceAccess, 'removed'>;
  /** Clock in epoch ms. */
  now: () => number;
  logger: Pick<Logger, 'warn'>;
}

/**
 * What the tab tells the viewer of the agent ({@link HomeAccess}): the policy's `start_job` answer
 * for them (no audit line: nothing was asked of the bot; no docs API call, the policy reads Slack's
 * cached user facts), asked without a channel, so a refusal for the channel alone
 * (ACCESS_ALLOWED_CHANNELS) still shows the budget: they may spend it in the allowed channels.
 * Refused: the refusal's sentence. A check that could not be made (or a gate that threw, logged at
 * warn): undefined, no budget shown (fail closed). Never rejects.
 */
async function viewerAccess(deps: HomeDeps, user: string): Promise<HomeAccess | undefined> {
  try {
    const decision = await deps.access.authorize({ user }, 'start_job', '', { audit: false });
    if (decision.allowed || decision.reason === 'not_allowed_channel') return await deps.access.budgetLeft(user);
    return decision.reason === 'check_failed' ? undefined : { refused: decision.text };
  } catch (err) {
    deps.logger.warn({ err }, "could not check the viewer's access for App Home; no budget shown");
    return undefined;
  }
}

/**
 * App Home: publishes (views.publish) the person's last 20 jobs, each with its thread's permalink,
 * and the defaults in force, with the agent budget left for a viewer the access policy lets start
 * jobs, or the policy's refusal for one it does not ({@link viewerAccess}); nothing in a workspace
 * the org-wide install was removed from. @throws Redis and Slack errors (the intake retries).
 */
export async function publishHome(deps: HomeDeps, p: { teamId: string; user: string }): Promise<void> {
  if (await deps.workspaces?.removed(p.teamId)) return;
  const recs = await deps.store.listUserJobs(p.teamId, p.user, 20);
  const jobs = await Promise.all(
    recs.map(async (r) => ({
      jobId: r.jobId,
      instruction: r.instruction,
      ...(r.about ? { about: r.about } : {}),
      state: r.state,
      prLink: r.prLink,
      permalink: await threadPermalink(deps.slack, deps.store, r),
      createdAt: r.createdAt,
      followups: r.cycle,
      ...(r.rating ? { rating: r.rating } : {}),
    })),
  );
  const access = await viewerAccess(deps, p.user);
  await deps.slack.views.publish({ user_id: p.user, view: buildHomeView(jobs, deps.homeDefaults, deps.now(), access) });
}
