/**
 * OAuth mode's SLACK_INSTALL_ALLOWLIST: the Slack workspaces (`T…`) and Enterprise Grid orgs
 * (`E…`) allowed to install and use the app. Any workspace can open a distributed app's
 * `/slack/install` (Manage Distribution), so without it a stranger's install would be stored and
 * given the deployment's docs project and key. The install callback refuses the others
 * (slack/install-refusal.ts) and the installation store refuses them at use
 * (installation-store.ts), so removing an id stops that installation's work.
 */
import { z } from 'zod';
import { teamId } from './slack/payloads.js';

/** A Slack workspace id (`T…`) or Enterprise Grid org id (`E…`): payloads.ts' `teamId`. */
const isInstallId = (s: string) => teamId.safeParse(s).success;

/** The ids allowed to install (workspaces `T…`, orgs `E…`). */
export type InstallAllowlist = ReadonlySet<string>;

/**
 * SLACK_INSTALL_ALLOWLIST's schema: comma-separated ids (spaces around commas allowed, repeats
 * dropped; unset: none, which OAuth mode refuses, config-oauth.ts). Not config-values.ts' `idList`:
 * a list set to commas alone is refused here (it would refuse every install), and a bad entry is
 * named by its place. A bad entry is named by its
 * place in the list, never echoed (the configuration never echoes a value: it may be a secret
 * pasted into the wrong variable).
 */
export const installAllowlistField = z
  .string()
  .default('')
  .transform((v, ctx) => {
    const entries = v.split(',').map((s) => s.trim());
    const ids = entries.filter(Boolean);
    const bad = entries.flatMap((s, i) => (s && !isInstallId(s) ? [i + 1] : []));
    if (bad.length > 0)
      ctx.addIssue({
        code: 'custom',
        message: `${bad.length === 1 ? 'entry' : 'entries'} ${bad.join(', ')} of ${entries.length} ${bad.length === 1 ? 'is not a Slack workspace or org id' : 'are not Slack workspace or org ids'} (T… or E…, capitals and digits)`,
      });
    else if (v.trim() !== '' && ids.length === 0)
      ctx.addIssue({ code: 'custom', message: 'must name at least one workspace (T…) or org (E…) id' });
    return [...new Set(ids)];
  });

/** Who an installation is for: its workspace, its org, and whether it is the org-wide install. */
export interface InstallationIds {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

/**
 * Whether `allow` admits an installation: an org-wide install when its org is listed; a workspace
 * install when its workspace is listed, or the org it belongs to (Enterprise Grid) is.
 */
export function installationAllowed(allow: InstallAllowlist, ids: InstallationIds): boolean {
  const orgListed = ids.enterpriseId !== undefined && allow.has(ids.enterpriseId);
  if (ids.isEnterpriseInstall === true) return orgListed;
  return orgListed || (ids.teamId !== undefined && allow.has(ids.teamId));
}
