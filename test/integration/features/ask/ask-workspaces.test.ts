import { WebClient } from '@slack/web-api';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDocsApi } from '../../../../sandbox/fake-docs-api.js';
import type { FakeSlack } from '../../../../sandbox/fake-slack.js';
import { writeAnswer, type AnswerDeps, type StreamSlack } from '../../../../src/features/ask/answer/index.js';
import { AskStore } from '../../../../src/features/ask/store.js';
import { KEY_REFUSED_TEXT } from '../../../../src/features/ask/texts.js';
import { readConfig } from '../../../../src/platform/config.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { BotMetrics } from '../../../../src/platform/metrics.js';
import { withRequestContext } from '../../../../src/platform/request-context.js';
import { discoveryClient, docsWorkspacesOf } from '../../../../src/platform/runtime.js';
import { memorySteps } from '../../../../src/platform/steps.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { closeSlackAndDocsFakes, startSlackAndDocsFakes } from '../../../helpers/slack-and-docs-fakes.js';

/*
 * Asking in a workspace mapped to a docs site of its own (DOCS_WORKSPACE_PROJECTS T0BETA →
 * beta-site, its assistant key in DOCS_ASSISTANT_API_KEY_BETA), answered end to end by
 * writeAnswer on the fake Slack and the fake discovery API (which serves beta-site only, with
 * Beta's key): Beta's question goes to Beta's site only, never the default one; when Beta's key or
 * domain is wrong, the operator's log line names Beta's settings, not the defaults'.
 */

const TOKEN = 'xoxb-ask-workspaces';
const BETA_ASSIST = 'mint_dsc_beta_assistant';
const redis = testRedis();
const prefix = randomPrefix();
let slack: FakeSlack;
let docs: FakeDocsApi;
let web: WebClient;

beforeAll(async () => {
  ({ slack, docs, web } = await startSlackAndDocsFakes(TOKEN, {
    apiKey: 'mint_admin',
    projectId: 'proj_a',
    discovery: { apiKey: BETA_ASSIST, domain: 'beta-site' },
  }));
});
afterAll(async () => {
  await closeSlackAndDocsFakes({ slack, docs });
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

/** The bot's asking for Beta as configured by `beta` (its entry's overrides), and the log lines it writes. */
function asking(beta: { key?: string; domain?: string; siteUrl?: string } = {}) {
  const config = readConfig({
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: 'secret',
    DOCS_API_URL: docs.url,
    DOCS_API_KEY: 'mint_admin',
    DOCS_PROJECT_ID: 'proj_a',
    DOCS_DISCOVERY_URL: `${docs.url}/discovery`,
    DOCS_ASSISTANT_API_KEY: 'mint_dsc_default_site',
    DOCS_DOMAIN: 'alpha-site',
    DOCS_SITE_URL: 'https://docs.alpha.test',
    DOCS_API_KEY_BETA: 'mint_beta_admin',
    DOCS_ASSISTANT_API_KEY_BETA: beta.key ?? BETA_ASSIST,
    DOCS_WORKSPACE_PROJECTS: JSON.stringify({
      T0BETA: {
        projects: ['proj_b'],
        apiKeyEnv: 'DOCS_API_KEY_BETA',
        domain: beta.domain ?? 'beta-site',
        assistantKeyEnv: 'DOCS_ASSISTANT_API_KEY_BETA',
        ...(beta.siteUrl ? { siteUrl: beta.siteUrl } : {}),
      },
    }),
  });
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) } as never);
  const workspaces = docsWorkspacesOf(config);
  const discovery = discoveryClient(config, new BotMetrics({ registry: new Registry() }), workspaces)!;
  const deps: AnswerDeps = {
    discovery,
    store: new AskStore(redis, prefix),
    writer: {
      slack: web as unknown as StreamSlack,
      budget: { take: async () => ({ ok: true as const }) },
      logger,
      now: Date.now,
    },
    signer: TEST_SIGNER,
    // As the ask feature reads it: the current workspace's site (its entry's siteUrl, else DOCS_SITE_URL).
    siteUrl: () => workspaces.currentSiteUrl(),
    fingerprint: (t, u) => `fp-${t}-${u}`,
    logger,
    now: Date.now,
  };
  return { deps, lines, close: () => discovery.close() };
}

