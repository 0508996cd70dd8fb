import { describe, expect, it } from 'vitest';
import { warnAssistantKeyPrefix } from '../../../src/platform/assistant-key.js';
import { readConfig } from '../../../src/platform/config.js';
import { VALID_ENV as valid } from '../../helpers/config-env.js';
import { arrayLogger } from '../../helpers/logs.js';

const ADMIN_KEY = 'mint_admin_key_pasted_by_mistake_123';

/** The warn lines logged for `env` at start-up. */
function warnings(env: Record<string, string>) {
  const { logger, lines } = arrayLogger('warn');
  const variables = warnAssistantKeyPrefix(readConfig({ ...valid, ...env }), logger);
  return { variables, lines, raw: JSON.stringify(lines) };
}

describe('the assistant key prefix (vendor: "Assistant API keys begin with the mint_dsc_ prefix")', () => {
  it('a mint_ key without mint_dsc_ is taken, with one warn line naming the variable, never the key', () => {
    const w = warnings({ DOCS_ASSISTANT_API_KEY: ADMIN_KEY, DOCS_DOMAIN: 'acme' });
    expect(w.variables).toEqual(['DOCS_ASSISTANT_API_KEY']);
    expect(w.lines).toHaveLength(1);
    expect(w.lines[0]).toMatchObject({ level: 40, variables: ['DOCS_ASSISTANT_API_KEY'] });
    expect(w.lines[0]?.msg).toContain('does not start with mint_dsc_');
    expect(w.raw).not.toContain('pasted_by_mistake');
  });

  it('no line for a mint_dsc_ key, nor without asking', () => {
    expect(warnings({ DOCS_ASSISTANT_API_KEY: 'mint_dsc_site_key', DOCS_DOMAIN: 'acme' }).lines).toEqual([]);
    expect(warnings({}).lines).toEqual([]);
  });

  it("a workspace's own assistant key is checked too, in the same single line", () => {
    const w = warnings({
      DOCS_ASSISTANT_API_KEY: ADMIN_KEY,
      DOCS_DOMAIN: 'acme',
      DOCS_API_KEY_BETA: 'mint_beta_admin',
      DOCS_ASSISTANT_API_KEY_BETA: 'mint_beta_admin',
      DOCS_WORKSPACE_PROJECTS: JSON.stringify({
        T0BETA: {
          projects: ['proj_b'],
          apiKeyEnv: 'DOCS_API_KEY_BETA',
          domain: 'beta',
          assistantKeyEnv: 'DOCS_ASSISTANT_API_KEY_BETA',
        },
      }),
    });
    expect(w.variables).toEqual([
      'DOCS_ASSISTANT_API_KEY',
      // Named as every log line names it (docs-workspaces.ts askSettingsFor).
      'DOCS_ASSISTANT_API_KEY_BETA (DOCS_WORKSPACE_PROJECTS T0BETA.assistantKeyEnv)',
    ]);
    expect(w.lines).toHaveLength(1);
    expect(w.raw).not.toContain('pasted_by_mistake');
    expect(w.raw).not.toContain('mint_beta_admin');
  });
});
