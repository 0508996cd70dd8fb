import type { PlanBlock, RichTextBlock, TaskCardBlock } from '@slack/types';
import { SLACK_LIMITS, safeUrl, truncate } from '../../../platform/slack/limits.js';
import type { PreviewStage, StatusState } from '../job-record.js';

/**
 * The job's steps as Slack's plan display: a `plan` block of `task_card`s (Slack Block Kit
 * reference, "Plan block" / "Task card block": `title` required; each task `task_id`, `title`,
 * `status` one of pending | in_progress | complete | error, optional `details` (one rich_text) and
 * `sources` (URL source elements)). Clients that do not render plans show the rest of the status
 * message, which says the same in mrkdwn.
 */

/** Input of {@link buildPlan}: what the status message knows of the job. */
interface PlanView {
  state: StatusState;
  /** Absent while the job is being created. */
  jobId?: string;
  projectId?: string;
  repository?: string;
  branch?: string;
  prLink?: string | null;
  /** Follow-ups sent so far (0 for a fresh job): each its own "Agent working" step. */
  followups?: number;
  /** Whether Slack messages went to the agent with the instruction (a "Reading the thread" step). */
  hasContext?: boolean;
  /** How many Slack messages went with it, when known. */
  contextMessages?: number;
  /** Where the preview of the pull request stands (absent: none asked for this run), and its URL. */
  preview?: PreviewStage;
  previewUrl?: string;
}

type Status = TaskCardBlock['status'];

function richText(text: string): RichTextBlock {
  return {
    type: 'rich_text',
    elements: [
      { type: 'rich_text_section', elements: [{ type: 'text', text: truncate(text, SLACK_LIMITS.sectionText) }] },
    ],
  };
}

function task(taskId: string, title: string, status: Status, details?: string): TaskCardBlock {
  return {
    type: 'task_card',
    task_id: taskId,
    title: truncate(title, 200),
    status,
    ...(details ? { details: richText(details) } : {}),
  };
}

const BEFORE_JOB: ReadonlySet<StatusState> = new Set(['starting', 'start_failed', 'uncertain']);

/** The outcome step: what the latest run ended in, or pending while it works. */
function outcomeTask(v: PlanView): TaskCardBlock {
  switch (v.state) {
    case 'completed': {
      const url = safeUrl(v.prLink);
      if (!url)
        return task(
          'outcome',
          v.prLink ? 'Pull request ready (link on the docs platform)' : 'No files changed',
          'complete',
        );
      return {
        ...task('outcome', 'Pull request ready', 'complete'),
        sources: [{ type: 'url', url: truncate(url, SLACK_LIMITS.buttonUrl), text: 'Pull request' }],
      };
    }
    case 'failed':
      return task('outcome', 'Failed', 'error');
    case 'archived':
      return task('outcome', 'Archived', 'complete');
    case 'timeout':
      return task('outcome', 'Stopped watching', 'error');
    default:
      return task('outcome', 'Pull request', 'pending');
  }
}

const PREVIEW_TASK: Record<PreviewStage, [string, Status]> = {
  queued: ['Preview queued', 'pending'],
  building: ['Building a preview', 'in_progress'],
  ready: ['Preview ready', 'complete'],
  failed: ['Preview build failed', 'error'],
  slow: ['Preview taking longer than usual', 'in_progress'],
  not_started: ['Preview could not be started', 'error'],
  uncertain: ['Preview request lost', 'error'],
};

/** The preview step (a completed run's pull request only): its stage, and the preview as a source once ready on https. */
function previewTask(v: PlanView): TaskCardBlock | undefined {
  if (!v.preview || v.state !== 'completed') return undefined;
  const [title, status] = PREVIEW_TASK[v.preview];
  const url = v.preview === 'ready' ? safeUrl(v.previewUrl) : undefined;
  const card = task('preview', title, status);
  if (!url?.startsWith('https://')) return card;
  return { ...card, sources: [{ type: 'url', url: truncate(url, SLACK_LIMITS.buttonUrl), text: 'Preview' }] };
}

/** Status of the latest "Agent working" step. */
function workingStatus(state: StatusState): Status {
  if (state === 'active') return 'in_progress';
  if (state === 'failed' || state === 'timeout') return 'error';
  if (state === 'completed' || state === 'archived') return 'complete';
  return 'pending';
}

/**
 * Builds the status message's plan from the job's state: "Reading the thread" (only with context),
 * "Starting the job" (job id, project, repository and branch once known), "Agent working" and one
 * step per follow-up, the outcome and, once a pull request's preview was asked for, the preview. At
 * most 2 + followups + 3 tasks.
 */
export function buildPlan(v: PlanView): PlanBlock {
  const tasks: TaskCardBlock[] = [];
  const starting = v.state === 'starting';
  if (v.hasContext) {
    const n = v.contextMessages;
    tasks.push(
      task(
        'context',
        n ? `Reading the thread (${n} message${n === 1 ? '' : 's'})` : 'Reading the thread',
        starting ? 'in_progress' : 'complete',
      ),
    );
  }
  const repo = v.repository ? v.repository.replace(/^https:\/\/github\.com\//, '').replace(/\.git$/, '') : '';
  const details = [
    v.jobId ? `Job ${v.jobId}` : undefined,
    v.projectId ? `project ${v.projectId}` : undefined,
    repo ? `${repo}${v.branch ? ` on ${v.branch}` : ''}` : v.branch ? `branch ${v.branch}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  const startStatus: Status = starting
    ? 'in_progress'
    : v.state === 'start_failed' || v.state === 'uncertain'
      ? 'error'
      : 'complete';
  tasks.push(task('start', 'Starting the job', startStatus, details || undefined));
  const followups = BEFORE_JOB.has(v.state) ? 0 : (v.followups ?? 0);
  for (let i = 0; i <= followups; i++) {
    const title = i === 0 ? 'Agent working' : `Agent working on follow-up ${i}`;
    tasks.push(task(i === 0 ? 'work' : `work_${i}`, title, i < followups ? 'complete' : workingStatus(v.state)));
  }
  tasks.push(outcomeTask(v));
  const preview = previewTask(v);
  if (preview) tasks.push(preview);
  return { type: 'plan', title: 'Docs agent job', tasks };
}
