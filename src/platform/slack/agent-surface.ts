import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { classifySlackError, slackErrorCode } from './errors.js';
import { createWebClient, type WebClientOptions } from './web-client.js';

/**
 * Slack's agent surfaces, as the bot uses them (docs.slack.dev, "Agent sessions",
 * agents.sessions.setStatus, assistant.threads.setStatus, assistant.threads.setSuggestedPrompts,
 * "Migrating to the Agent messaging experience"):
 * - `agents.sessions.setStatus`: a thread's session, `processing` | `active` | `suspended` | `closed`;
 *   `title` (≤ 200 chars) and `initiator_user_id` count only when the session is created. Only apps
 *   declared as agents may create sessions; it needs `chat:write`.
 * - `assistant.threads.setStatus`: the loading line under a thread ("is reading the thread…"); it
 *   clears itself when the app posts in the thread or after 2 minutes; an empty `status` clears it.
 * - `assistant.threads.setSuggestedPrompts`: up to 4 `{title, message}` prompts in the app's Messages
 *   tab; needs `assistant:write`. For an app with `agent_view`, `thread_ts` must be left out (Slack:
 *   "including it in a call for an agent app will cause the call to silently fail").
 */
type SessionStatus = 'processing' | 'active' | 'suspended' | 'closed';

/** A suggested prompt: `title` is what the button shows, `message` what it sends as the person. */
export interface SuggestedPrompt {
  title: string;
  message: string;
}

/** Slack: at most 4 suggested prompts; a session title of at most 200 characters. */
const AGENT_LIMITS = { prompts: 4, sessionTitle: 200 } as const;

/** The calls the surface makes. */
export type AgentSurfaceClient = {
  assistant: { threads: Pick<WebClient['assistant']['threads'], 'setStatus' | 'setSuggestedPrompts'> };
  agents: { sessions: Pick<WebClient['agents']['sessions'], 'setStatus'> };
};

type Method = 'agents.sessions.setStatus' | 'assistant.threads.setStatus' | 'assistant.threads.setSuggestedPrompts';

/**
 * The bot's agent surfaces, as extras that never stand in the way: every call is best effort and
 * never throws. Where Slack refuses a method for the whole app ({@link APP_WIDE_ERRORS}: a method
 * the workspace does not have, a missing scope, a token of the wrong type), the surface logs one
 * warning for that method in this process and stops calling it; the job goes on with its status
 * message alone. Any other refusal (`access_denied`, `no_permission`,
 * `method_not_supported_for_channel_type`, `not_allowed`, a bad thread_ts…) may be about one
 * channel or thread: it fails that call only, with a warning the first time each (method, error)
 * is seen in this process and a debug line after. A place that is gone (a deleted thread) is a
 * debug line; a transient failure a warning, and the next call tries again.
 */
export class AgentSurface {
  private readonly refused = new Set<Method>();
  /** `method:error` pairs refused for one call already warned about in this process. */
  private readonly warnedOnce = new Set<string>();

  constructor(private readonly opts: { slack: AgentSurfaceClient; logger: Logger }) {}

  /**
   * Sets the session of the thread `threadTs` in `channel` (created on first call, with `title`
   * cut to 200 characters and `initiator` as its initiator).
   */
  async session(
    at: { channel: string; threadTs: string },
    status: SessionStatus,
    created?: { title: string; initiator?: string },
  ): Promise<void> {
    const title = created?.title ? { title: cut(created.title, AGENT_LIMITS.sessionTitle) } : {};
    const initiator = created?.initiator ? { initiator_user_id: created.initiator } : {};
    await this.call('agents.sessions.setStatus', () =>
      this.opts.slack.agents.sessions.setStatus({
        channel_id: at.channel,
        thread_ts: at.threadTs,
        status,
        ...title,
        ...initiator,
      }),
    );
  }

  /** Shows `status` ("is reading the thread…") under the thread; '' clears it. */
  async loading(at: { channel: string; threadTs: string }, status: string): Promise<void> {
    await this.call('assistant.threads.setStatus', () =>
      this.opts.slack.assistant.threads.setStatus({ channel_id: at.channel, thread_ts: at.threadTs, status }),
    );
  }

  /** Sets the suggested prompts of the Messages tab whose conversation is `channel` (the first 4). */
  async suggestPrompts(channel: string, prompts: SuggestedPrompt[], title?: string): Promise<void> {
    const args = { channel_id: channel, prompts: prompts.slice(0, AGENT_LIMITS.prompts), ...(title ? { title } : {}) };
    await this.call('assistant.threads.setSuggestedPrompts', () =>
      this.opts.slack.assistant.threads.setSuggestedPrompts(args),
    );
  }

  /** True once Slack refused `method` for good in this process (tests, metrics). */
  isRefused(method: Method): boolean {
    return this.refused.has(method);
  }

  private async call(method: Method, run: () => Promise<unknown>): Promise<void> {
    if (this.refused.has(method)) return;
    try {
      await run();
    } catch (err) {
      const info = classifySlackError(err);
      if (info.kind === 'permanent' && APP_WIDE_ERRORS.has(info.code)) {
        this.refused.add(method);
        this.opts.logger.warn(
          { slackMethod: method, slackError: info.code },
          'Slack refused an agent method; carrying on without it in this process (is the agent feature enabled for the app?)',
        );
      } else if (info.kind === 'permanent') {
        this.refusedOnce(method, info.code);
      } else if (info.kind === 'gone') {
        this.opts.logger.debug({ slackMethod: method, slackError: info.code }, 'the thread of an agent call is gone');
      } else {
        this.opts.logger.warn(
          { slackMethod: method, slackError: slackErrorCode(err) },
          'an agent call failed; carrying on',
        );
      }
    }
  }

  /** A refusal about this call only: the method stays on; a warning the first time per (method, error), then debug. */
  private refusedOnce(method: Method, code: string): void {
    const key = `${method}:${code}`;
    const level = this.warnedOnce.has(key) ? 'debug' : 'warn';
    this.warnedOnce.add(key);
    const msg = 'Slack refused an agent call here; the method stays on for other channels';
    this.opts.logger[level]({ slackMethod: method, slackError: code }, msg);
  }
}

/**
 * Refusals that say the app cannot use a method anywhere (Slack: the "Errors" lists of
 * assistant.threads.* and agents.sessions.setStatus, and the Web API's common errors): a method the
 * workspace does not have (`unknown_method`, `method_deprecated`), a missing scope, a token of the
 * wrong type, a token Slack no longer takes, the agent feature not enabled for the app. Only these
 * switch the method off for the process. `access_denied`, `no_permission`, `not_allowed` and
 * `method_not_supported_for_channel_type` can be about one conversation, so they never do.
 */
const APP_WIDE_ERRORS: ReadonlySet<string> = new Set([
  'unknown_method',
  'method_deprecated',
  'missing_scope',
  'not_allowed_token_type',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'feature_not_enabled',
]);

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/**
 * The bot's {@link AgentSurface}, on a Web API client of its own that logs only errors: Slack
 * answers every `processing` with the warning `missing_agent_session_stopped_event_subscription`
 * (the bot offers no stop button: the docs API cannot stop a job, so it does not subscribe to
 * `agent_session_stopped`), and the surface logs its own failures, once per refused method.
 */
export function createAgentSurface(opts: WebClientOptions): AgentSurface {
  const quiet = opts.logger.child({ component: 'agent-surface' }, { level: 'error' });
  return new AgentSurface({
    slack: createWebClient({ ...opts, logger: quiet }),
    logger: opts.logger.child({ feature: 'agent-surface' }),
  });
}