let n = 0;
/** Asks `question` in a new thread of #docs as a person of `teamId`, in that workspace's request. */
async function ask(deps: AnswerDeps, teamId: string, question: string) {
  n += 1;
  const root = (await web.chat.postMessage({ channel: 'C0DOCS', text: question })).ts!;
  const q = { teamId, channel: 'C0DOCS', threadTs: root, asker: 'U0ALICE', question, key: `q${n}`, since: Date.now() };
  return withRequestContext({ requestId: `r${n}`, teamId }, () => writeAnswer(deps, q, memorySteps()));
}

/** What the bot sent Slack since call `from`: the answer's text and blocks, as one string. */
const sentSince = (from: number) =>
  JSON.stringify(
    slack.calls
      .slice(from)
      .filter((c) => /^chat\.(startStream|appendStream|stopStream|postMessage|update)$/.test(c.method))
      .map((c) => [c.args.markdown_text, c.args.text, c.args.blocks]),
  );

const since = (from: number) => docs.requests.slice(from).map((r) => `${r.method} ${r.path} ${r.status}`);

describe('asking in a workspace with a docs site of its own', () => {
  it("Beta's question is answered from Beta's site with Beta's key, and nothing reaches the default site or project", async () => {
    const { deps, lines, close } = asking();
    const from = docs.requests.length;
    const result = await ask(deps, 'T0BETA', 'How do I rotate a key?');
    expect(result.tell).toBeUndefined();
    expect(since(from)).toEqual(['POST /discovery/v2/assistant/beta-site/message 200']);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    await close();
  });

  it("a key Beta's site refuses: the log names DOCS_ASSISTANT_API_KEY_BETA and Beta's entry", async () => {
    const { deps, lines, close } = asking({ key: 'mint_dsc_beta_revoked' });
    const from = docs.requests.length;
    expect(await ask(deps, 'T0BETA', 'Where are the webhooks?')).toEqual({ outcome: 'failed', tell: KEY_REFUSED_TEXT });
    expect(since(from)).toEqual(['POST /discovery/v2/assistant/beta-site/message 401']);
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([
      'the discovery API refused DOCS_ASSISTANT_API_KEY_BETA (DOCS_WORKSPACE_PROJECTS T0BETA.assistantKeyEnv) (401/403): check the assistant API key',
    ]);
    await close();
  });

  it("a domain the discovery API doesn't know: the log names Beta's entry's domain; an unmapped workspace's names DOCS_DOMAIN", async () => {
    const { deps, lines, close } = asking({ domain: 'beta-gone' });
    await ask(deps, 'T0BETA', 'Where are the webhooks?');
    // Alpha (unmapped) asks the default site, which the fake doesn't serve with the default key: 401, named as before.
    await ask(deps, 'T0ALPHA', 'Where are the webhooks?');
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([
      'the discovery API does not know DOCS_WORKSPACE_PROJECTS T0BETA.domain (404): check the docs site domain',
      'the discovery API refused DOCS_ASSISTANT_API_KEY (401/403): check the assistant API key',
    ]);
    await close();
  });

  it("Beta's answer links Beta's own site (siteUrl): its sources and its text, and a link to the default site is text", async () => {
    const migrate = {
      path: '/migrate',
      title: 'Moving to Beta',
      keywords: ['migrate'],
      content: 'Read [the old guide](https://docs.alpha.test/old) and [the new one](https://docs.beta.test/new).',
    };
    docs.discovery.pages.push(migrate);
    try {
      const { deps, lines, close } = asking({ siteUrl: 'https://docs.beta.test' });
      const from = slack.calls.length;
      expect((await ask(deps, 'T0BETA', 'How do I migrate?')).tell).toBeUndefined();
      const sent = sentSince(from);
      expect(sent).toContain('[the new one](https://docs.beta.test/new)');
      expect(sent).toContain('[Moving to Beta](https://docs.beta.test/migrate)');
      expect(sent).toContain('<https://docs.beta.test/migrate|Moving to Beta>');
      expect(sent).not.toMatch(/\]\(https:\/\/docs\.alpha|<https:\/\/docs\.alpha/);
      expect(sent).toContain('the old guide');
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
      await close();
      // An entry without siteUrl keeps DOCS_SITE_URL: the same answer links the default site.
      const plain = asking();
      const before = slack.calls.length;
      await ask(plain.deps, 'T0BETA', 'How do I migrate?');
      expect(sentSince(before)).toContain('<https://docs.alpha.test/migrate|Moving to Beta>');
      expect(sentSince(before)).not.toContain('https://docs.beta.test');
      await plain.close();
    } finally {
      docs.discovery.pages.splice(docs.discovery.pages.indexOf(migrate), 1);
    }
  });
});
