/**
 * Public shapes of the fake Slack Web API (see `sandbox/fake-slack.ts` for what it mirrors):
 * its options, the state it records (messages, calls, views, uploads) and the handle tests use.
 *
 * Units used throughout: Slack `ts` strings ("1700000000.000100", seconds with 6-digit micro part),
 * `at`/clock values in epoch milliseconds.
 */
import type { FakeAgentState } from './agent-state.js';
import type { FakeStreamState } from './stream-state.js';
import type { FakeSocketMode } from './socket-types.js';

/**
 * A member known to the fake (`users.info`). `tzOffset` is in seconds east of UTC, like Slack's `tz_offset`.
 * Roles mirror Slack's user object (docs.slack.dev "User object", users.info): `isRestricted` = guest
 * (`is_restricted`), `isUltraRestricted` = single-channel guest (Slack sets both for those), `isAdmin`,
 * `isOwner`; `teamId` is the user's own workspace (another one for Slack Connect users, default the
 * fake's team); `isStranger` marks a user of another workspace the app shares no channel with
 * (`is_stranger`, only sent when set).
 */
export interface FakeUser {
  id: string;
  name: string;
  realName?: string;
  tz?: string;
  tzOffset?: number;
  isBot?: boolean;
  isRestricted?: boolean;
  isUltraRestricted?: boolean;
  isAdmin?: boolean;
  isOwner?: boolean;
  teamId?: string;
  isStranger?: boolean;
  /**
   * The person's Enterprise Grid organization (`enterprise_user.enterprise_id` in users.info).
   * Default: the fake's {@link FakeSlackOptions.enterprise} for people of the bot's own workspace
   * (no `teamId`), none otherwise.
   */
  enterpriseId?: string;
}

/**
 * The bot's Enterprise Grid organization (Slack docs, "Enterprise Grid" and "Changes to APIs for
 * org-wide apps"): its id ("E…"), name and workspaces (the bot's own team among them).
 */
export interface FakeEnterprise {
  id: string;
  name: string;
  /**
   * The org's workspaces the app was added to (`auth.teams.list`); the fake's own `teamId` is one of
   * them. Remove one to model an Org Admin removing the app from that workspace.
   */
  teams: Array<{ id: string; name: string }>;
  /**
   * The bot token is an org-level token (an org-wide install): `auth.test` answers the enterprise
   * id as `team_id`, and the methods Slack lists need `team_id` (./org-wide.ts). Default false.
   */
  orgWide?: boolean;
}

/**
 * A conversation known to the fake. `user` is the other party of an IM (`isIm`). `isPrivate` marks a
 * private channel (IMs are private too); `isMpim` a multi-person DM (private too: Slack's
 * `is_mpim`); `isArchived` an archived one (`is_archived`); `isExtShared` a Slack Connect channel
 * shared with other workspaces. `members` are user ids (`conversations.members`); default: every
 * fake user for channels (the bot only when `botIsMember`), the user and the bot for IMs.
 */
export interface FakeChannel {
  id: string;
  name: string;
  botIsMember: boolean;
  isIm?: boolean;
  user?: string;
  isPrivate?: boolean;
  isMpim?: boolean;
  isArchived?: boolean;
  isExtShared?: boolean;
  /** On Enterprise Grid, a channel shared between workspaces of one org (`is_org_shared`, `is_shared`). */
  isOrgShared?: boolean;
  /**
   * The workspace the channel belongs to (default: the fake's `teamId`). A token of another
   * workspace (an OAuth install, installs.ts) is answered `channel_not_found` for it, unless the
   * channel is org-shared and the token's org is the fake's.
   */
  teamId?: string;
  members?: string[];
}

/** A user group (`usergroups.*`): id "S…", mention `handle` (without @), member user ids; `disabled` groups are hidden unless asked for. */
export interface FakeUsergroup {
  id: string;
  handle: string;
  name?: string;
  description?: string;
  members: string[];
  disabled?: boolean;
}

/** Message metadata as Slack stores it (docs.slack.dev "Using message metadata"). */
export interface SlackMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

/** A file a person attaches to a message ({@link FakeSlack.addUserMessage}); `content` becomes its bytes. */
export interface UserFileInput {
  name: string;
  title?: string;
  mimetype?: string;
  content?: string | Buffer;
}

