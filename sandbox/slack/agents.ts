/**
 * The agent Web API families of the fake Slack (`assistant.threads.*`, `agents.sessions.*`), for an
 * app declared with `features.agent_view` (docs.slack.dev: assistant.threads.setSuggestedPrompts,
 * assistant.threads.setStatus, agents.sessions.setStatus, "Agent sessions", "Migrating to the
 * Agent messaging experience"; arguments as @slack/web-api 8 types them):
 * - setSuggestedPrompts: `channel_id` and `prompts` required, at most 4, each with `title` and
 *   `message`; for an agent_view app a call with `thread_ts` "silently fails" (answered ok, no effect).
 * - setStatus: `channel_id`, `thread_ts` and `status` required ('' clears); `loading_messages` ≤ 10;
 *   shown in that thread, under its newest message; the status clears when the bot posts in the
 *   thread (the server calls {@link FakeAgentState.botPosted}).
 * - agents.sessions.setStatus: `status` one of active, processing, suspended, closed; `channel_id`
 *   and `thread_ts` (thread-based sessions, the only kind here) required; `title` ≤ 200 characters,
 *   kept from the call that creates the session; while the app is not subscribed to
 *   `agent_session_stopped`, a `processing` answer carries the warning
 *   `missing_agent_session_stopped_event_subscription` (docs: agent_session_stopped event).
 * Slack's error code for a missing or malformed argument is `invalid_arguments`; an unknown channel
 * `channel_not_found`; a thread that is not there `invalid_thread_ts`.
 * {@link FakeAgentState.refuseWith} makes every one of them fail (an app that is not an agent, an
 * older workspace, a missing scope).
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import type { FakeAgentState, FakePrompts } from './agent-state.js';
import type { SlackState } from './state.js';

const SESSION_STATUSES = new Set(['active', 'processing', 'suspended', 'closed']);

function requireString(v: unknown): string {
  return typeof v === 'string' ? v : fail('invalid_arguments');
}

/** The prompts argument: an array of 1–4 `{title, message}` with non-empty strings. */
function parsePrompts(raw: unknown): FakePrompts['prompts'] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 4) fail('invalid_arguments');
  return (raw as unknown[]).map((p) => {
    const o = (p ?? {}) as Record<string, unknown>;
    return { title: str(o.title) ?? fail('invalid_arguments'), message: str(o.message) ?? fail('invalid_arguments') };
  });
}

/** The agent methods over `state` and `agent`. */
export function agentMethods(state: SlackState, agent: FakeAgentState): MethodTable {
  const refused = (): void => {
    if (agent.refuseWith) fail(agent.refuseWith);
  };
  const thread = (args: Json) => {
    const ch = state.requireChannel(str(args.channel_id) ?? fail('invalid_arguments'), false);
    const ts = str(args.thread_ts) ?? fail('invalid_arguments');
    if (!state.findMessage(ch.id, ts)) fail('invalid_thread_ts');
    return { ch, ts };
  };
  return {
    'assistant.threads.setSuggestedPrompts': (args) => {
      refused();
      const ch = state.requireChannel(str(args.channel_id) ?? fail('invalid_arguments'), false);
      const prompts = parsePrompts(args.prompts);
      if (args.thread_ts !== undefined) return { ok: true }; // Slack: thread_ts makes an agent app's call fail silently.
      agent.prompts.set(ch.id, { prompts, ...(str(args.title) ? { title: str(args.title) as string } : {}) });
      return { ok: true };
    },
    'assistant.threads.setStatus': (args) => {
      refused();
      const { ch, ts } = thread(args);
      const status = requireString(args.status);
      if (
        args.loading_messages !== undefined &&
        (!Array.isArray(args.loading_messages) || args.loading_messages.length > 10)
      )
        fail('invalid_arguments');
      const key = `${ch.id}:${ts}`;
      if (status === '') agent.loading.delete(key);
      else {
        agent.loading.set(key, status);
        // Slack shows the status in the thread (`thread_ts`: "the thread of where to set the status"),
        // under its newest message: the transcript prints it there, not under the channel's newest.
        const newest = state.messages
          .filter((m) => m.channel === ch.id && !m.ephemeralTo && !m.deleted && (m.ts === ts || m.thread_ts === ts))
          .at(-1);
        agent.loadingLines.push({ channel: ch.id, threadTs: ts, status, ...(newest ? { afterTs: newest.ts } : {}) });
      }
      return { ok: true };
    },
    'agents.sessions.setStatus': (args) => {
      refused();
      const status = requireString(args.status);
      if (!SESSION_STATUSES.has(status)) fail('invalid_arguments');
      const { ch, ts } = thread(args);
      if (args.title !== undefined && (typeof args.title !== 'string' || args.title.length > 200))
        fail('invalid_arguments');
      const key = `${ch.id}:${ts}`;
      const session = agent.sessions.get(key) ?? {
        channel: ch.id,
        threadTs: ts,
        statuses: [],
        ...(str(args.title) ? { title: str(args.title) } : {}),
        ...(str(args.initiator_user_id) ? { initiator: str(args.initiator_user_id) } : {}),
      };
      session.statuses.push(status);
      agent.sessions.set(key, session);
      const warning =
        status === 'processing'
          ? {
              warning: 'missing_agent_session_stopped_event_subscription',
              response_metadata: { warnings: ['missing_agent_session_stopped_event_subscription'] },
            }
          : {};
      return { ok: true, status, ...(session.title ? { title: session.title } : {}), ...warning };
    },
  };
}
