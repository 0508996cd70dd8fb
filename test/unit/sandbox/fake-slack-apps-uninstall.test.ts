import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { fakeSlackClient, platformErrorCode } from '../../helpers/fake-slack-client.js';

/*
 * The fake Slack's apps.uninstall (docs.slack.dev/reference/methods/apps.uninstall): the app's
 * client_id and client_secret with a token of one installation revoke every token of that
 * installation, and no other's.
 */
const TOKEN = 'xoxb-sandbox-token';
const OAUTH = { clientId: '1111.2222', clientSecret: 'apps-uninstall-secret' };
let slack: FakeSlack;

beforeEach(async () => {
  slack = await startFakeSlack({
    botToken: TOKEN,
    oauth: OAUTH,
    enterprise: { id: 'E0ORG', name: 'Org', teams: [{ id: 'T0ORGA', name: 'Org A' }] },
  });
});
afterEach(async () => {
  await slack.close();
});

/** A bot token the fake's oauth.v2.access issues for `consent`. */
async function installToken(consent: Parameters<FakeSlack['installs']['authorize']>[0]): Promise<string> {
  const code = slack.installs.authorize(consent);
  const body = new URLSearchParams({ client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret, code });
  const res = (await (await fetch(`${slack.url}oauth.v2.access`, { method: 'POST', body })).json()) as {
    access_token: string;
  };
  return res.access_token;
}

/** auth.test with `token`: its error code, or 'ok'. */
const authTest = (token: string) =>
  fakeSlackClient(slack, token)
    .auth.test()
    .then(
      () => 'ok',
      (err: { data?: { error?: string } }) => err.data?.error,
    );

describe('fake Slack: apps.uninstall', () => {
  it("revokes every token of the token's installation (a reinstall's too), and only those", async () => {
    const first = await installToken({ teamId: 'T0STRANGER' });
    const again = await installToken({ teamId: 'T0STRANGER' });
    const other = await installToken({ teamId: 'T0OTHER' });
    const res = await fakeSlackClient(slack, first).apps.uninstall({
      client_id: OAUTH.clientId,
      client_secret: OAUTH.clientSecret,
    });
    expect(res.ok).toBe(true);
    expect(await authTest(first)).toBe('token_revoked');
    expect(await authTest(again)).toBe('token_revoked');
    expect(await authTest(other)).toBe('ok');
    expect(slack.installs.issued().map((t) => t.teamId)).toEqual(['T0OTHER']);
    const call = slack.calls.find((c) => c.method === 'apps.uninstall');
    expect(call?.tokenTeam).toBe('T0STRANGER');
  });

  it('takes a JSON body too, and uninstalls an org-wide install by its org', async () => {
    const org = await installToken({ teamId: 'T0ORGA', enterpriseId: 'E0ORG', orgWide: true });
    const res = await fetch(`${slack.url}apps.uninstall`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret }),
    });
    expect(await res.json()).toEqual({ ok: true });
    expect(await authTest(org)).toBe('token_revoked');
  });

  it("refuses without the app's credentials or a token of its install, revoking nothing", async () => {
    const token = await installToken({ teamId: 'T0STRANGER' });
    const web = fakeSlackClient(slack, token);
    expect(await platformErrorCode(web.apps.uninstall({ client_id: '9.9', client_secret: OAUTH.clientSecret }))).toBe(
      'invalid_client_id',
    );
    expect(await platformErrorCode(web.apps.uninstall({ client_id: OAUTH.clientId, client_secret: 'wrong' }))).toBe(
      'bad_client_secret',
    );
    const creds = { client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret };
    // The fake's own single-token bot token is not a token oauth.v2.access issued to the app.
    expect(await platformErrorCode(fakeSlackClient(slack, TOKEN).apps.uninstall(creds))).toBe(
      'client_id_token_mismatch',
    );
    expect(await platformErrorCode(fakeSlackClient(slack, 'xoxb-never-issued').apps.uninstall(creds))).toBe(
      'invalid_auth',
    );
    expect(await authTest(token)).toBe('ok');
    // Once uninstalled, its token can't uninstall again.
    await web.apps.uninstall(creds);
    expect(await platformErrorCode(web.apps.uninstall(creds))).toBe('token_revoked');
  });
});
