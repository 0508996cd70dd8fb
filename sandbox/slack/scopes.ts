/**
 * OAuth scopes of the fake Slack's bot token: the scopes each Web API method needs, as each method's
 * reference page lists them for bot tokens (docs.slack.dev/reference/methods/<method>, "Scopes"),
 * and the scopes the bot was granted: by default the bot scopes `manifest.yml` asks for
 * (`oauth_config.scopes.bot`), so a call the manifest does not cover fails here as it would for an
 * app installed from that manifest.
 *
 * Slack's answer (docs.slack.dev "Scopes and permissions"; the `missing_scope` row of every method's
 * error table): HTTP 200 `{ ok: false, error: "missing_scope", needed, provided }`, `needed` the
 * scope(s) the call lacks and `provided` the token's scopes, comma-separated. Every answer to the
 * token carries `x-oauth-scopes` (its scopes) and `x-accepted-oauth-scopes` (what the method takes),
 * which WebClient reads into `response_metadata.scopes` / `acceptedScopes`.
 *
 * The conversations methods need the scope of the conversation's type (`channels:` for a public
 * channel, `groups:` private, `im:` a DM, `mpim:` a group DM); users.conversations those of every
 * type asked for in `types` (default `public_channel`). Methods whose page lists no scope (auth.test,
 * api.test, chat.getPermalink, views.*) need none; apps.connections.open is called with the
 * app-level token, whose `connections:write` is granted outside the manifest's bot scopes.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { str, type Json } from './method.js';
import type { SlackState } from './state.js';
import type { FakeChannel } from './types.js';

/** Bot-token scopes by method (docs.slack.dev method reference pages). */
const METHOD_SCOPES: Record<string, readonly string[]> = {
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'assistant.threads.setStatus': ['chat:write'],
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'agents.sessions.setStatus': ['chat:write'],
  'reactions.add': ['reactions:write'],
  'reactions.remove': ['reactions:write'],
  'users.info': ['users:read'],
  'usergroups.list': ['usergroups:read'],
  'usergroups.users.list': ['usergroups:read'],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
};

/** Methods that need the scope of the conversation's type, and which one (`history`, `read`, `write`). */
const CONVERSATION_SCOPES: Record<string, 'history' | 'read' | 'write'> = {
  'conversations.history': 'history',
  'conversations.replies': 'history',
  'conversations.info': 'read',
  'conversations.members': 'read',
  'conversations.open': 'write',
};

const TYPE_PREFIX: Record<string, string> = {
  public_channel: 'channels',
  private_channel: 'groups',
  im: 'im',
  mpim: 'mpim',
};

function channelType(ch: FakeChannel): string {
  if (ch.isIm) return 'im';
  if (ch.isMpim) return 'mpim';
  return ch.isPrivate ? 'private_channel' : 'public_channel';
}

/**
 * The type of the conversation `args.channel` names (without opening a DM, as `state.channel` would
 * for a user id: a user id names a DM), or of the one conversations.open's `users` would open.
 */
function conversationType(state: SlackState, args: Json): string | undefined {
  const ref = str(args.channel);
  if (!ref) {
    const users = (str(args.users) ?? '').split(',').filter(Boolean);
    return users.length === 0 ? undefined : users.length === 1 ? 'im' : 'mpim';
  }
  const name = ref.replace(/^#/, '');
  const ch = state.channels.find((c) => c.id === ref || (!c.isIm && c.name === name));
  if (ch) return channelType(ch);
  return state.user(ref) ? 'im' : undefined;
}

/** The scope a conversation of `type` needs for `kind`; opening conversations: `channels:manage` and `<type>:write`. */
function typeScope(type: string, kind: 'history' | 'read' | 'write'): string {
  const prefix = TYPE_PREFIX[type] ?? 'channels';
  return kind === 'write' && prefix === 'channels' ? 'channels:manage' : `${prefix}:${kind}`;
}

/**
 * The scopes `method` needs for these `args` (empty: none). A conversation the fake does not know
 * needs none here: the method answers `channel_not_found` itself.
 */
export function neededScopes(state: SlackState, method: string, args: Json): readonly string[] {
  const fixed = METHOD_SCOPES[method];
  if (fixed) return fixed;
  const kind = CONVERSATION_SCOPES[method];
  if (kind) {
    const type = conversationType(state, args);
    return type ? [typeScope(type, kind)] : [];
  }
  if (method === 'users.conversations') {
    const types = (str(args.types) ?? 'public_channel').split(',').map((t) => t.trim());
    return types.map((t) => typeScope(t, 'read'));
  }
  return [];
}

/** The bot scopes a manifest (YAML, Slack's app manifest format) asks for, in order, without repeats. */
export function manifestBotScopes(
  manifestPath: string | URL = new URL('../../manifest.yml', import.meta.url),
): string[] {
  const manifest = parse(readFileSync(manifestPath, 'utf8')) as { oauth_config?: { scopes?: { bot?: unknown } } };
  const bot = manifest.oauth_config?.scopes?.bot;
  return Array.isArray(bot) ? [...new Set(bot.filter((s): s is string => typeof s === 'string'))] : [];
}
