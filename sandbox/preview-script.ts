/**
 * The sandbox script's preview part: a pull request's preview in its thread (Preview ↗ with the
 * changed pages), and a failed build whose "Ask the agent to fix the build" sends a follow-up that
 * quotes the log, after which the preview is rebuilt in the same message.
 */
import type { Printer } from './agent-view-script.js';
import type { FakeDocsApi } from './fake-docs-api.js';
import type { FakeSlack, SlackMessage } from './fake-slack.js';
import type { SandboxDriver } from './socket-as-http.js';
import { renderBlocks } from './transcript.js';

/** What the scene plays on. */
export interface PreviewSceneSandbox {
  slack: FakeSlack;
  docs: FakeDocsApi;
  driver: SandboxDriver;
}

/** Whether `m` is a job's preview message (its metadata key is `preview:<jobId>`). */
export function isPreviewMessage(m: SlackMessage): boolean {
  const key = (m as { metadata?: { event_payload?: { key?: unknown } } }).metadata?.event_payload?.key;
  return typeof key === 'string' && key.startsWith('preview:');
}

/** The preview message of the job in `threadTs`'s thread, once it shows a final stage. */
export function finalPreview(slack: FakeSlack, threadTs: string): SlackMessage | undefined {
  return slack.messages.find(
    (m) => m.thread_ts === threadTs && isPreviewMessage(m) && /Preview ready|build failed/.test(m.text) && !m.deleted,
  );
}

/**
 * Waits until every finished job with a pull request shows a final preview (ready or failed), so
 * the printed channel does not depend on how fast a transport was.
 */
export async function previewsSettled(sb: PreviewSceneSandbox, timeoutMs = 30_000): Promise<void> {
  const final = /Preview ready|build failed/;
  const settled = (): boolean =>
    [...sb.docs.jobs.values()]
      .filter((j) => j.prNumber !== null && Date.now() >= j.activeUntil)
      .every(
        (j) =>
          sb.slack.messages.some(
            (m) =>
              isPreviewMessage(m) &&
              JSON.stringify((m as { metadata?: unknown }).metadata).includes(`preview:${j.id}`) &&
              final.test(m.text),
          ) &&
          // …and its status message's plan says so too.
          sb.slack.messages.some(
            (m) =>
              m.text.startsWith('Docs agent job') &&
              JSON.stringify(m.blocks).includes(j.id) &&
              final.test(JSON.stringify(m.blocks)),
          ),
      );
  await sb.slack.waitFor(() => settled() || undefined, timeoutMs);
}

/** Plays the failed-build scene in `channel`: a build fails, @alice asks the agent to fix it, the preview is rebuilt. */
export async function previewFailScene(sb: PreviewSceneSandbox, p: Printer, channel: string): Promise<void> {
  p.say(`@alice in #docs: /docs-edit Put the install steps in tabs [build-fail]`);
  await sb.driver.slashCommand({
    command: '/docs-edit',
    text: 'Put the install steps in tabs [build-fail]',
    user: 'U0ALICE',
    channel,
  });
  const failed = await sb.slack.waitFor(
    () => sb.slack.messages.find((m) => isPreviewMessage(m) && m.text === 'The preview build failed'),
    30_000,
  );
  p.say(p.dim("  …the pull request's preview failed to build; the thread shows:"));
  renderBlocks(sb.slack, failed.blocks ?? [])
    .split('\n')
    .forEach((line) => p.say(p.dim(`    │ ${line}`)));
  const value = JSON.stringify(failed.blocks).match(/"action_id":"agent_jobs\.preview_fix","value":"([^"]+)"/)?.[1];
  p.say(`@alice clicks [ Ask the agent to fix the build ]`);
  const before = sb.docs.requests.length;
  await sb.driver.blockAction({
    user: 'U0ALICE',
    channel,
    messageTs: failed.ts,
    ...(failed.thread_ts ? { threadTs: failed.thread_ts } : {}),
    actionId: 'agent_jobs.preview_fix',
    value: JSON.parse(`"${value ?? ''}"`) as string,
  });
  const sent = await sb.slack.waitFor(
    () => sb.docs.requests.slice(before).find((r) => r.method === 'POST' && r.path.endsWith('/message')),
    10_000,
  );
  p.say(p.dim('  …a follow-up to the same job; the agent was asked (the log quoted between the fence markers):'));
  ((sent.body as { prompt?: string }).prompt ?? '').split('\n').forEach((line) => p.say(p.dim(`    > ${line}`)));
  await sb.slack.waitFor(() => /rebuilt after the follow-up/.test(JSON.stringify(failed.blocks)) || undefined, 30_000);
  p.say(p.dim('  …the fixed pull request was previewed again, in the same message'));
}
