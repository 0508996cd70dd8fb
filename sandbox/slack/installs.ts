/**
 * The fake Slack's OAuth v2 installs and per-token identities (docs.slack.dev "Installing with
 * OAuth", the `oauth.v2.access` method reference):
 * - {@link FakeInstalls.authorize} is what a person's "Allow" on `slack.com/oauth/v2/authorize`
 *   gives the app's Redirect URL: a temporary `code` for one workspace (or, `orgWide`, a whole
 *   Grid org);
 * - `oauth.v2.access` exchanges it once, with the app's `client_id` and `client_secret` (as
 *   arguments, as @slack/oauth sends them), and the `redirect_uri` when one was given at
 *   authorize. It answers Slack's shape: `access_token` (a bot token, `token_type: "bot"`),
 *   `scope`, `bot_user_id`, `app_id`, `team` (null for an org-wide install), `enterprise` (null
 *   outside Grid), `authed_user` and `is_enterprise_install`. Errors: `invalid_client_id`,
 *   `bad_client_secret`, `invalid_code` (unknown, expired or already used), `bad_redirect_uri`.
 *   With token rotation on (`FakeOAuthApp.tokenRotation`) a bot token comes with `refresh_token`
 *   and `expires_in`, expires (`token_expired`), and `grant_type=refresh_token` gives a new pair
 *   (`invalid_refresh_token` for an unknown or spent one, `invalid_grant_type` for another grant);
 * - every token it issued has its own identity: `auth.test` answers it, a call naming a channel of
 *   another workspace answers `channel_not_found` (server.ts), an uninstall
 *   ({@link FakeInstalls.uninstall}, or the app's own `apps.uninstall`) revokes it (`token_revoked`), and a deleted workspace or org
 *   ({@link FakeInstalls.deleteWorkspace}) has every method answer its tokens `account_inactive`
 *   (Slack's method references, e.g. chat.postMessage's errors: "Authentication token is for a
 *   deleted user or workspace when using a bot token").
 * The fake keeps one bot user and bot id for every install (real Slack has one per workspace).
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import type { SlackState } from './state.js';
import type { FakeInstallsApi, FakeOAuthApp, InstallConsent, TokenIdentity, TokenRefusal } from './types.js';

/** How long a `code` can be exchanged, in ms (Slack: the code "expires after ten minutes"). */
export const CODE_TTL_MS = 10 * 60_000;

/** The installs of the fake's app: codes handed out, tokens issued. */
export class FakeInstalls implements FakeInstallsApi {
  private readonly codes = new Map<
    string,
    { identity: TokenIdentity; redirectUri?: string; user: string; at: number; used: boolean }
  >();
  private readonly tokens = new Map<string, TokenIdentity>();
  private readonly revokedTokens = new Set<string>();
  /** Workspaces (or orgs) deleted: their tokens answer `account_inactive`. */
  private readonly deleted = new Set<string>();
  /** Token rotation: when each access token expires (epoch ms), and the live refresh tokens. */
  private readonly expiry = new Map<string, number>();
  private readonly refreshTokens = new Map<string, TokenIdentity>();
  private seq = 0;

  constructor(
    private readonly state: SlackState,
    private readonly app: FakeOAuthApp | undefined,
    scopes: () => string[],
  ) {
    this.scopes = scopes;
  }

  private readonly scopes: () => string[];

  /**
   * A person (`user`, default U0ALICE) allows the install in workspace `teamId` (or, `orgWide`,
   * the org `enterpriseId`): the `code` Slack appends to the Redirect URL.
   */
  authorize(p: InstallConsent): string {
    this.seq += 1;
    const code = `${this.seq}.${Date.now()}.fakecode${Math.random().toString(16).slice(2)}`;
    const identity: TokenIdentity = {
      teamId: p.orgWide && p.enterpriseId ? p.enterpriseId : p.teamId,
      teamName: p.teamName ?? p.teamId,
      ...(p.enterpriseId ? { enterpriseId: p.enterpriseId, enterpriseName: p.enterpriseName ?? p.enterpriseId } : {}),
      orgWide: p.orgWide === true,
      ...(p.orgWide && p.teams ? { teams: p.teams.map((t) => ({ ...t })) } : {}),
    };
    this.codes.set(code, {
      identity,
      user: p.user ?? 'U0ALICE',
      at: this.state.now(),
      used: false,
      ...(p.redirectUri ? { redirectUri: p.redirectUri } : {}),
    });
    return code;
  }

  /** The identity of a token `oauth.v2.access` issued (and not revoked nor expired), or undefined. */
  identity(token: string): TokenIdentity | undefined {
    return this.refusal(token) ? undefined : this.tokens.get(token);
  }

  /**
   * Why an issued token is refused: revoked by an uninstall, its workspace (or org) deleted, or past
   * its expiry (token rotation).
   */
  refusal(token: string): TokenRefusal | undefined {
    if (this.revokedTokens.has(token)) return 'token_revoked';
    const who = this.tokens.get(token);
    // A deleted org takes its workspaces' installs with it.
    if (who && (this.deleted.has(who.teamId) || (who.enterpriseId && this.deleted.has(who.enterpriseId))))
      return 'account_inactive';
    const expires = this.expiry.get(token);
    return expires !== undefined && this.state.now() >= expires ? 'token_expired' : undefined;
  }

