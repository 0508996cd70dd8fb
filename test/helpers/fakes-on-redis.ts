import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { FakeDocsApiOptions } from '../../sandbox/fake-docs-api.js';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions } from '../../sandbox/fake-slack.js';
import type { DocsApiClientOptions } from '../../src/platform/docs-api/client.js';
import {
  closeFakeDocsApiWithClient,
  startFakeDocsApiWithClient,
  type FakeDocsApiWithClient,
} from './fake-docs-api-client.js';
import { fakeSlackClient } from './fake-slack-client.js';
import { dropPrefix, randomPrefix } from './redis.js';

/*
 * The set-up integration files share when they run a feature over one fake and real Redis, as
 * vitest hooks: call one at the top of a file. Each test gets a fresh key prefix (handed to `use`
 * in a `beforeEach`, so a file's own `beforeEach`, registered after it, sees it), whose keys are
 * dropped after it; after the file, the fake is closed and the file's `redis` disconnected.
 */

/** What {@link useFakeSlackOnRedis} hands each test. */
export interface FakeSlackOnRedis {
  slack: FakeSlack;
  /** A {@link fakeSlackClient} of the bot token at `slack`. */
  web: WebClient;
  prefix: string;
}

/**
 * One fake Slack for the file (bot token `token`, and `slack`'s other options: channels, users,
 * clock), a client of it, and a fresh prefix on `redis` for each test; see the notes above.
 */
export function useFakeSlackOnRedis(
  o: { token: string; redis: Redis; slack?: Omit<FakeSlackOptions, 'botToken'> },
  use: (s: FakeSlackOnRedis) => void,
): void {
  let slack: FakeSlack | undefined;
  let web: WebClient;
  let prefix: string;
  beforeAll(async () => {
    slack = await startFakeSlack({ ...o.slack, botToken: o.token });
    web = fakeSlackClient(slack, o.token);
  });
  afterAll(async () => {
    await slack?.close();
    o.redis.disconnect();
  });
  beforeEach(() => {
    prefix = randomPrefix();
    use({ slack: slack!, web, prefix });
  });
  afterEach(() => dropPrefix(o.redis, prefix));
}

/** What {@link useFakeDocsApiOnRedis} hands each test. */
export interface FakeDocsApiOnRedis extends FakeDocsApiWithClient {
  prefix: string;
}

/**
 * One fake docs API for the file (`fake`'s options) and a client of it (its key and project, plus
 * `client`'s options), its request log emptied and a fresh prefix on `redis` for each test; see
 * the notes above.
 */
export function useFakeDocsApiOnRedis(
  o: { fake: FakeDocsApiOptions; client?: Partial<DocsApiClientOptions>; redis: Redis },
  use: (s: FakeDocsApiOnRedis) => void,
): void {
  let started: FakeDocsApiWithClient | undefined;
  let prefix: string;
  beforeAll(async () => {
    started = await startFakeDocsApiWithClient(o.fake, o.client);
  });
  afterAll(async () => {
    if (started) await closeFakeDocsApiWithClient(started);
    o.redis.disconnect();
  });
  beforeEach(() => {
    prefix = randomPrefix();
    started!.fake.requests.length = 0;
    use({ ...started!, prefix });
  });
  afterEach(() => dropPrefix(o.redis, prefix));
}
