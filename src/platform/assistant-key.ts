/**
 * The assistant (discovery API) key's prefix. The vendor's API introduction
 * (https://mintlify.com/docs/api/introduction) says "Assistant API keys begin with the mint_dsc_
 * prefix" (admin keys with `mint_`); the config accepts any `mint_` key
 * (the vendor may add prefixes), so a key without `mint_dsc_` is only warned about at start-up: most
 * likely the admin key was pasted, which the discovery API refuses, and every question would fail.
 */
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { askKeyVariable } from './docs-workspaces.js';

/** The prefix of the vendor's assistant API keys. */
export const ASSISTANT_KEY_PREFIX = 'mint_dsc_';

/**
 * Names the variables whose assistant key does not start with {@link ASSISTANT_KEY_PREFIX}
 * (DOCS_ASSISTANT_API_KEY, and each DOCS_WORKSPACE_PROJECTS entry's `assistantKeyEnv`) in one warn
 * line; names only, never a key.
 * @returns those variables' names (none: no line).
 */
export function warnAssistantKeyPrefix(
  config: Pick<Config, 'DOCS_ASSISTANT_API_KEY' | 'docsWorkspaces'>,
  logger: Pick<Logger, 'warn'>,
): string[] {
  const keys: [string, string | undefined][] = [['DOCS_ASSISTANT_API_KEY', config.DOCS_ASSISTANT_API_KEY]];
  // An entry's assistant key and its variable's name are set together (docs-workspaces.ts).
  for (const [id, w] of config.docsWorkspaces ?? [])
    if (w.askKeyEnv !== undefined) keys.push([askKeyVariable(id, w.askKeyEnv), w.ask?.apiKey]);
  const variables = keys
    .filter(([, key]) => key !== undefined && !key.startsWith(ASSISTANT_KEY_PREFIX))
    .map(([n]) => n);
  if (variables.length > 0)
    logger.warn(
      { variables },
      `an assistant API key does not start with ${ASSISTANT_KEY_PREFIX}, as the docs platform's assistant keys do: ` +
        'if it is the admin key, the docs assistant will refuse it and questions will fail; ' +
        'create an assistant key on the API keys page',
    );
  return variables;
}
