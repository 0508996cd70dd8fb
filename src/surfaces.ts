/**
 * The map of the bot's Slack surfaces: every slash command, shortcut, action (`action_id`), view
 * (`callback_id` of a modal's submission), event and intake kind, and the feature that owns it (the
 * folder under src/features, or `platform`). Where something arrives and who answers it, in one
 * table: docs/architecture.md shows it as the map of the code.
 *
 * It is data, kept true by test/unit/surfaces.test.ts: the commands, shortcuts and events equal what
 * manifest.yml declares and subscribes to, and every command, shortcut, action, view and event equals
 * what the features register on the Bolt app (their `register` run against a recording app), every
 * intake kind what they handle (`intake.on`, run against a recording intake) and declare (their
 * `INTAKE`). A new surface is a row here, in the manifest when Slack must know it, and a listener in its
 * feature (CONTRIBUTING.md, "Adding a surface").
 */

/** What kind of surface a row is. */
export type SurfaceKind = 'command' | 'shortcut' | 'action' | 'view' | 'event' | 'intake';

/** Who owns a surface: a folder under src/features, or the platform. */
export type SurfaceOwner =
  | 'access'
  | 'agent-jobs'
  | 'agent-view'
  | 'ask'
  | 'conversations'
  | 'document-thread'
  | 'reports'
  | 'settings'
  | 'platform';

/** One row of {@link SURFACES}. */
export interface Surface {
  kind: SurfaceKind;
  /**
   * What Slack (or the intake) names it: the command, the shortcut's or view's `callback_id`, the
   * `action_id`, the event `type`, the intake kind's name. An id ending in `*` stands for its
   * prefix and a number or a rest (a row per page of a report, a link button per URL).
   */
  id: string;
  owner: SurfaceOwner;
  /** What it is, in a few words. */
  what: string;
  /**
   * Set on the events only an org-ready app receives (Slack: `team_access_granted` and
   * `team_access_revoked` are "sent to your organization-ready app"): manifest.yml, written for a
   * workspace app, does not subscribe to them; docs/setup.md ("Enterprise Grid") says to add them.
   */
  orgAppOnly?: true;
}

