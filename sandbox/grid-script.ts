/**
 * The `--grid` scene of `npm run sandbox`: the bot installed org-wide on the fake Enterprise Grid
 * (org "Sandbox Org": workspaces A and B; another org in Slack Connect). bea, a member of workspace
 * B, starts a job in #docs-org (shared between A and B) and follows it up: an insider. xavi, of
 * another org, is refused in #docs-connect.
 */
import type { FakeSlack } from './fake-slack.js';
import type { SandboxDriver } from './socket-as-http.js';

/** The sandbox parts the scene uses. */
export interface GridSceneSandbox {
  slack: FakeSlack;
  driver: Pick<SandboxDriver, 'slashCommand' | 'message'>;
}

/** How the scene prints. */
export interface GridPrinter {
  say(line?: string): void;
  dim(s: string): string;
  bold(s: string): string;
}

/** The channel the scene plays in (printed after it). */
export const GRID_CHANNEL = 'C0ORGDOCS';

/** Plays the org-wide scene. */
export async function gridScene(sb: GridSceneSandbox, p: GridPrinter): Promise<void> {
  p.say(p.bold('Scripted conversation (Enterprise Grid, org-wide install)'));
  p.say('@bea (workspace B of the org) in #docs-org: /docs-edit Document the SSO setup');
  await sb.driver.slashCommand({
    command: '/docs-edit',
    text: 'Document the SSO setup',
    user: 'W0BEA',
    channel: GRID_CHANNEL,
  });
  const status = await sb.slack.waitFor(
    () => sb.slack.messages.find((m) => m.channel === GRID_CHANNEL && m.bot_id && m.text.startsWith('Docs agent job')),
    10_000,
  );
  const replies = () => sb.slack.messages.filter((m) => m.thread_ts === status.ts && m.ts !== status.ts && m.bot_id);
  await sb.slack.waitFor(() => replies().length > 0, 30_000);
  p.say(p.dim('  …bea is an insider: a member of a sibling workspace of the bot’s own org'));
  p.say('@bea replies in the thread: also cover SCIM');
  await sb.driver.message({ channel: GRID_CHANNEL, user: 'W0BEA', thread_ts: status.ts, text: 'also cover SCIM' });
  await sb.slack.waitFor(() => replies().length > 1, 30_000);
  p.say('@xavi (another org, Slack Connect) in #docs-connect: /docs-edit Fix the FAQ');
  await sb.driver.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'W0XAVI', channel: 'C0CONNECT' });
  const refusal = await sb.slack.waitFor(() => sb.slack.messages.find((m) => m.ephemeralTo === 'W0XAVI'), 10_000);
  p.say(p.dim(`  …refused privately: ${refusal.text}`));
  p.say();
}
