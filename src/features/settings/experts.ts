/**
 * Who a channel's unanswered questions go to: `/docs-settings experts <#channel>|<@usergroup>|off`.
 * Slack sends a channel and a user group in a command's text escaped when the command has
 * `should_escape: true` (docs.slack.dev, "Implementing slash commands", escaping: channels as
 * `<#C…|name>`, user groups as `<!subteam^S…|@handle>`). Checked when set (the bot must be in the
 * channel, which must not be shared with another organization; the user group must exist) and
 * again when used.
 */
import type { WebClient } from '@slack/web-api';
import { slackErrorCode } from '../../platform/slack/errors.js';

/** The docs team: a channel the question is posted in, or a user group mentioned in the question's thread. */
export type Experts = { kind: 'channel'; id: string } | { kind: 'usergroup'; id: string };

/** How a docs team is typed: a channel or a user group, picked from Slack's suggestions (the manifest's usage hint too). */
export const EXPERTS_TARGETS = '#channel|@usergroup';

/** How experts are typed, for the usage. */
export const EXPERTS_USAGE = `experts ${EXPERTS_TARGETS}|off`;

/**
 * Parses what follows `experts`: one escaped channel or user group, or `off`.
 * @returns the experts (`null`: off), or why not (a sentence).
 */
export function parseExperts(words: readonly string[]): { experts: Experts | null } | { error: string } {
  if (words.length !== 1) return { error: `Say \`${EXPERTS_USAGE}\`: one channel or one user group.` };
  const [w = ''] = words;
  if (['off', 'default', 'none'].includes(w.toLowerCase())) return { experts: null };
  const channel = /^<#([CG][A-Z0-9]{2,20})(\|[^>]*)?>$/.exec(w);
  if (channel) return { experts: { kind: 'channel', id: channel[1]! } };
  const group = /^<!subteam\^(S[A-Z0-9]{2,20})(\|[^>]*)?>$/.exec(w);
  if (group) return { experts: { kind: 'usergroup', id: group[1]! } };
  return {
    error: `Name the docs team as a channel (\`#docs-team\`) or a user group (\`@docs-team\`), picked from Slack's suggestions.`,
  };
}

/** Reads stored experts back; undefined when absent or unreadable. */
export function readExperts(raw: string | undefined): Experts | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as { kind?: unknown; id?: unknown };
    if ((v.kind === 'channel' || v.kind === 'usergroup') && typeof v.id === 'string' && /^[A-Z0-9]{3,22}$/.test(v.id))
      return { kind: v.kind, id: v.id };
  } catch {
    // Unreadable JSON reads as no experts (the setting is shown as unset, and can be set again).
  }
  return undefined;
}

/** Experts in words for Slack: `<#C…>` or `<!subteam^S…>` (Slack shows the name; ids are checked shapes). */
export function expertsText(e: Experts | undefined): string | undefined {
  if (!e) return undefined;
  return e.kind === 'channel' ? `<#${e.id}>` : `<!subteam^${e.id}>`;
}

/** What checking experts needs: conversations.info (is the bot in the channel) and usergroups.users.list. */
interface ExpertsSlack {
  conversations: Pick<WebClient['conversations'], 'info'>;
  usergroups: { users: Pick<WebClient['usergroups']['users'], 'list'> };
}

/**
 * Whether the bot can reach `e`: in the channel (conversations.info `is_member`), which is not
 * archived nor shared with another organization (`is_ext_shared`, Slack Connect: the questions posted
 * there would leave the organization), or the user group
 * exists (usergroups.users.list; `no_such_subteam` otherwise). @returns why not (a sentence for
 * the person), or undefined. @throws other Slack errors (the check could not be made).
 */
export async function expertsProblem(slack: ExpertsSlack, e: Experts): Promise<string | undefined> {
  try {
    if (e.kind === 'channel') {
      const res = await slack.conversations.info({ channel: e.id });
      if (res.channel?.is_archived) return `<#${e.id}> is archived: name another channel.`;
      if (res.channel?.is_ext_shared)
        return `<#${e.id}> is shared with another organization (Slack Connect), so questions posted there would leave yours: name a channel only your organization is in.`;
      if (!res.channel?.is_member) return `I'm not in <#${e.id}>: invite me there first (\`/invite @Docs Agent\`).`;
      return undefined;
    }
    await slack.usergroups.users.list({ usergroup: e.id });
    return undefined;
  } catch (err) {
    const code = slackErrorCode(err);
    if (code === 'channel_not_found') return `I can't see that channel: invite me to it first.`;
    if (code === 'no_such_subteam' || code === 'subteam_not_found')
      return "That user group doesn't exist any more: name another one.";
    throw err;
  }
}
