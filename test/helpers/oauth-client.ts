import type { WebClient } from '@slack/web-api';
import type { InstallationTokens } from '../../src/platform/slack/installation-tokens.js';
import type { Logger } from '../../src/platform/logger.js';
import { createWebClient } from '../../src/platform/slack/web-client.js';

/**
 * The platform's WebClient in OAuth mode, as runtime.ts builds it: no token of its own, each call
 * with the token `tokens` gives for the current request's installation, a refused token reported
 * back to `tokens`.
 */
export function tokensWebClient(
  tokens: Pick<InstallationTokens, 'current' | 'refused'>,
  slackApiUrl: string,
  logger: Logger,
): WebClient {
  return createWebClient({
    token: '',
    slackApiUrl,
    logger,
    credentials: () => tokens.current(),
    onRefusedToken: (creds, code) => tokens.refused(creds, code),
  });
}
