/**
 * OAuth mode's refusal at the install: `@slack/oauth`'s `CallbackOptions.afterInstallation`
 * (node_modules/@slack/oauth/dist/callback-options.d.ts: returning false skips storing the
 * installation, and the callback then ends the response itself; the library suggests revoking
 * the new tokens). An installation SLACK_INSTALL_ALLOWLIST does not admit (install-allowlist.ts)
 * is uninstalled again with Slack's `apps.uninstall` (docs.slack.dev/reference/methods/apps.uninstall:
 * the app's `client_id` and `client_secret` with a token of the installation; it "revokes all
 * tokens associated with a single installation"), best effort; the browser gets HTTP 403 with a
 * plain page naming the id to send the operators; one warn line (ids only); nothing is stored.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallbackOptions, InstallURLOptions } from '@slack/oauth';
import type { OAuthSettings } from '../config-oauth.js';
import { installationAllowed } from '../install-allowlist.js';
import type { Logger } from '../logger.js';
import { slackErrorCode } from './errors.js';
import { createWebClient } from './web-client.js';

/** The installation `afterInstallation` is given (`Installation | OrgInstallation`). */
type NewInstallation = Parameters<NonNullable<CallbackOptions['afterInstallation']>>[0];

/** Who a refused installation is for, and whether `apps.uninstall` removed it again. */
export interface Refused {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall: boolean;
  uninstalled: boolean;
}

/**
 * `s` with `& < > " '` escaped, for an HTML text or attribute. (@slack/oauth has one, but exports it
 * only from its `dist/callback-options` module, not from the package: a deep import would break on
 * its next internal move.)
 */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The page a refused installer sees (HTML, every id escaped): this deployment serves only the
 * workspaces its operators allow; the id to send them (the org's for an org-wide install, else the
 * workspace's, and its org's when it has one); and, when `apps.uninstall` failed, who must remove
 * the app (for an org-wide install an org admin, in the admin console: Slack's auth.revoke docs, "If
 * you have an org wide app, an org admin must remove your app in the admin console").
 */
export function refusalPage(r: Refused): string {
  const code = (id: string) => `<code>${escapeHtml(id)}</code>`;
  const ids =
    r.isEnterpriseInstall || !r.teamId
      ? `your organization's id ${code(r.enterpriseId ?? 'unknown')}`
      : `your workspace's id ${code(r.teamId)}${r.enterpriseId ? ` (or your organization's, ${code(r.enterpriseId)})` : ''}`;
  const removal = r.uninstalled
    ? '<p>The app has been removed again; nothing of the installation was kept.</p>'
    : r.isEnterpriseInstall
      ? '<p>The app could not be removed automatically: an org admin must remove it in the admin console (Manage apps). Nothing of the installation was kept.</p>'
      : '<p>The app could not be removed automatically: a workspace admin can remove it under Manage apps. Nothing of the installation was kept.</p>';
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Docs Agent: not available here</title></head><body>',
    '<h1>Docs Agent is not available here</h1>',
    '<p>This deployment of Docs Agent serves only the workspaces its operators allow, and yours is not one of them.</p>',
    removal,
    `<p>To use it, ask the people who run it to allow ${ids}.</p>`,
    '</body></html>',
  ].join('\n');
}

/**
 * Revokes every token of a refused installation with `apps.uninstall` (a few retries on 5xx and
 * network errors, a 429 not waited out). @returns whether Slack confirmed it; a failure is one
 * warn line with Slack's error code (`invalid_auth`, `bad_client_secret`,
 * `client_id_token_mismatch`, `invalid_client_id`, …), never a token. Never throws.
 */
async function uninstall(
  token: string | undefined,
  opts: { oauth: OAuthSettings; slackApiUrl: string; logger: Logger },
  ids: Omit<Refused, 'uninstalled'>,
): Promise<boolean> {
  if (!token) {
    opts.logger.warn(ids, 'could not uninstall a refused installation: it has no token');
    return false;
  }
  const web = createWebClient({
    token,
    slackApiUrl: opts.slackApiUrl,
    logger: opts.logger,
    rejectRateLimitedCalls: true,
  });
  try {
    await web.apps.uninstall({ client_id: opts.oauth.clientId, client_secret: opts.oauth.clientSecret });
    return true;
  } catch (err) {
    const slackError = slackErrorCode(err) ?? 'unknown_error';
    opts.logger.warn({ ...ids, slackError }, 'could not uninstall a refused installation (apps.uninstall)');
    return false;
  }
}

/**
 * The install callback's `afterInstallation`: true (store it) for an installation
 * SLACK_INSTALL_ALLOWLIST admits; otherwise it is uninstalled ({@link uninstall}), the browser is
 * answered 403 with {@link refusalPage}, one warn line is written (ids only) and false is returned,
 * so @slack/oauth stores nothing. Never throws (a throw would become the library's error page).
 * @param opts.slackApiUrl - Web API base for `apps.uninstall` (SLACK_API_URL).
 */
export function refuseNotAllowed(opts: {
  oauth: OAuthSettings;
  slackApiUrl: string;
  logger: Logger;
}): NonNullable<CallbackOptions['afterInstallation']> {
  return async (installation: NewInstallation, _o: InstallURLOptions, _req: IncomingMessage, res: ServerResponse) => {
    const ids = {
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
    };
    if (installationAllowed(opts.oauth.installAllowlist, ids)) return true;
    // A grant with user scopes only has no bot token: its user token uninstalls it just the same.
    const uninstalled = await uninstall(installation.bot?.token ?? installation.user?.token, opts, ids);
    opts.logger.warn(
      { ...ids, uninstalled },
      'refused an installation: its workspace or org is not in SLACK_INSTALL_ALLOWLIST',
    );
    res.writeHead(403, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(refusalPage({ ...ids, uninstalled }));
    return false;
  };
}
