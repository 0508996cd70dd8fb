/**
 * OAuth mode's configuration (SLACK_CLIENT_ID set): the checks across its variables that
 * config.ts's schema runs on the raw input, and the settings the installer and the installation
 * store are built from. docs/configuration.md lists the variables.
 */
import type { InstallAllowlist } from './install-allowlist.js';

/** The OAuth variables of the validated configuration (config.ts's `Config`). */
type OAuthVars = Partial<
  Record<
    | 'SLACK_CLIENT_ID'
    | 'SLACK_CLIENT_SECRET'
    | 'SLACK_STATE_SECRET'
    | 'SLACK_INSTALLATION_KEY'
    | 'SLACK_INSTALLATION_KEY_PREVIOUS',
    string
  >
> & { SLACK_INSTALL_ALLOWLIST?: readonly string[] };

/** The variables OAuth mode needs beside SLACK_CLIENT_ID. */
const OAUTH_REQUIRED = [
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'SLACK_INSTALLATION_KEY',
  'SLACK_INSTALL_ALLOWLIST',
] as const;

/**
 * What is wrong with the OAuth variables, one `[variable, problem]` each: with SLACK_CLIENT_ID, one
 * line naming every missing one of {@link OAUTH_REQUIRED} and one when SLACK_BOT_TOKEN is set too;
 * without it, the OAuth-only variables set alone. Reads the raw input, so it is told even when
 * other variables are invalid.
 */
export function oauthProblems(input: Record<string, string>): [string, string][] {
  const out: [string, string][] = [];
  if (input.SLACK_CLIENT_ID === undefined) {
    for (const k of [...OAUTH_REQUIRED, 'SLACK_INSTALLATION_KEY_PREVIOUS'])
      if (input[k] !== undefined) out.push([k, 'is only used with SLACK_CLIENT_ID (OAuth mode)']);
    return out;
  }
  const missing = OAUTH_REQUIRED.filter((k) => input[k] === undefined);
  if (missing.length > 0)
    out.push([
      'SLACK_CLIENT_ID',
      `OAuth mode also needs ${missing.join(', ')} (set them, or unset SLACK_CLIENT_ID for single-token mode)`,
    ]);
  if (input.SLACK_BOT_TOKEN !== undefined)
    out.push([
      'SLACK_BOT_TOKEN',
      "cannot be set with SLACK_CLIENT_ID: in OAuth mode each workspace's token comes from its installation (unset one)",
    ]);
  if (input.SLACK_INSTALLATION_KEY_PREVIOUS !== undefined && input.SLACK_INSTALLATION_KEY === undefined)
    out.push(['SLACK_INSTALLATION_KEY_PREVIOUS', 'is only used with SLACK_INSTALLATION_KEY (key rotation)']);
  return out;
}

/** The OAuth settings, when SLACK_CLIENT_ID is set (the schema then requires the others). */
export interface OAuthSettings {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** SLACK_INSTALLATION_KEY and SLACK_INSTALLATION_KEY_PREVIOUS, as given (32 bytes, base64 or hex). */
  installationKey: string;
  previousInstallationKey?: string;
  /**
   * SLACK_INSTALL_ALLOWLIST: the workspaces (`T…`) and orgs (`E…`) allowed to install and use the
   * app (install-allowlist.ts); the schema requires at least one in OAuth mode.
   */
  installAllowlist: InstallAllowlist;
}

/** OAuth mode's settings, or undefined in single-token mode (SLACK_BOT_TOKEN). */
export function oauthMode(c: OAuthVars): OAuthSettings | undefined {
  if (!c.SLACK_CLIENT_ID) return undefined;
  return {
    clientId: c.SLACK_CLIENT_ID,
    clientSecret: c.SLACK_CLIENT_SECRET ?? '',
    stateSecret: c.SLACK_STATE_SECRET ?? '',
    installationKey: c.SLACK_INSTALLATION_KEY ?? '',
    installAllowlist: new Set(c.SLACK_INSTALL_ALLOWLIST ?? []),
    ...(c.SLACK_INSTALLATION_KEY_PREVIOUS ? { previousInstallationKey: c.SLACK_INSTALLATION_KEY_PREVIOUS } : {}),
  };
}
