/**
 * The `--oauth` scene of `npm run sandbox`: one bot for two workspaces (OAuth mode, SLACK_CLIENT_ID
 * instead of SLACK_BOT_TOKEN). Each workspace is installed the way a browser does it: the bot's
 * `/slack/install` page (its state cookie), Slack's consent (the fake's `installs.authorize`), the
 * bot's `/slack/oauth_redirect` (state checked, the code exchanged by `oauth.v2.access`). alice in
 * Sandbox (#docs) and sam in Second (#docs-second) each start a job, answered with their own
 * workspace's token; Second uninstalls the app (`app_uninstalled`) and only Second's work stops.
 * A third workspace, Stranger, is not on SLACK_INSTALL_ALLOWLIST: its install is refused (403),
 * uninstalled again with `apps.uninstall` and not stored.
 */
import { DEFAULT_CHANNELS, DEFAULT_USERS, type FakeSlack, type FakeSlackOptions } from './fake-slack.js';
import type { GridPrinter } from './grid-script.js';
import { SlackDriver } from './slack-driver.js';

/** The app's OAuth credentials, as the fake Slack and the bot both know them. */
const OAUTH = { clientId: '1111.2222', clientSecret: 'sandbox-oauth-client-secret' };
/** The second workspace the bot is installed in. */
const SECOND = 'T0SECOND';
const SECOND_CHANNEL = 'C0SECOND';

/** The fake Slack of the scene: the default workspace, Second (sam, #docs-second), the app's OAuth credentials. */
export function oauthSlackOptions(): Pick<FakeSlackOptions, 'oauth' | 'users' | 'channels'> {
  return {
    oauth: OAUTH,
    users: [
      ...DEFAULT_USERS,
      { id: 'U0SAM', name: 'sam', realName: 'Sam Second', tz: 'UTC', tzOffset: 0, teamId: SECOND },
    ],
    channels: [
      ...DEFAULT_CHANNELS,
      { id: SECOND_CHANNEL, name: 'docs-second', botIsMember: true, teamId: SECOND, members: ['U0SAM', '@bot'] },
    ],
  };
}

/** A workspace not on the scene's SLACK_INSTALL_ALLOWLIST. */
const STRANGER = 'T0STRANGER';

/**
 * The bot's environment in OAuth mode (no SLACK_BOT_TOKEN): the client, the state secret, the key
 * sealing tokens, and the workspaces allowed to install (Sandbox and Second).
 */
export function oauthEnv(): Record<string, string> {
  return {
    SLACK_CLIENT_ID: OAUTH.clientId,
    SLACK_CLIENT_SECRET: OAUTH.clientSecret,
    SLACK_STATE_SECRET: 'sandbox-oauth-state-secret-0123456789',
    SLACK_INSTALLATION_KEY: Buffer.alloc(32, 7).toString('base64'),
    SLACK_INSTALL_ALLOWLIST: `T0SANDBOX,${SECOND}`,
  };
}

/** The sandbox parts the scene uses. */
export interface OAuthSceneSandbox {
  slack: FakeSlack;
  /** The bot's origin, e.g. `http://127.0.0.1:3000`. */
  botOrigin: string;
  signingSecret: string;
  /** Redis keys of the sandbox's installations (`…:installations:*`) and their stored values. */
  installations(): Promise<{ key: string; value: string }[]>;
  /** The bot's log so far (JSON lines). */
  log(): string;
}

/** A browser installs the app in `teamId`: the install page, Slack's consent, the redirect. @returns the redirect's HTTP status. */
async function install(sb: OAuthSceneSandbox, teamId: string, teamName: string): Promise<number> {
  const page = await fetch(`${sb.botOrigin}/slack/install`);
  const html = await page.text();
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const href = /href="(https:\/\/slack\.com\/oauth\/v2\/authorize[^"]*)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
  const state = new URL(href ?? 'https://x.test').searchParams.get('state') ?? '';
  const code = sb.slack.installs.authorize({ teamId, teamName });
  const query = `code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`;
  const res = await fetch(`${sb.botOrigin}/slack/oauth_redirect?${query}`, { headers: { cookie } });
  await res.text();
  return res.status;
}

/** Starts a job with /docs-edit and waits for its announcement; @returns which workspaces' tokens posted in `channel`. */
async function job(sb: OAuthSceneSandbox, driver: SlackDriver, user: string, channel: string, text: string) {
  const from = sb.slack.calls.length;
  const seen = sb.slack.messages.length;
  await driver.slashCommand({ command: '/docs-edit', text, user, channel });
  const status = await sb.slack.waitFor(
    () =>
      sb.slack.messages
        .slice(seen)
        .find((m) => m.channel === channel && m.bot_id && m.text.startsWith('Docs agent job')),
    10_000,
  );
  await sb.slack.waitFor(
    () => sb.slack.messages.find((m) => m.thread_ts === status.ts && m.ts !== status.ts && m.bot_id),
    30_000,
  );
  const posts = sb.slack.calls.slice(from).filter((c) => c.method === 'chat.postMessage' && c.args.channel === channel);
  return [...new Set(posts.map((c) => c.tokenTeam ?? 'the fake’s own token'))].join(', ');
}