/** Every surface of the bot and its owner, by kind (see the module comment). */
export const SURFACES: readonly Surface[] = [
  { kind: 'command', id: '/docs-edit', owner: 'agent-jobs', what: 'start a docs agent job' },
  { kind: 'command', id: '/docs-reply', owner: 'agent-jobs', what: "a follow-up to a job, by the job's id" },
  { kind: 'command', id: '/docs-ask', owner: 'ask', what: 'ask the docs; the answer streams into a thread' },
  {
    kind: 'command',
    id: '/docs-visitors',
    owner: 'reports',
    what: 'visitor and reader-signal reports, digest subcommands',
  },
  { kind: 'command', id: '/docs-settings', owner: 'settings', what: "a channel's project and policies" },

  { kind: 'shortcut', id: 'document_thread', owner: 'document-thread', what: 'message shortcut: Document this thread' },

  { kind: 'action', id: 'agent_jobs.restart', owner: 'agent-jobs', what: 'Start again, on a job that failed' },
  { kind: 'action', id: 'agent_jobs.feedback', owner: 'agent-jobs', what: "feedback buttons on a job's result" },
  { kind: 'action', id: 'agent_jobs.preview_fix', owner: 'agent-jobs', what: 'Ask the agent to fix the build' },
  { kind: 'action', id: 'ask.feedback', owner: 'ask', what: 'feedback buttons under an answer' },
  { kind: 'action', id: 'ask.change', owner: 'ask', what: 'Make this a docs change, under an answer' },
  { kind: 'action', id: 'ask.document', owner: 'ask', what: 'Document this, under an answer (opens a form)' },
  { kind: 'action', id: 'ask.experts', owner: 'ask', what: 'Ask the docs team, under an unanswered answer' },
  {
    kind: 'action',
    id: 'ask.document_answer',
    owner: 'ask',
    what: "Document this answer, in a question's thread after the docs team was asked (opens a form)",
  },
  { kind: 'action', id: 'visitors.page.previous', owner: 'reports', what: "a visitor report's previous page" },
  { kind: 'action', id: 'visitors.page.next', owner: 'reports', what: "a visitor report's next page" },
  { kind: 'action', id: 'visitors.report.retry', owner: 'reports', what: 'Retry, on a visitor report that failed' },
  {
    kind: 'action',
    id: 'visitors.signals.previous',
    owner: 'reports',
    what: "a reader-signal report's previous page",
  },
  { kind: 'action', id: 'visitors.signals.next', owner: 'reports', what: "a reader-signal report's next page" },
  { kind: 'action', id: 'visitors.signals.retry', owner: 'reports', what: 'Retry, on a reader-signal report' },
  { kind: 'action', id: 'visitors.menu', owner: 'reports', what: "a report's menu (the other reports)" },
  {
    kind: 'action',
    id: 'visitors.digest.improve.*',
    owner: 'reports',
    what: "Improve with agent, on a digest's page (numbered per row; opens a form)",
  },
  { kind: 'action', id: 'visitors.digest.retry', owner: 'reports', what: "Retry, on a digest's failed part" },
  {
    kind: 'action',
    id: 'visitors.signal.improve.*',
    owner: 'reports',
    what: 'Improve with agent, on a reader signal (numbered per row; opens a form)',
  },
  { kind: 'action', id: 'settings.edit', owner: 'settings', what: 'Edit, on the settings (opens a form)' },
  { kind: 'action', id: 'link.*', owner: 'platform', what: 'link buttons: acked, nothing else' },
  { kind: 'action', id: 'open_pr_link', owner: 'platform', what: 'the pull request link button: acked' },

  { kind: 'view', id: 'ask_document', owner: 'ask', what: 'the Document this form' },
  { kind: 'view', id: 'ask_document_answer', owner: 'ask', what: 'the Document this answer form' },
  { kind: 'view', id: 'visitors_improve', owner: 'reports', what: "the Improve with agent form, a digest's page" },
  { kind: 'view', id: 'visitors_improve_signal', owner: 'reports', what: 'the Improve with agent form, a signal' },
  { kind: 'view', id: 'document_thread_modal', owner: 'document-thread', what: 'the Document this thread form' },
  { kind: 'view', id: 'settings_edit', owner: 'settings', what: 'the settings form' },

  { kind: 'event', id: 'message', owner: 'conversations', what: 'thread replies and DMs, routed to agent-jobs or ask' },
  { kind: 'event', id: 'app_mention', owner: 'conversations', what: 'mentions, routed to agent-jobs or ask' },
  { kind: 'event', id: 'app_home_opened', owner: 'agent-jobs', what: 'the Home tab (the App Home)' },
  { kind: 'event', id: 'app_home_opened', owner: 'agent-view', what: 'the Messages tab (suggested prompts)' },
  { kind: 'event', id: 'app_context_changed', owner: 'agent-view', what: 'what the person views beside the agent' },
  { kind: 'event', id: 'user_change', owner: 'access', what: "a person's facts changed: drop them from the cache" },
  {
    kind: 'event',
    id: 'team_access_granted',
    owner: 'access',
    what: 'an org-wide app added to workspaces',
    orgAppOnly: true,
  },
  {
    kind: 'event',
    id: 'team_access_revoked',
    owner: 'access',
    what: 'an org-wide app removed from workspaces',
    orgAppOnly: true,
  },

  { kind: 'intake', id: 'agent-jobs.start', owner: 'agent-jobs', what: 'start a job (/docs-edit, forms, shortcuts)' },
  { kind: 'intake', id: 'agent-jobs.reply', owner: 'agent-jobs', what: '/docs-reply' },
  { kind: 'intake', id: 'agent-jobs.home', owner: 'agent-jobs', what: 'publish the App Home' },
  { kind: 'intake', id: 'agent-jobs.restart', owner: 'agent-jobs', what: 'Start again' },
  { kind: 'intake', id: 'agent-jobs.feedback', owner: 'agent-jobs', what: "feedback on a job's result" },
  { kind: 'intake', id: 'agent-jobs.preview-fix', owner: 'agent-jobs', what: 'Ask the agent to fix the build' },
  { kind: 'intake', id: 'agent-jobs.message', owner: 'conversations', what: "a person's message (name kept)" },
  {
    kind: 'intake',
    id: 'conversations.question-channel',
    owner: 'conversations',
    what: 'a new message in a question channel',
  },
  { kind: 'intake', id: 'agent-view.prompts', owner: 'agent-view', what: 'set the suggested prompts' },
  { kind: 'intake', id: 'ask.question', owner: 'ask', what: 'a question (/docs-ask, a mention, a follow-up)' },
  { kind: 'intake', id: 'ask.feedback', owner: 'ask', what: 'feedback on an answer' },
  { kind: 'intake', id: 'ask.change', owner: 'ask', what: 'Make this a docs change' },
  { kind: 'intake', id: 'ask.experts', owner: 'ask', what: 'Ask the docs team' },
  { kind: 'intake', id: 'digests.retry', owner: 'reports', what: "retry a digest's failed part" },
  { kind: 'intake', id: 'settings.command', owner: 'settings', what: '/docs-settings' },
  { kind: 'intake', id: 'settings.save', owner: 'settings', what: 'the settings form, submitted' },
  {
    kind: 'intake',
    id: 'thread-context.preview',
    owner: 'document-thread',
    what: "the shortcut's preview (name kept)",
  },
  { kind: 'intake', id: 'visitors.report', owner: 'reports', what: 'a visitor report' },
  { kind: 'intake', id: 'visitors.page', owner: 'reports', what: "a visitor report's page" },
  { kind: 'intake', id: 'visitors.retry', owner: 'reports', what: 'a visitor report again' },
  { kind: 'intake', id: 'visitors.subcommand', owner: 'reports', what: 'a digest subcommand of /docs-visitors' },
  { kind: 'intake', id: 'visitors.signals-report', owner: 'reports', what: 'a reader-signal report' },
  { kind: 'intake', id: 'visitors.signals-page', owner: 'reports', what: "a reader-signal report's page" },
  { kind: 'intake', id: 'visitors.signals-retry', owner: 'reports', what: 'a reader-signal report again' },
  { kind: 'intake', id: 'visitors.menu', owner: 'reports', what: "a report's menu choice" },
];
