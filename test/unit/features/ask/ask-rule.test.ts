import { describe, expect, it } from 'vitest';
import { classifyMention } from '../../../../src/features/ask/rule.js';

/** The mention rule (docs/using.md "The mention rule"): deterministic, both ways. */
describe('the mention rule', () => {
  it.each([
    ['<@U0DOCSBOT> how do I rotate an API key?'],
    ['<@U0DOCSBOT> which page covers SSO'],
    ['What is the rate limit for the API'],
    ['is there a page about webhooks'],
    ['does the CLI support Windows'],
    ['hey <@U0DOCSBOT>, can I use SAML with Okta?'],
    ['quick question: why do webhooks retry?'],
    ['the old key keeps working after a rotation?'],
    ['<@U0DOCSBOT> explain how billing works'],
    ['Where’s the quickstart?'],
  ])('a question: %s', (text) => {
    expect(classifyMention(text)).toBe('question');
  });

  it.each([
    ['<@U0DOCSBOT> add a quickstart for the Python SDK'],
    ['Fix the typo on the billing page'],
    ['please add a note about SCIM, what do you think?'],
    ['can you add an example to the webhooks page?'],
    ['could you please update the rate limits page?'],
    ['Document the new `acme logs` flags'],
    ['Add a FAQ entry: how do I rotate a key?'],
    ['the webhooks page should mention retries'],
    ['hi <@U0DOCSBOT> update the SSO page for Entra ID'],
  ])('a docs change: %s', (text) => {
    expect(classifyMention(text)).toBe('change');
  });

  it('ignores mentions, links and inline code when reading the first word', () => {
    expect(classifyMention('<@U0DOCSBOT> <#C123|docs> how do I log in?')).toBe('question');
    expect(classifyMention('`how` to use the flags: add it to the CLI page')).toBe('change');
  });
});
