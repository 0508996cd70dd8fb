/**
 * The features, built bottom up on the platform (docs/architecture.md "Wiring order"): each gets
 * the platform, the configuration, and only what is built before it. A callback handed to a
 * feature never reaches one built after it (test/unit/wiring.test.ts checks it).
 */
import type { App } from '@slack/bolt';
import { createAccess, type Access } from './features/access/index.js';
import { createAgentJobs, type AgentJobs } from './features/agent-jobs/index.js';
import { createAgentView, suggestionKind, type AgentView } from './features/agent-view/index.js';
import { createAsk, type Ask } from './features/ask/index.js';
import { createConversations, type Conversations } from './features/conversations/index.js';
import { createDocumentThread, type DocumentThread } from './features/document-thread/index.js';
import { createReports, type Reports } from './features/reports/index.js';
import {
  createChannelSettings,
  createSettings,
  forgetChannelSettings,
  type Settings,
} from './features/settings/index.js';
import { createThreadContext } from './features/thread-context/index.js';
import type { Platform } from './platform/runtime.js';
import type { UninstallHook } from './platform/uninstalls.js';

/** The built features, as the composition root registers, starts and closes them. */
export interface Features {
  agentJobs: AgentJobs;
  reports: Reports;
  settings: Settings;
  documentThread: DocumentThread;
  agentView: AgentView;
  ask: Ask;
  conversations: Conversations;
  access: { register(app: App): void };
  /**
   * What `app_uninstalled` removes (OAuth mode; platform/uninstalls.ts): the installation's channel
   * settings and its digest subscriptions, each feature deleting its own.
   */
  onUninstalled: readonly UninstallHook[];
}

/**
 * `/docs-settings`, built last: who may change settings is the access policy's `change_settings`
 * (guests and outsiders never; a check that could not be made throws, so settings says so and
 * changes nothing), who may start jobs is the policy in words, a channel's digest
 * subscription is the reports feature's description, and `asking` is the ask feature's `configured`
 * (while off, mentions and answer-all do nothing, and the settings say so).
 */
function buildSettings(
  p: Platform,
  access: Access,
  describeDigest: (teamId: string, channel: string) => Promise<string>,
  asking: boolean,
): Settings {
  return createSettings({
    platform: p,
    config: p.config,
    asking,
    isSettingsAdmin: async (user) => {
      const decision = await access.gate.authorize({ user }, 'change_settings', '', { audit: false });
      if (!decision.allowed && decision.reason === 'check_failed')
        throw new Error('the access check could not be made');
      return decision.allowed;
    },
    describeAccess: (channel) => Promise.resolve(access.describe(channel)),
    authorizeView: (actor, channel) => access.gate.authorize(actor, 'view_settings', channel),
    describeDigest,
  });
}

/**
 * Builds every feature in dependency order: the channel settings lookup, then access (it asks a
 * channel's project), thread context, the agent view, agent jobs (given thread context's
 * `context`), ask (given agent jobs' `start`), the router of people's messages (given both), the
 * "Document this thread" shortcut, reports (`/docs-visitors` and the digests), and last
 * `/docs-settings` (given access and reports' `describeSubscription`); then what an uninstall
 * removes of the channel settings and the reports' digests (`onUninstalled`).
 */
export function buildFeatures(p: Platform): Features {
  const { config } = p;
  const channels = createChannelSettings({ platform: p, config });
  const projectFor = (channel: string) => channels.projectFor(channel);
  const access = createAccess({ platform: p, config, projectFor });
  const threadContext = createThreadContext({ platform: p, config });
  const agentView = createAgentView({ platform: p, config, access: access.gate });
  const context = threadContext.context;
  const agentJobs = createAgentJobs({ platform: p, config, access: access.gate, channels, context });
  const jobThreads = (channel: string, ts: string) => agentJobs.owner(channel, ts);
  // Ask is built on agent-jobs (its buttons start jobs); the router of people's messages on both.
  const ask = createAsk({
    platform: p,
    config,
    access: access.gate,
    people: access.people,
    start: agentJobs.start,
    scopeFor: (channel) => channels.scopeFor(channel),
    expertsFor: (channel) => channels.expertsFor(channel),
    settingsOwnerOf: async (channel) => (await channels.effective(channel)).updatedBy,
  });
  const conversations = createConversations({
    platform: p,
    config,
    jobs: agentJobs,
    jobThreads,
    ask,
    mentionsModeFor: (channel) => channels.mentionsModeFor(channel),
    answersAllIn: (channel) => channels.answersAllIn(channel),
    suggestionKind,
  });
  const documentThread = createDocumentThread({ platform: p, threadContext, access: access.gate, owner: jobThreads });
  const slackQuestions = ask.configured ? ask.unansweredIn.bind(ask) : undefined;
  const reports = createReports({
    platform: p,
    config,
    access: access.gate,
    projectFor,
    ...(slackQuestions ? { slackQuestions } : {}),
  });
  const describeDigest = (teamId: string, channel: string) => reports.describeSubscription(teamId, channel);
  const settings = buildSettings(p, access, describeDigest, ask.configured);
  const onUninstalled: UninstallHook[] = [
    { what: 'channelSettings', forget: (slot) => forgetChannelSettings(p, slot) },
    { what: 'digestSubscriptions', forget: (slot) => reports.forgetInstallation(slot) },
  ];
  return { agentJobs, reports, settings, documentThread, agentView, ask, conversations, access, onUninstalled };
}