/** Options of {@link startFakeSlack}. */
export interface FakeSlackOptions {
  /** TCP port to listen on, on 127.0.0.1. Default 0 (an ephemeral port). */
  port?: number;
  /** The only accepted bot token. Missing token → `not_authed`, any other token → `invalid_auth`. */
  botToken: string;
  /**
   * The app-level token ("xapp-…") Socket Mode connects with: only `apps.connections.open` accepts it
   * (Slack docs: apps.connections.open uses an app-level token, in the Authorization header), every
   * other method answers it `not_allowed_token_type`, and `apps.connections.open` answers the bot
   * token the same. Without it `apps.connections.open` answers `invalid_auth`.
   */
  appToken?: string;
  /** Default "T0SANDBOX". */
  teamId?: string;
  /**
   * The app's OAuth credentials: with them `oauth.v2.access` exchanges the codes of
   * `installs.authorize` for bot tokens of their own workspace (sandbox/slack/installs.ts).
   */
  oauth?: FakeOAuthApp;
  /**
   * Enterprise Grid: the org the bot's workspace belongs to. Then auth.test answers its
   * `enterprise_id`, users.info gives `enterprise_user`, and events carry `enterprise_id`. Default:
   * none (a workspace outside Grid).
   */
  enterprise?: FakeEnterprise;
  /** The bot's user id. Default "U0DOCSBOT". */
  botUserId?: string;
  /** The bot's bot id (`bot_id` on its messages). Default "B0DOCSBOT". */
  botId?: string;
  /** The app id (`api_app_id`). Default "A0DOCSAPP". */
  appId?: string;
  /** Workspace domain used in permalinks and `auth.test`'s url. Default "sandbox". */
  teamDomain?: string;
  /**
   * Workspace members. Default: U0ALICE "alice" (Europe/Berlin), U0BOB "bob" (America/New_York),
   * U0CAROL "carol" (Asia/Tokyo), U0ADMIN "dana" (workspace admin), U0GUEST "gus" (single-channel
   * guest, in #docs only), U0EXTERNAL "erin" (of team T0OTHERCO, in the Slack Connect channel
   * #docs-connect). The bot user is always added.
   */
  users?: FakeUser[];
  /**
   * Conversations. Default: C0DOCS "docs" (bot member), C0RANDOM "random" (not a member), D0ALICE (IM
   * with alice), C0CONNECT "docs-connect" (Slack Connect, bot member), C0LEADS "leads" (private, bot
   * not a member).
   */
  channels?: FakeChannel[];
  /** User groups. Default: S0DOCSWRITERS "docs-writers" holding alice. */
  usergroups?: FakeUsergroup[];
  /** Socket Mode: how often the fake pings each socket (ms; Slack's servers ping their clients). Default 0 (never). */
  socketPingIntervalMs?: number;
  /**
   * The bot token's OAuth scopes: a call whose method needs another answers `missing_scope` (see
   * `sandbox/slack/scopes.ts`). Default: the bot scopes of `manifest.yml` (`oauth_config.scopes.bot`).
   */
  scopes?: readonly string[];
  /**
   * Clock in epoch milliseconds, used for message `ts`, call times and the age of trigger_ids (which
   * `views.open` / `views.push` take for 3 s after they were minted). Default `Date.now`.
   */
  now?: () => number;
}

/** One recorded HTTP call to the fake. `at` is epoch ms (from `opts.now`); `status` is the HTTP status returned. */
export interface SlackCall {
  /** Web API method ("chat.postMessage"), or the pseudo methods "response_url" and "file_upload" for POSTs to those URLs. */
  method: string;
  /** Parsed arguments with JSON-encoded fields decoded; the token is never recorded. */
  args: Record<string, unknown>;
  at: number;
  response: unknown;
  status: number;
  /** For HTTP 429 answers: the `Retry-After` value sent, in seconds. */
  retryAfterS?: number;
  /** The workspace (or org) of the token an OAuth install issued, when the call was made with one. */
  tokenTeam?: string;
}

/** A file shared into a message (`files.completeUploadExternal`, or a person's attachment). `size` is in bytes; `user` is the uploader (default the bot). */
export interface SlackFileRef {
  id: string;
  name: string;
  title: string;
  size: number;
  bytes: Buffer;
  user?: string;
  mimetype?: string;
}

/** Where a recorded message came from. */
export type SlackMessageSource = 'api' | 'human' | 'command' | 'response_url' | 'file_share';

/** Channel state: one message as a person in Slack would see it (updates modify it in place). */
export interface SlackMessage {
  channel: string;
  /** Slack timestamp string, unique per fake, e.g. "1700000000.000100". */
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  text: string;
  blocks?: unknown[];
  edited?: boolean;
  /** Names of reactions the bot added (without colons), in order. */
  reactions: string[];
  /** Set for ephemeral messages: the only user who can see it. */
  ephemeralTo?: string;
  files?: SlackFileRef[];
  /** Message metadata posted with `chat.postMessage` (returned only with `include_all_metadata`). */
  metadata?: SlackMetadata;
  deleted?: boolean;
  source: SlackMessageSource;
}

