/**
 * `api.test` and `auth.test` of the fake Slack (Slack docs: api.test echoes its arguments;
 * auth.test describes the token's identity: workspace url, team, user and, for bot tokens, bot_id;
 * on Enterprise Grid `enterprise_id`, and for an org-wide install the enterprise id as `team_id`
 * with `is_enterprise_install: true`).
 */
import type { MethodTable } from './method.js';
import type { SlackState } from './state.js';

/**
 * `api.test` and `auth.test` over `state` (the token itself was already checked by the server);
 * `auth.test` with a token of an OAuth install answers that install's workspace (installs.ts).
 */
export function authMethods(state: SlackState): MethodTable {
  return {
    'api.test': (args) => ({ ok: true, args }),

    'auth.test': () => {
      const who = state.caller;
      if (who)
        return {
          ok: true,
          url: `https://${who.teamId.toLowerCase()}.slack.com/`,
          team: who.teamName,
          user: state.user(state.botUserId)?.name ?? 'docs-agent',
          team_id: who.teamId,
          user_id: state.botUserId,
          bot_id: state.botId,
          app_id: state.appId,
          ...(who.enterpriseId ? { enterprise_id: who.enterpriseId } : {}),
          is_enterprise_install: who.orgWide,
        };
      const org = state.enterprise;
      const orgWide = org?.orgWide === true;
      return {
        ok: true,
        url: orgWide
          ? `https://${state.teamDomain}-org.enterprise.slack.com/`
          : `https://${state.teamDomain}.slack.com/`,
        team: orgWide ? org.name : 'Sandbox',
        user: state.user(state.botUserId)?.name ?? 'docs-agent',
        team_id: orgWide ? org.id : state.teamId,
        user_id: state.botUserId,
        bot_id: state.botId,
        app_id: state.appId,
        ...(org ? { enterprise_id: org.id } : {}),
        is_enterprise_install: orgWide,
      };
    },
  };
}
