/**
 * `api.test` and `auth.test` of the fake Slack (Slack docs: api.test echoes its arguments;
 * auth.test describes the token's identity: workspace url, team, user and, for bot tokens, bot_id).
 */
import type { MethodTable } from './method.js';
import type { SlackState } from './state.js';

/** `api.test` and `auth.test` over `state` (the token itself was already checked by the server). */
export function authMethods(state: SlackState): MethodTable {
  return {
    'api.test': (args) => ({ ok: true, args }),

    'auth.test': () => ({
      ok: true,
      url: `https://${state.teamDomain}.slack.com/`,
      team: 'Sandbox',
      user: state.user(state.botUserId)?.name ?? 'docs-agent',
      team_id: state.teamId,
      user_id: state.botUserId,
      bot_id: state.botId,
      app_id: state.appId,
      ...(state.enterprise ? { enterprise_id: state.enterprise.id } : {}),
      is_enterprise_install: false,
    }),
  };
}
