import { readFileSync } from 'node:fs';
import { WebClient, type WebAPIPlatformError } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { fakeSlackClient } from '../../helpers/fake-slack-client.js';

/*
 * trigger_ids and OAuth scopes as Slack enforces them, on the fake's own clock (no waiting):
 * a trigger_id opens a view once, within 3 s of the interaction; a bot token calls only the methods
 * its scopes (by default manifest.yml's) cover, and is told which scope is missing.
 */

const TOKEN = 'xoxb-triggers-scopes';
const T0 = 1_700_000_000_000;
let slack: FakeSlack;
let clock = T0;

async function start(scopes?: string[]): Promise<WebClient> {
  clock = T0;
  slack = await startFakeSlack({ botToken: TOKEN, now: () => clock, ...(scopes ? { scopes } : {}) });
  return fakeSlackClient(slack, TOKEN);
}
afterEach(() => slack.close());

async function refusal(p: Promise<unknown>): Promise<Record<string, unknown> | undefined> {
  return p.then(
    () => undefined,
    (e: WebAPIPlatformError) => e.data as unknown as Record<string, unknown>,
  );
}

const modal = { type: 'modal', title: { type: 'plain_text', text: 'Docs' }, blocks: [] } as never;

describe('fake Slack: trigger_ids', () => {
  it('opens a view within 3 s of the interaction; a moment later the trigger_id has expired', async () => {
    const web = await start();
    const fresh = slack.triggerId('U0ALICE');
    const stale = slack.triggerId('U0ALICE');
    clock += 3_000;
    expect(await refusal(web.views.open({ trigger_id: fresh, view: modal }))).toBeUndefined();
    clock += 1;
    expect(await refusal(web.views.open({ trigger_id: stale, view: modal }))).toMatchObject({
      ok: false,
      error: 'expired_trigger_id',
    });
    expect(slack.views.map((v) => v.triggerId)).toEqual([fresh]);
  });

  it('a trigger_id is exchanged once (exchanged_trigger_id after, views.push too); one never minted is invalid', async () => {
    const web = await start();
    const t = slack.triggerId('U0BOB');
    await web.views.open({ trigger_id: t, view: modal });
    expect((await refusal(web.views.open({ trigger_id: t, view: modal })))?.error).toBe('exchanged_trigger_id');
    expect((await refusal(web.views.push({ trigger_id: t, view: modal })))?.error).toBe('exchanged_trigger_id');
    expect((await refusal(web.views.open({ trigger_id: '1.2.made-up', view: modal })))?.error).toBe(
      'invalid_trigger_id',
    );
    expect(slack.views).toHaveLength(1);
  });

  it('a refused view leaves the trigger_id usable for a corrected one', async () => {
    const web = await start();
    const t = slack.triggerId('U0ALICE');
    const bad = { ...(modal as object), title: { type: 'plain_text', text: 'x'.repeat(25) } } as never;
    expect((await refusal(web.views.open({ trigger_id: t, view: bad })))?.error).toBe('invalid_arguments');
    expect(await refusal(web.views.open({ trigger_id: t, view: modal }))).toBeUndefined();
  });
});

describe('fake Slack: scopes', () => {
  const manifestScopes = (
    parse(readFileSync(new URL('../../../manifest.yml', import.meta.url), 'utf8')) as {
      oauth_config: { scopes: { bot: string[] } };
    }
  ).oauth_config.scopes.bot;

  it("grants manifest.yml's bot scopes by default, and says so on every answer (x-oauth-scopes)", async () => {
    const web = await start();
    expect([...slack.scopes].sort()).toEqual([...new Set(manifestScopes)].sort());
    const res = await web.chat.postMessage({ channel: 'C0DOCS', text: 'hi' });
    expect(res.response_metadata?.scopes?.sort()).toEqual([...new Set(manifestScopes)].sort());
    expect(res.response_metadata?.acceptedScopes).toEqual(['chat:write']);
  });

  it('a call its scopes do not cover: missing_scope with needed and provided, and nothing happens', async () => {
    const web = await start(['chat:write', 'users:read']);
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'hi' });
    expect(await refusal(web.reactions.add({ channel: 'C0DOCS', timestamp: posted.ts!, name: 'eyes' }))).toMatchObject({
      ok: false,
      error: 'missing_scope',
      needed: 'reactions:write',
      provided: 'chat:write,users:read',
    });
    expect(slack.findMessage('C0DOCS', posted.ts!)?.reactions).toEqual([]);
    // Revoked while running: the next call is refused.
    slack.scopes.delete('chat:write');
    expect((await refusal(web.chat.postMessage({ channel: 'C0DOCS', text: 'again' })))?.needed).toBe('chat:write');
    expect(slack.messages).toHaveLength(1);
  });

  it("conversations need the scope of the conversation's type; users.conversations those of every type asked for", async () => {
    const web = await start(['channels:history', 'channels:read']);
    await web.chat.postMessage({ channel: 'C0DOCS', text: 'x' }).catch(() => undefined);
    expect(await refusal(web.conversations.history({ channel: 'C0DOCS' }))).toBeUndefined();
    expect((await refusal(web.conversations.history({ channel: 'D0ALICE' })))?.needed).toBe('im:history');
    expect((await refusal(web.conversations.info({ channel: 'C0LEADS' })))?.needed).toBe('groups:read');
    expect(await refusal(web.users.conversations({ user: 'U0ALICE' }))).toBeUndefined();
    expect(
      (await refusal(web.users.conversations({ user: 'U0ALICE', types: 'public_channel,private_channel,im,mpim' })))
        ?.needed,
    ).toBe('groups:read,im:read,mpim:read');
  });

  it('methods without a scope (auth.test, views.*) and the app-level token are not checked', async () => {
    const web = await start([]);
    expect((await web.auth.test()).ok).toBe(true);
    expect((await web.views.publish({ user_id: 'U0ALICE', view: { type: 'home', blocks: [] } })).ok).toBe(true);
  });
});
