/**
 * A faithful, in-process fake of the Slack Web API for the sandbox and the end-to-end tests.
 *
 * It speaks HTTP exactly like `https://slack.com/api/` as far as `@slack/web-api`'s `WebClient`
 * (and therefore Bolt) can tell:
 *
 * - `POST /api/<method>` with `application/x-www-form-urlencoded` (WebClient's default: objects and
 *   arrays such as `blocks`, `view`, `files` arrive JSON-encoded inside form fields), `application/json`
 *   or `multipart/form-data` bodies; query-string arguments are honoured too.
 * - The token comes from `Authorization: Bearer <token>` (what WebClient sends) or a `token` argument.
 * - Every answer is HTTP 200 with `{ ok: true, ... }` or `{ ok: false, error }`, except injected rate
 *   limits, which are HTTP 429 with a `Retry-After: <seconds>` header (Slack docs: "Rate limits").
 * - `files.uploadV2`'s three steps work: `files.getUploadURLExternal` hands out an `upload_url` served
 *   here (`POST /upload/<file_id>`, WebClient sends the bytes as multipart field `body`), then
 *   `files.completeUploadExternal` shares the file into a channel as a message.
 * - `response_url`s for slash commands and interactivity are served at `POST /response/<id>` and take
 *   the JSON body Bolt's `respond()` sends.
 * - Conversations read like Slack's: `conversations.history` / `.replies` with `oldest` / `latest` /
 *   `inclusive`, `limit`, cursor pagination and message metadata (`include_all_metadata`);
 *   `conversations.members`, `users.conversations`, `users.info` with roles (admins, guests, Slack
 *   Connect users of another team), `usergroups.users.list` / `usergroups.list`.
 * - Socket Mode: `apps.connections.open` (app-level token) hands out a WebSocket URL served here
 *   (`slack.socket` sends envelopes and collects acks; see `./slack/socket.ts`).
 * - Chat streaming: `chat.startStream` / `chat.appendStream` / `chat.stopStream` with Slack's rules
 *   (see `./slack/streams.ts`), streamed messages in the channel state like posted ones, and
 *   `slack.streams` to refuse streaming or end a stream from outside.
 * - It refuses what Slack refuses: Block Kit past its documented limits in messages and views
 *   (`invalid_blocks`, `msg_blocks_too_long`, `invalid_arguments`; `./slack/block-kit/`), a trigger_id
 *   used twice or more than 3 s after it was minted (`exchanged_trigger_id`, `expired_trigger_id`, by
 *   the injected clock), and a call the bot token's scopes do not cover (`missing_scope` with `needed`
 *   and `provided`; by default the token has manifest.yml's bot scopes; `./slack/scopes.ts`).
 *
 * Units used throughout: Slack `ts` strings ("1700000000.000100", seconds with 6-digit micro part),
 * `at`/clock values in epoch milliseconds.
 *
 * The code lives in `./slack/`: `server.ts` (HTTP, auth, injected failures), `state.ts` (workspace
 * state, ids and ts), `defaults.ts` (the default workspace), `wire.ts` (JSON shapes), `pagination.ts`,
 * `recorder.ts` (call log, waitFor), one module per Web API family (`chat.ts`, `reactions.ts`,
 * `views.ts`, `conversations.ts`, `history.ts`, `users.ts`, `usergroups.ts`, `files.ts`, `auth.ts`),
 * `agents.ts` (assistant.threads.*, agents.sessions.*), `streams.ts` + `stream-state.ts` (chat streaming),
 * `response-url.ts`, `socket.ts` (Socket Mode), `block-kit/` (Block Kit checks) and `scopes.ts`. This
 * module is the stable entry point.
 */
export { startFakeSlack } from './slack/server.js';
export { DEFAULT_CHANNELS, DEFAULT_USERGROUPS, DEFAULT_USERS, OTHER_TEAM_ID } from './slack/defaults.js';
export {
  GRID_CHANNELS,
  GRID_ENTERPRISE,
  GRID_USERS,
  gridOptions,
  OTHER_ENTERPRISE_ID,
  OTHER_ORG_TEAM_ID,
  SIBLING_TEAM_ID,
} from './slack/grid.js';
export type { FakeAgentState, FakeLoadingLine, FakePrompts, FakeSession } from './slack/agent-state.js';
export type { FakeStream, FakeStreamState, FakeStreamStateName } from './slack/stream-state.js';
export type {
  FakeChannel,
  FakeEnterprise,
  FakeSlack,
  FakeSlackOptions,
  FakeUser,
  FakeUsergroup,
  HeldCall,
  RecordedView,
  ResponseUrlContext,
  SlackCall,
  SlackFailure,
  SlackFileRef,
  SlackMessage,
  SlackMessageSource,
  SlackMetadata,
  UserFileInput,
} from './slack/types.js';
export type {
  AckRecord,
  FakeSocketMode,
  SendEnvelopeOptions,
  SentEnvelope,
  SocketConnectionInfo,
  SocketDisconnectReason,
  SocketEnvelopeType,
} from './slack/socket-types.js';