/** A view published (`views.publish`) or opened/pushed/updated (`views.open` / `views.push` / `views.update`). */
export interface RecordedView {
  id: string;
  kind: 'home' | 'modal';
  /** Owner: `user_id` for home tabs, the user the trigger was minted for when opening modals. */
  userId?: string;
  triggerId?: string;
  view: Record<string, unknown>;
  hash: string;
  method: string;
}

/** Context the fake needs to act on a `response_url` post like Slack does. */
export interface ResponseUrlContext {
  /** The user who triggered the interaction: ephemeral replies are only visible to them. */
  user?: string;
  channel?: string;
  /** ts of the message the interaction came from (for `replace_original` / `delete_original`). */
  messageTs?: string;
  threadTs?: string;
}

/** A call held by {@link FakeSlack.hold}: `reached` resolves when it arrives; `release` lets it be answered. */
export interface HeldCall {
  reached: Promise<void>;
  release(): void;
}

/** A failure injected with {@link FakeSlack.failNext}. `retryAfterS` is in seconds. */
export type SlackFailure = { status: 429; retryAfterS: number } | { error: string };

/** Handle of a running fake Slack. */
export interface FakeSlack {
  /** Web API base with trailing slash, e.g. "http://127.0.0.1:PORT/api/" — give it to the bot as SLACK_API_URL. */
  url: string;
  /** "http://127.0.0.1:PORT". */
  origin: string;
  teamId: string;
  teamDomain: string;
  /** The bot's Enterprise Grid organization, when it is on Grid ({@link FakeSlackOptions.enterprise}). */
  enterprise?: FakeEnterprise;
  botUserId: string;
  botId: string;
  appId: string;
  users: FakeUser[];
  channels: FakeChannel[];
  usergroups: FakeUsergroup[];
  /** The app-level token Socket Mode accepts, if configured. */
  appToken?: string;
  /** The bot token's scopes (from {@link FakeSlackOptions.scopes}); delete one to see what its absence does. */
  scopes: Set<string>;
  /** Socket Mode: the WebSocket side of the fake (see {@link FakeSocketMode}). */
  socket: FakeSocketMode;
  /** Agent state: suggested prompts, loading lines, sessions; `agent.refuseWith` refuses every agent method. */
  agent: FakeAgentState;
  /**
   * Chat streaming: each stream by `channel:ts`; `streams.refuseWith` refuses every streaming method,
   * `streams.refuseIn` chat.startStream in a channel; `streams.interrupt` ends a stream as the person
   * (Stop) or Slack would.
   */
  streams: FakeStreamState;
  /** OAuth installs: codes for the Redirect URL, the tokens issued, uninstalls (installs.ts). */
  installs: FakeInstallsApi;
  /** Every call in order. */
  calls: SlackCall[];
  /** Channel state in posting order (including ephemerals, response_url replies and humans' messages). */
  messages: SlackMessage[];
  /** Views published or opened, in order. */
  views: RecordedView[];
  /** Bytes received on upload URLs, by file id. */
  uploads: Map<string, { filename: string; length: number; bytes?: Buffer }>;
  /**
   * A `response_url` served by the fake (`${origin}/response/<id>`). POSTs to it (JSON: text, blocks,
   * response_type "ephemeral" (default) | "in_channel", replace_original, delete_original, thread_ts) are
   * recorded into `messages`: ephemeral ones with `ephemeralTo = context.user`, in_channel ones as bot
   * messages in `context.channel`.
   */
  responseUrl(id?: string, context?: ResponseUrlContext): string;
  /**
   * Mint a trigger_id for `user` (what Slack puts in slash commands and interactions). `views.open` /
   * `views.push` accept only minted ones, once (`exchanged_trigger_id` after), within 3 s of minting
   * by {@link FakeSlackOptions.now} (`expired_trigger_id` after); others answer `invalid_trigger_id`.
   */
  triggerId(user: string): string;
  /**
   * Record a human's message with a fresh ts and return it (the driver uses it so transcripts show what
   * people typed). `files` are attached as that person's uploads (listed on the message like Slack's
   * file objects, bytes served at their `url_private` to the bot token).
   */
  addUserMessage(m: {
    channel: string;
    user: string;
    text: string;
    thread_ts?: string;
    source?: 'human' | 'command';
    files?: UserFileInput[];
  }): SlackMessage;
  /** Find a live (not deleted) message by channel and ts. */
  findMessage(channel: string, ts: string): SlackMessage | undefined;
  /**
   * Make the next `times` (default 1) calls to `method` fail: `{status: 429, retryAfterS}` answers HTTP 429
   * with `Retry-After` and body `{ok:false,error:"ratelimited"}`; `{error}` answers HTTP 200 `{ok:false,error}`.
   * Only authenticated calls consume an injected failure.
   */
  failNext(method: string, failure: SlackFailure, times?: number): void;
  /**
   * Hold the next call to `method`: it is answered only after `release()` (as a slow Slack would),
   * so a test can see what the bot does meanwhile (e.g. that its ack did not wait for that call).
   */
  hold(method: string): HeldCall;
  /** Subscribe to calls as they are recorded (for the sandbox's live log). Returns an unsubscribe function. */
  onCall(cb: (call: SlackCall) => void): () => void;
  /**
   * Poll `fn` every ~20 ms until it returns something truthy and resolve with that value.
   * Rejects after `timeoutMs` (default 5000) with the last thrown error (if any) and the recent calls.
   */
  waitFor<T>(fn: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  /** Stop the server (open connections are closed). */
  close(): Promise<void>;
}

/** The OAuth app the fake knows (FakeSlackOptions.oauth). */
export interface FakeOAuthApp {
  clientId: string;
  clientSecret: string;
  /**
   * Token rotation turned on for the app: bot tokens expire `expiresInS` seconds after they are
   * issued (Slack: 12 hours) and come with a `refresh_token` (`oauth.v2.access` with
   * `grant_type=refresh_token` gives a new pair). Default: off (tokens never expire).
   */
  tokenRotation?: { expiresInS: number };
}

/** Who a token acts for. */
export interface TokenIdentity {
  /** The workspace (`T…`); for an org-wide install, the org's id (auth.test's `team_id`). */
  teamId: string;
  teamName: string;
  enterpriseId?: string;
  enterpriseName?: string;
  /** An org-wide install: reaches every workspace of `enterpriseId` the app was added to. */
  orgWide: boolean;
  /**
   * An org-wide install of an org other than the fake's own `enterprise`: the workspaces it was
   * added to (`auth.teams.list`). The fake's own org's are `enterprise.teams`.
   */
  teams?: Array<{ id: string; name: string }>;
}

/**
 * What a person allows on Slack's install page: workspace `teamId` (or, `orgWide`, the org
 * `enterpriseId`), by `user` (default U0ALICE), back to `redirectUri`.
 */
export interface InstallConsent {
  teamId: string;
  teamName?: string;
  enterpriseId?: string;
  enterpriseName?: string;
  orgWide?: boolean;
  /** `orgWide` in an org other than the fake's own `enterprise`: the workspaces the app was added to. */
  teams?: Array<{ id: string; name: string }>;
  redirectUri?: string;
  user?: string;
}

/** Slack's answers to a token it issued and no longer takes (FakeInstallsApi.refusal). */
export type TokenRefusal = 'token_revoked' | 'account_inactive' | 'token_expired';

/** The fake's OAuth installs as tests and drivers use them (sandbox/slack/installs.ts). */
export interface FakeInstallsApi {
  /**
   * A person (`user`, default U0ALICE) allows the install in workspace `teamId` (or, `orgWide`, the
   * org `enterpriseId`): the `code` Slack appends to the Redirect URL.
   */
  authorize(p: InstallConsent): string;
  /** The identity of a token `oauth.v2.access` issued (and not revoked), or undefined. */
  identity(token: string): TokenIdentity | undefined;
  /** The app is uninstalled from workspace (or org) `id`: its tokens are revoked. */
  uninstall(id: string): void;
  /**
   * Why a token the fake issued is refused: `token_revoked` (uninstalled), `account_inactive` (its
   * workspace or org deleted), `token_expired` (rotation), else undefined.
   */
  refusal(token: string): TokenRefusal | undefined;
  /**
   * Workspace (or org) `id` is deleted without an uninstall: every method answers its tokens (and,
   * for the fake's own workspace, the single-token bot token) `account_inactive` (Slack's method
   * references: "Authentication token is for a deleted user or workspace when using a bot token").
   */
  deleteWorkspace(id: string): void;
  /** Whether workspace (or org) `id` was deleted. */
  isDeleted(id: string): boolean;
  /** The tokens issued so far and still valid, with who they act for (tests). */
  issued(): Array<{ token: string } & TokenIdentity>;
}
