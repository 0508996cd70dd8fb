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
 *
 * Units used throughout: Slack `ts` strings ("1700000000.000100", seconds with 6-digit micro part),
 * `at`/clock values in epoch milliseconds.
 *
 * The code lives in `./slack/`: `server.ts` (HTTP, auth, injected failures), `state.ts` (workspace
 * state, ids and ts), `recorder.ts` (call log, waitFor), one module per Web API family (`chat.ts`,
 * `reactions.ts`, `views.ts`, `conversations.ts`, `users.ts`, `files.ts`, `auth.ts`) and
 * `response-url.ts`. This module is the stable entry point.
 */
export { startFakeSlack } from './slack/server.js';
export type {
  FakeChannel,
  FakeSlack,
  FakeSlackOptions,
  FakeUser,
  RecordedView,
  ResponseUrlContext,
  SlackCall,
  SlackFailure,
  SlackFileRef,
  SlackMessage,
  SlackMessageSource,
} from './slack/types.js';
