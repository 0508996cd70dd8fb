import { startFakeDocsApi, type FakeDocsApi, type FakeDocsApiOptions } from '../../sandbox/fake-docs-api.js';
import { DocsApiClient, type DocsApiClientOptions } from '../../src/platform/docs-api/client.js';

/** The fake docs API and a client at it, for checking the client's traffic against the vendor's spec. */
export interface ContractDocsApi {
  fake: FakeDocsApi;
  client: DocsApiClient;
}

/**
 * Starts the fake docs API with key `mint_contract` and project `proj_1` (plus `fake`'s options) and
 * a DocsApiClient of that key and project at it (plus `client`'s options). Close with
 * {@link closeContractDocsApi}.
 */
export async function startContractDocsApi(
  fake: Partial<FakeDocsApiOptions> = {},
  client: Partial<DocsApiClientOptions> = {},
): Promise<ContractDocsApi> {
  const started = await startFakeDocsApi({ apiKey: 'mint_contract', projectId: 'proj_1', ...fake });
  return {
    fake: started,
    client: new DocsApiClient({ baseUrl: started.url, apiKey: 'mint_contract', projectId: 'proj_1', ...client }),
  };
}

/** Closes the client, then the fake. */
export async function closeContractDocsApi({ fake, client }: ContractDocsApi): Promise<void> {
  await client.close();
  await fake.close();
}
