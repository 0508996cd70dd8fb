import { expect } from 'vitest';
import { ConfigError, readConfig } from '../../src/platform/config.js';

/** The least environment readConfig takes: a bot token, a signing secret, a docs API key and project. */
export const VALID_ENV = {
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 'sig',
  DOCS_API_KEY: 'mint_abc',
  DOCS_PROJECT_ID: 'proj',
};

/** The problems readConfig lists for `env`; it must throw a ConfigError (asserted). */
export function configProblems(env: Record<string, string>): string[] {
  try {
    readConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}