  /** The app is uninstalled from workspace (or org) `id`: its tokens are revoked. */
  uninstall(id: string): void {
    for (const [token, who] of this.tokens)
      if (who.teamId === id) {
        this.tokens.delete(token);
        this.revokedTokens.add(token);
      }
    for (const [refresh, who] of this.refreshTokens) if (who.teamId === id) this.refreshTokens.delete(refresh);
  }

  /**
   * Workspace (or org) `id` is deleted, the app not uninstalled first (no event is sent): every
   * token issued for it, and any issued later (a refresh), is answered `account_inactive` by every
   * method; so is the single-token bot token when `id` is the fake's own workspace
   * ({@link isDeleted}). A deleted workspace is not restored.
   */
  deleteWorkspace(id: string): void {
    this.deleted.add(id);
  }

  /** Whether workspace (or org) `id` was deleted ({@link deleteWorkspace}). */
  isDeleted(id: string): boolean {
    return this.deleted.has(id);
  }

  /** The tokens issued so far and still valid, with who they act for (tests). */
  issued(): Array<{ token: string } & TokenIdentity> {
    return [...this.tokens].filter(([token]) => !this.refusal(token)).map(([token, who]) => ({ token, ...who }));
  }

  /** A new bot token for `identity` (with token rotation: its expiry and a refresh token). */
  private issue(identity: TokenIdentity): { access_token: string; refresh_token?: string; expires_in?: number } {
    this.seq += 1;
    const token = `xoxb-fake-${identity.teamId}-${this.seq}`;
    this.tokens.set(token, identity);
    const rotation = this.app?.tokenRotation;
    if (!rotation) return { access_token: token };
    this.expiry.set(token, this.state.now() + rotation.expiresInS * 1000);
    const refresh = `xoxe-1-fake-${identity.teamId}-${this.seq}`;
    this.refreshTokens.set(refresh, identity);
    return { access_token: token, refresh_token: refresh, expires_in: rotation.expiresInS };
  }

  /**
   * `oauth.v2.access` (no token: the app authenticates with its client id and secret) and
   * `apps.uninstall` (docs.slack.dev/reference/methods/apps.uninstall: the app's `client_id` and
   * `client_secret` with a token of the installation, form or JSON body; it "revokes all tokens
   * associated with a single installation", so later calls with them answer `token_revoked`).
   * apps.uninstall's errors: `invalid_client_id`, `bad_client_secret`, `client_id_token_mismatch`
   * (a token not issued to this app by `oauth.v2.access`, e.g. the fake's own single-token bot
   * token), and the server's `invalid_auth` / `token_revoked` for an unknown or revoked token. It
   * sends no `app_uninstalled` event (the fake sends none of its own; SlackDriver does).
   */
  methods(): MethodTable {
    return {
      'apps.uninstall': (args: Json) => {
        if (!this.app || str(args.client_id) !== this.app.clientId) return fail('invalid_client_id');
        if (str(args.client_secret) !== this.app.clientSecret) return fail('bad_client_secret');
        const who = this.state.caller;
        if (!who) return fail('client_id_token_mismatch');
        this.uninstall(who.teamId);
        return { ok: true };
      },
      'oauth.v2.access': (args: Json) => {
        if (!this.app || str(args.client_id) !== this.app.clientId) return fail('invalid_client_id');
        if (str(args.client_secret) !== this.app.clientSecret) return fail('bad_client_secret');
        const grant = str(args.grant_type);
        if (grant === 'refresh_token') return this.refresh(str(args.refresh_token) ?? '');
        if (grant !== undefined && grant !== 'authorization_code') return fail('invalid_grant_type');
        const code = this.codes.get(str(args.code) ?? '');
        if (!code || code.used || this.state.now() - code.at > CODE_TTL_MS) return fail('invalid_code');
        if (code.redirectUri !== undefined && str(args.redirect_uri) !== code.redirectUri)
          return fail('bad_redirect_uri');
        code.used = true;
        return { ...this.accessResponse(code.identity), authed_user: { id: code.user } };
      },
    };
  }

  /** `grant_type=refresh_token`: a new token pair; the refresh token is spent (`invalid_refresh_token` after). */
  private refresh(refreshToken: string): Json {
    const identity = this.refreshTokens.get(refreshToken);
    if (!identity) return fail('invalid_refresh_token');
    this.refreshTokens.delete(refreshToken);
    return this.accessResponse(identity);
  }

  /**
   * oauth.v2.access's answer for `identity` (docs.slack.dev, oauth.v2.access: the bot token, its
   * scopes, bot user and app, the workspace, or `team: null` for an org-wide install, and the org):
   * a new token issued (with token rotation, a refresh token and `expires_in` too).
   */
  private accessResponse(identity: TokenIdentity): Json {
    return {
      ok: true,
      ...this.issue(identity),
      token_type: 'bot',
      scope: this.scopes().join(','),
      bot_user_id: this.state.botUserId,
      app_id: this.state.appId,
      team: identity.orgWide ? null : { id: identity.teamId, name: identity.teamName },
      enterprise: identity.enterpriseId ? { id: identity.enterpriseId, name: identity.enterpriseName } : null,
      is_enterprise_install: identity.orgWide,
    };
  }
}

export type { FakeOAuthApp, TokenIdentity };
