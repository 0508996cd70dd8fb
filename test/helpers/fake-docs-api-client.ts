import { startFakeDocsApi, type FakeDocsApi, type FakeDocsApiOptions } from '../../sandbox/fake-docs-api.js';
import type { Dispatcher } from 'undici';
import { DocsApiClient, type DocsApiClientOptions } from '../../src/platform/docs-api/client.js';

/** The fake docs API and a real client at it. */
export interface FakeDocsApiWithClient {
  fake: FakeDocsApi;
  client: DocsApiClient;
}

/**
 * A DocsApiClient at the fake docs API with the given key and project; `options` adds to or
 * replaces these (e.g. `retryMinDelayMs: 1` to retry at once).
 */
export function fakeDocsApiClient(
  fake: Pick<FakeDocsApi, 'url'>,
  options: Pick<DocsApiClientOptions, 'apiKey' | 'projectId'> & Partial<DocsApiClientOptions>,
): DocsApiClient {
  return new DocsApiClient({ baseUrl: fake.url, ...options });
}

/**
 * Starts the fake docs API with `fake`'s options and a DocsApiClient at it with the same key and
 * project (plus `client`'s options). Close with {@link closeFakeDocsApiWithClient}.
 */
export async function startFakeDocsApiWithClient(
  fake: FakeDocsApiOptions,
  client: Partial<DocsApiClientOptions> = {},
): Promise<FakeDocsApiWithClient> {
  const started = await startFakeDocsApi(fake);
  return {
    fake: started,
    client: fakeDocsApiClient(started, { apiKey: fake.apiKey, projectId: fake.projectId, ...client }),
  };
}

/** Closes the client, then the fake. */
export async function closeFakeDocsApiWithClient({ fake, client }: FakeDocsApiWithClient): Promise<void> {
  await client.close();
  await fake.close();
}

/** The base URL of the docs API in the tests that answer it with undici's MockAgent. */
export const MOCKED_DOCS_API_URL = 'https://api.mintlify.test';

/**
 * A DocsApiClient of project `proj 1` at {@link MOCKED_DOCS_API_URL} whose requests go to
 * `dispatcher` (undici's MockAgent), timing out after 200 ms and retrying at once; `options` adds
 * to or replaces these.
 */
export function mockedDocsApiClient(
  dispatcher: Dispatcher,
  apiKey: string,
  options: Partial<DocsApiClientOptions> = {},
): DocsApiClient {
  return new DocsApiClient({
    baseUrl: MOCKED_DOCS_API_URL,
    apiKey,
    projectId: 'proj 1',
    dispatcher,
    timeoutMs: 200,
    retryMinDelayMs: 1,
    ...options,
  });
}
