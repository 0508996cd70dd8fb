import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../../platform/access.js';
import type { WorkspaceAccess } from '../../../platform/workspace-access.js';
import { threadPermalink } from '../permalink.js';
import type { JobStore } from '../store.js';
import { buildHomeView, type HomeDefaults } from './blocks.js';

/** What publishing the App Home tab needs. */
export interface HomeDeps {
  store: Pick<JobStore, 'listUserJobs' | 'update'>;
  slack: { chat: Pick<WebClient['chat'], 'getPermalink'>; views: Pick<WebClient['views'], 'publish'> };
  /** Budget left, shown on the tab. */
  access: Pick<AccessGate, 'budgetLeft'>;
  homeDefaults: HomeDefaults;
  /** The workspaces an org-wide install was removed from: their App Home is not published. */
  workspaces?: Pick<WorkspaceAccess, 'removed'>;
  /** Clock in epoch ms. */
  now: () => number;
}

/**
 * App Home: publishes (views.publish) the person's last 20 jobs, each with its thread's permalink,
 * and the defaults and agent budget in force; nothing in a workspace the org-wide install was
 * removed from. @throws Redis and Slack errors (the intake retries).
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
  const budget = await deps.access.budgetLeft(p.user);
  await deps.slack.views.publish({ user_id: p.user, view: buildHomeView(jobs, deps.homeDefaults, deps.now(), budget) });
}
