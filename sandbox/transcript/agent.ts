/**
 * The agent view in a transcript: the Messages tab's suggested prompts under the conversation's
 * header, the loading lines Slack showed in a thread ("Docs Agent is reading the thread…", where
 * they appeared), and each thread's agent session with the statuses it went through.
 */
import type { FakeAgentState, SlackMessage } from '../fake-slack.js';
import { BOT_NAME, paint } from './names.js';

const THREAD_PREFIX = '  └ ';

/** `✦ title` and one `[prompt]` line per suggestion set for `channel` (none: no lines). */
export function promptLines(agent: FakeAgentState | undefined, channel: string, color: boolean): string[] {
  const set = agent?.prompts.get(channel);
  if (!set) return [];
  return [
    paint(color, ['dim'], `✦ ${set.title ?? 'Suggested prompts'}:`),
    ...set.prompts.map((p) => `  ${paint(color, ['bold'], `[ ${p.title} ]`)}`),
  ];
}

/** The loading lines of thread `root` that appeared right after message `afterTs` (or, with `afterTs` undefined, after none of `seen`). */
export function loadingLines(
  agent: FakeAgentState | undefined,
  root: SlackMessage,
  afterTs: string | undefined,
  seen: ReadonlySet<string>,
  color: boolean,
): string[] {
  const lines = (agent?.loadingLines ?? []).filter(
    (l) =>
      l.channel === root.channel &&
      l.threadTs === root.ts &&
      (afterTs === undefined ? !l.afterTs || !seen.has(l.afterTs) : l.afterTs === afterTs),
  );
  return lines.map(
    (l) => `${paint(color, ['dim'], THREAD_PREFIX)}${paint(color, ['dim'], `⋯ ${BOT_NAME} ${l.status}`)}`,
  );
}

/** `◆ session "title": processing → active` for thread `root`, if it has one. */
export function sessionLines(agent: FakeAgentState | undefined, root: SlackMessage, color: boolean): string[] {
  const s = agent?.sessions.get(`${root.channel}:${root.ts}`);
  if (!s) return [];
  const title = s.title ? ` “${s.title.length > 60 ? `${s.title.slice(0, 59)}…` : s.title}”` : '';
  return [
    `${paint(color, ['dim'], THREAD_PREFIX)}${paint(color, ['magenta'], `◆ agent session${title}: ${s.statuses.join(' → ')}`)}`,
  ];
}
