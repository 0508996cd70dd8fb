import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SettingsService, SettingsStore, usersInfoAdminCheck } from '../../../../src/features/settings/index.js';
import { checkEvictionPolicy } from '../../../../src/platform/redis.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

const redis = testRedis();
let prefix: string;
let store: SettingsStore;

beforeEach(() => {
  prefix = randomPrefix();
  store = new SettingsStore(redis, prefix);
});
afterEach(async () => {
  await dropPrefix(redis, prefix);
});
afterAll(() => redis.disconnect());

function service(isSettingsAdmin: (user: string) => Promise<boolean>, projects = ['proj_a', 'proj_b'], asking = true) {
  const log = arrayLogger();
  const svc = new SettingsService({
    store,
    projects,
    defaultFollowupPolicy: 'anyone',
    adminUsers: ['U0SETTINGS'],
    asking,
    isSettingsAdmin,
    logger: log.logger,
    now: () => 1_700_000_000_000,
  });
  return { svc, audits: () => log.lines.filter((l) => l.audit === true) };
}

describe('channel settings on real Redis', () => {
  it("keeps each channel's settings apart, under QUEUE_PREFIX, without TTL", async () => {
    await store.update('C1', { projectId: 'proj_b' }, 'U0ADMIN', 1_000);
    await store.update('C2', { followupPolicy: 'requester' }, 'U0ADMIN', 2_000);

    expect(await store.get('C1')).toEqual({ projectId: 'proj_b', updatedBy: 'U0ADMIN', updatedAt: 1_000 });
    expect(await store.get('C2')).toEqual({ followupPolicy: 'requester', updatedBy: 'U0ADMIN', updatedAt: 2_000 });
    expect(await store.get('C3')).toEqual({});
    expect(store.key('C1')).toBe(`${prefix}:settings:channel:C1`);
    expect(await redis.ttl(store.key('C1'))).toBe(-1); // no expiry
    expect(await redis.ttl(store.key('C2'))).toBe(-1);
  });

  it('a later change keeps what it does not name, and null goes back to the default', async () => {
    await store.update('C1', { projectId: 'proj_b', followupPolicy: 'requester' }, 'U1', 1);
    await store.update('C1', { followupPolicy: null }, 'U2', 2);
    expect(await store.get('C1')).toEqual({ projectId: 'proj_b', updatedBy: 'U2', updatedAt: 2 });
    expect(await redis.ttl(store.key('C1'))).toBe(-1);
  });

  it("a channel's mentions mode: auto by default, ask or edit when set, auto again after default; an unknown stored value reads as auto", async () => {
    const { svc } = service(async () => true);
    expect(await svc.mentionsModeFor('C1')).toBe('auto');
    await store.update('C1', { mentions: 'ask' }, 'U1', 1);
    expect(await svc.mentionsModeFor('C1')).toBe('ask');
    await store.update('C1', { mentions: null }, 'U1', 2);
    expect(await svc.mentionsModeFor('C1')).toBe('auto');
    await redis.hset(store.key('C2'), { mentions: 'sometimes' });
    expect(await svc.mentionsModeFor('C2')).toBe('auto');
  });

  it('a question channel and a docs scope: set, announced with what changed, off again; a damaged scope reads as none', async () => {
    const { svc, audits } = service(async () => true);
    expect(await svc.answersAllIn('C1')).toBe(false);
    expect(await svc.scopeFor('C1')).toBeUndefined();
    const on = await svc.change('U1', 'C1', { answerAll: true }, 'settings.answer-all');
    expect(on).toMatchObject({ outcome: 'changed', text: expect.stringContaining('answer-all: every new message') });
    const scope = { version: 'v2', groups: ['staff'] };
    const scoped = await svc.change('U1', 'C1', { scope }, 'settings.scope');
    expect(scoped.text).toContain('answered from version `v2`, groups `staff` (was all the docs)');
    expect(await svc.answersAllIn('C1')).toBe(true);
    expect(await svc.scopeFor('C1')).toEqual(scope);
    expect((await svc.change('U1', 'C1', { scope }, 'settings.scope')).outcome).toBe('unchanged');
    await svc.change('U1', 'C1', { answerAll: false, scope: null }, 'settings.edit');
    expect(await store.get('C1')).toEqual({ updatedBy: 'U1', updatedAt: 1_700_000_000_000 });
    expect(audits().map((a) => [a.action, a.outcome, a.to])).toEqual([
      ['settings.answer-all', 'changed', 'answerAll=true'],
      ['settings.scope', 'changed', 'scope={"version":"v2","groups":["staff"]}'],
      ['settings.scope', 'unchanged', undefined],
      ['settings.edit', 'changed', 'answerAll=false,scope=all'],
    ]);
    await redis.hset(store.key('C2'), { scope: '{"version":7', answerAll: 'yes' });
    expect(await svc.scopeFor('C2')).toBeUndefined();
    expect(await svc.answersAllIn('C2')).toBe(false);
  });

  it('a docs team is checked for admins only, after the admin check; a problem refuses and changes nothing', async () => {
    const checked: string[] = [];
    const check = async () => {
      checked.push('checked');
      return "I'm not in <#C0X>: invite me there first.";
    };
    const team = { experts: { kind: 'channel' as const, id: 'C0X' } };
    const { svc: member } = service(async () => false);
    expect((await member.change('U1', 'C1', team, 'settings.experts', check)).outcome).toBe('refused');
    expect(checked).toEqual([]);
    const { svc, audits } = service(async () => true);
    const refused = await svc.change('U1', 'C1', team, 'settings.experts', check);
    expect(refused).toEqual({
      outcome: 'refused',
      text: ":warning: I'm not in <#C0X>: invite me there first. Nothing was changed.",
    });
    expect(await svc.expertsFor('C1')).toBeUndefined();
    const ok = await svc.change('U1', 'C1', team, 'settings.experts', async () => undefined);
    expect(ok.text).toContain('unanswered questions go to <#C0X> (was no one)');
    expect(await svc.expertsFor('C1')).toEqual({ kind: 'channel', id: 'C0X' });
    expect(audits().map((a) => [a.action, a.outcome])).toEqual([
      ['settings.experts', 'refused'],
      ['settings.experts', 'changed'],
    ]);
  });

  it("effective settings: the channel's own, else the defaults; a project no longer configured falls back to the default", async () => {
    const { svc } = service(async () => true);
    expect(await svc.projectFor('C1')).toBe('proj_a');
    expect(await svc.followupPolicyFor('C1')).toBe('anyone');
    await store.update('C1', { projectId: 'proj_b', followupPolicy: 'requester' }, 'U1', 1);
    expect(await svc.projectFor('C1')).toBe('proj_b');
    expect(await svc.followupPolicyFor('C1')).toBe('requester');
    await redis.hset(store.key('C2'), { projectId: 'proj_gone', followupPolicy: 'everyone' });
    expect(await svc.effective('C2')).toMatchObject({
      projectId: 'proj_a',
      projectIsDefault: true,
      staleProjectId: 'proj_gone',
      followupPolicy: 'anyone',
      followupIsDefault: true,
    });
  });

  it("an admin's change is saved and audited; a non-admin's is refused and changes nothing; a failed check changes nothing (fail closed)", async () => {
    const isAdmin = vi.fn(async (user: string) => {
      if (user === 'U0BROKEN') throw new Error('users.info failed');
      return user === 'U0ADMIN';
    });
    const { svc, audits } = service(isAdmin);

    const changed = await svc.change('U0ADMIN', 'C1', { projectId: 'proj_b' }, 'settings.project');
    expect(changed).toMatchObject({
      outcome: 'changed',
      text: ":gear: <@U0ADMIN> changed this channel's settings: docs project `proj_b` (was `proj_a`).",
    });
    const refused = await svc.change('U0ALICE', 'C1', { projectId: 'proj_a' }, 'settings.project');
    expect(refused).toEqual({
      outcome: 'refused',
      text: "You can't change this channel's settings. Workspace admins and <@U0SETTINGS> can change them: ask one of them. Nothing was changed.",
    });
    const failed = await svc.change('U0BROKEN', 'C1', { projectId: 'proj_a' }, 'settings.project');
    expect(failed).toEqual({ outcome: 'error', text: "I couldn't check your access, try again. Nothing was changed." });
    expect(await svc.change('U0ADMIN', 'C1', { projectId: 'proj_b' }, 'settings.project')).toMatchObject({
      outcome: 'unchanged',
    });

    expect(await svc.projectFor('C1')).toBe('proj_b');
    expect(
      audits().map(({ actor, channel, action, outcome, reason, from, to }) => ({
        actor,
        channel,
        action,
        outcome,
        reason,
        from,
        to,
      })),
    ).toEqual([
      {
        actor: 'U0ADMIN',
        channel: 'C1',
        action: 'settings.project',
        outcome: 'changed',
        reason: undefined,
        from: 'project=proj_a',
        to: 'project=proj_b',
      },
      {
        actor: 'U0ALICE',
        channel: 'C1',
        action: 'settings.project',
        outcome: 'refused',
        reason: 'not_admin',
        from: undefined,
        to: undefined,
      },
      {
        actor: 'U0BROKEN',
        channel: 'C1',
        action: 'settings.project',
        outcome: 'error',
        reason: 'check_failed',
        from: undefined,
        to: undefined,
      },
      {
        actor: 'U0ADMIN',
        channel: 'C1',
        action: 'settings.project',
        outcome: 'unchanged',
        reason: undefined,
        from: undefined,
        to: undefined,
      },
    ]);
  });

  it('while asking the docs is off, mentions and answer-all are saved but say they have no effect, and who sets asking up', async () => {
    const { svc } = service(async () => true, undefined, false);
    const on = await svc.change('U1', 'C1', { answerAll: true }, 'settings.answer-all');
    expect(on.text).toBe(
      ":gear: <@U1> changed this channel's settings: answer-all: on (was off). Saved, but it has no effect until " +
        'asking the docs is set up (the people who run Docs Agent set it up): until then a mention always starts a ' +
        'docs job and no message is answered as a question.',
    );
    expect(await svc.answersAllIn('C1')).toBe(true);
    const edit = await svc.change('U1', 'C1', { mentions: 'ask' }, 'settings.mentions');
    expect(edit.text).toMatch(
      /^:gear: <@U1> changed this channel's settings: mentions: `ask` \(was auto\)\. Saved, but it has no effect/,
    );
    const again = await svc.change('U1', 'C1', { mentions: 'ask' }, 'settings.mentions');
    expect(again.text).toMatch(
      /^This channel already has mentions `ask`\. It has no effect until asking the docs is set up/,
    );
    // A project change says nothing of asking.
    const project = await svc.change('U1', 'C1', { projectId: 'proj_b' }, 'settings.project');
    expect(project.text).toBe(":gear: <@U1> changed this channel's settings: docs project `proj_b` (was `proj_a`).");
  });

  it('"already" names the setting asked about', async () => {
    const { svc } = service(async () => true);
    await svc.change('U1', 'C1', { followupPolicy: 'requester' }, 'settings.followups');
    const again = await svc.change('U1', 'C1', { followupPolicy: 'requester' }, 'settings.followups');
    expect(again).toEqual({ outcome: 'unchanged', text: 'This channel already has follow-ups by requester.' });
    const mentions = await svc.change('U1', 'C1', { mentions: null }, 'settings.mentions');
    expect(mentions.text).toBe('This channel already has mentions `auto`.');
    const project = await svc.change('U1', 'C1', { projectId: null }, 'settings.project');
    expect(project.text).toBe('This channel already has docs project `proj_a` (the default project).');
    const off = await svc.change('U1', 'C1', { answerAll: false }, 'settings.answer-all');
    expect(off.text).toBe('This channel already has answer-all off.');
  });

  it('going back to the workspace default with the same value is a change, told and audited (not "already")', async () => {
    const { svc, audits } = service(async () => true);
    await svc.change('U1', 'C1', { projectId: 'proj_a', followupPolicy: 'anyone' }, 'settings.edit');
    expect(await svc.effective('C1')).toMatchObject({ projectFollowsDefault: false, followupIsDefault: false });
    const back = await svc.change('U1', 'C1', { projectId: null, followupPolicy: null }, 'settings.edit');
    expect(back).toMatchObject({
      outcome: 'changed',
      text:
        ":gear: <@U1> changed this channel's settings: docs project: the default project again (now `proj_a`); " +
        'follow-ups: the workspace default again (now anyone).',
    });
    expect(await store.get('C1')).toEqual({ updatedBy: 'U1', updatedAt: 1_700_000_000_000 });
    expect(audits().at(-1)).toMatchObject({
      from: 'project=proj_a,followups=anyone',
      to: 'project=default,followups=default',
    });
    const own = await svc.change('U1', 'C1', { followupPolicy: 'anyone' }, 'settings.followups');
    expect(own.text).toBe(
      ":gear: <@U1> changed this channel's settings: follow-ups by anyone, set for this channel (not the workspace default any more).",
    );
  });

  it('the admin check: ADMIN_USERS without asking Slack, else users.info is_admin / is_owner; a users.info failure throws', async () => {
    const info = vi.fn(async ({ user }: { user: string }) => {
      if (user === 'U0DOWN') throw new Error('ratelimited');
      return { ok: true, user: { id: user, is_admin: user === 'U0ADMIN', is_owner: user === 'U0OWNER' } };
    });
    const check = usersInfoAdminCheck({ slack: { users: { info } as never }, adminUsers: ['U0LISTED'] });
    expect(await check('U0LISTED')).toBe(true);
    expect(info).not.toHaveBeenCalled();
    expect(await check('U0ADMIN')).toBe(true);
    expect(await check('U0OWNER')).toBe(true);
    expect(await check('U0ALICE')).toBe(false);
    await expect(check('U0DOWN')).rejects.toThrow('ratelimited');
  });

  it('this Redis reports its eviction policy at start-up', async () => {
    const { logger } = arrayLogger();
    const res = await checkEvictionPolicy(redis, logger);
    expect(res.policy === undefined || typeof res.policy === 'string').toBe(true);
  });
});
