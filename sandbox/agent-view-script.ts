/**
 * The sandbox script's agent view part: @alice opens Docs Agent's Messages tab while she looks at
 * #docs, the tab suggests "Document the latest discussion in #docs" beside the standing prompts, and
 * her click starts a job in the DM's thread: loading lines while it starts, an agent session that
 * goes processing → active, the pull request in the thread.
 */
import type { FakeSlack } from './fake-slack.js';
import type { SandboxDriver } from './socket-as-http.js';

/** How the script prints: a line, and dimmed / bold text. */
export interface Printer {
  say(line?: string): void;
  dim(s: string): string;
  bold(s: string): string;
}

/** Plays the agent view scene; returns the DM's channel id (for the transcript). */
export async function agentViewScene(
  sb: { slack: FakeSlack; driver: SandboxDriver },
  p: Printer,
  channel: string,
): Promise<string> {
  const dm = sb.slack.channels.find((c) => c.isIm && c.user === 'U0ALICE')?.id ?? 'D0ALICE';
  p.say(`@alice opens Docs Agent's ${p.bold('Messages tab')} (the agent view) while she looks at #docs`);
  await sb.driver.appHomeOpened('U0ALICE', { tab: 'messages', viewing: channel });
  const set = await sb.slack.waitFor(
    () => (sb.slack.agent.prompts.get(dm)?.prompts.length === 4 ? sb.slack.agent.prompts.get(dm) : undefined),
    10_000,
  );
  p.say(
    p.dim(
      `  …the tab suggests ${set.prompts.length} prompts, led by the latest discussion in #docs (she is in #docs, and so is the bot)`,
    ),
  );
  const offer = set.prompts[0];
  if (!offer) return dm;
  p.say(`@alice clicks [ ${offer.title} ]`);
  const click = await sb.driver.message({ channel: dm, user: 'U0ALICE', text: offer.message });
  const session = () => sb.slack.agent.sessions.get(`${dm}:${click.ts}`);
  await sb.slack.waitFor(() => session()?.statuses.includes('active'), 30_000);
  // The state reaction lands with the throttled status edit; the transcript is right without it too.
  await sb.slack
    .waitFor(
      () =>
        sb.slack.messages.some(
          (m) => m.channel === dm && m.thread_ts === click.ts && m.reactions.includes('white_check_mark'),
        ),
      10_000,
    )
    .catch(() => undefined);
  p.say(
    p.dim(
      `  …Slack showed what the bot was doing while it read the thread and started the job; the job's session went ${session()?.statuses.join(' → ')}`,
    ),
  );
  return dm;
}