/** `user` opens the App Home tab: @returns which token published it and the jobs it lists. */
async function home(sb: OAuthSceneSandbox, driver: SlackDriver, user: string): Promise<string> {
  const from = sb.slack.calls.length;
  await driver.appHomeOpened(user);
  const call = await sb.slack.waitFor(
    () => sb.slack.calls.slice(from).find((c) => c.method === 'views.publish' && c.args.user_id === user),
    10_000,
  );
  const view = JSON.stringify(call.args.view ?? '');
  const jobs = ['Document the SSO setup', 'Document the billing page'].filter((j) => view.includes(j));
  return `published with the token of ${call.tokenTeam ?? 'none'}; lists ${jobs.map((j) => `“${j}”`).join(', ') || 'no job'}`;
}

/** Plays the OAuth scene. */
export async function oauthScene(sb: OAuthSceneSandbox, p: GridPrinter): Promise<void> {
  const driver = (teamId: string) =>
    new SlackDriver({
      botUrl: `${sb.botOrigin}/slack/events`,
      signingSecret: sb.signingSecret,
      slack: sb.slack,
      teamId,
    });
  const [inSandbox, inSecond] = [driver('T0SANDBOX'), driver(SECOND)];
  p.say(p.bold('Scripted conversation (OAuth mode: one bot, two workspaces)'));
  for (const [team, name] of [
    ['T0SANDBOX', 'Sandbox'],
    [SECOND, 'Second'],
  ] as const) {
    p.say(`a browser installs the app in ${name} (${team}): /slack/install → Slack's consent → /slack/oauth_redirect`);
    p.say(
      p.dim(`  …the redirect answered ${await install(sb, team, name)}; oauth.v2.access gave ${name} its bot token`),
    );
  }
  p.say(`a browser in Stranger (${STRANGER}), not on SLACK_INSTALL_ALLOWLIST, installs the app`);
  const refused = await install(sb, STRANGER, 'Stranger');
  const revoked = sb.slack.calls.some((c) => c.method === 'apps.uninstall' && c.tokenTeam === STRANGER);
  p.say(
    p.dim(
      `  …the redirect answered ${refused}; ${revoked ? 'apps.uninstall revoked its token' : 'it was NOT uninstalled'}`,
    ),
  );
  const stored = await sb.installations();
  const sealed = stored.every((s) => !s.value.includes('xoxb-'));
  p.say(
    p.dim(
      `  …Redis holds ${stored.map((s) => s.key).join(', ')} (sealed: ${sealed ? 'no token readable' : 'READABLE'})`,
    ),
  );
  p.say('@alice in #docs (Sandbox): /docs-edit Document the SSO setup');
  p.say(
    p.dim(
      `  …status and announcement posted with the token of ${await job(sb, inSandbox, 'U0ALICE', 'C0DOCS', 'Document the SSO setup')}`,
    ),
  );
  p.say('@sam in #docs-second (Second): /docs-edit Document the billing page');
  p.say(
    p.dim(
      `  …status and announcement posted with the token of ${await job(sb, inSecond, 'U0SAM', SECOND_CHANNEL, 'Document the billing page')}`,
    ),
  );
  p.say('@sam opens the App Home tab (Second)');
  p.say(p.dim(`  …${await home(sb, inSecond, 'U0SAM')}`));
  p.say('Second uninstalls the app (app_uninstalled)');
  await inSecond.appUninstalled();
  const deadline = Date.now() + 10_000;
  while ((await sb.installations()).length > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  p.say(
    p.dim(`  …its installation is deleted; Redis holds ${(await sb.installations()).map((s) => s.key).join(', ')}`),
  );
  p.say('@sam in #docs-second: /docs-edit Document refunds');
  const inSecondChannel = () => sb.slack.messages.filter((m) => m.channel === SECOND_CHANNEL && m.bot_id).length;
  const posted = inSecondChannel();
  await inSecond.slashCommand({
    command: '/docs-edit',
    text: 'Document refunds',
    user: 'U0SAM',
    channel: SECOND_CHANNEL,
  });
  const dropped = 'dropped a request for an installation the bot does not have';
  await sb.slack.waitFor(() => sb.log().includes(dropped), 10_000);
  const warns = sb.log().split(dropped).length - 1;
  const none = inSecondChannel() === posted;
  p.say(
    p.dim(
      `  …acknowledged and dropped (${warns} warn line${warns === 1 ? '' : 's'} in the bot's log); ${none ? 'the bot posted nothing' : 'the bot POSTED'}`,
    ),
  );
  p.say('@alice in #docs (Sandbox): /docs-edit Document the audit log');
  p.say(
    p.dim(
      `  …Sandbox goes on: posted with the token of ${await job(sb, inSandbox, 'U0ALICE', 'C0DOCS', 'Document the audit log')}`,
    ),
  );
  p.say();
}
