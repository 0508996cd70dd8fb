import type { WebClient } from '@slack/web-api';
import { startFakeDocsApi, type FakeDocsApi, type FakeDocsApiOptions } from '../../sandbox/fake-docs-api.js';
import { startFakeSlack, type FakeSlack } from '../../sandbox/fake-slack.js';
import { fakeSlackClient } from './fake-slack-client.js';

/** The fake Slack, the fake docs API and a WebClient of the bot token at the fake Slack. */
export interface SlackAndDocsFakes {
  slack: FakeSlack;
  docs: FakeDocsApi;
  web: WebClient;
}

/**
 * Starts the fake Slack (taking `botToken`) and the fake docs API (`docs`'s options), and a
 * {@link fakeSlackClient} of `botToken`. Close with {@link closeSlackAndDocsFakes}.
 */
export async function startSlackAndDocsFakes(botToken: string, docs: FakeDocsApiOptions): Promise<SlackAndDocsFakes> {
  const slack = await startFakeSlack({ botToken });
  return { slack, docs: await startFakeDocsApi(docs), web: fakeSlackClient(slack, botToken) };
}

/** Closes the fake Slack, then the fake docs API. */
export async function closeSlackAndDocsFakes({
  slack,
  docs,
}: Pick<SlackAndDocsFakes, 'slack' | 'docs'>): Promise<void> {
  await slack.close();
  await docs.close();
}
