import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentBudget } from '../../../../src/features/access/budget.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

describe('the agent budget on the real Redis', () => {
  const prefix = randomPrefix();
  let a: Redis;
  let b: Redis;
  beforeAll(() => {
    a = testRedis();
    b = testRedis();
  });
  afterAll(async () => {
    await dropPrefix(a, prefix);
    a.disconnect();
    b.disconnect();
  });

  it('two bot processes on one Redis never exceed the project budget together', async () => {
    // Two budgets on two connections stand for two replicas; 60 people ask at once, 30 through each.
    const one = new AgentBudget(a, prefix, { perProject: 25, perUser: 20 });
    const two = new AgentBudget(b, prefix, { perProject: 25, perUser: 20 });
    const takes = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? one : two).take(`U${i}`, 'proj_shared')),
    );
    expect(takes.filter((t) => t.ok)).toHaveLength(25);
    const refused = takes.filter((t) => !t.ok);
    expect(
      refused.every((t) => !t.ok && t.which === 'project' && t.msBeforeNext > 3_500_000 && t.msBeforeNext <= 3_600_000),
    ).toBe(true);
    // A refused request took nothing from its user's budget.
    for (const i of [0, 1, 2, 3])
      expect((await one.remaining(`U${i}`, 'proj_shared')).user).toBe(takes[i]!.ok ? 19 : 20);
  });

  it('a user over their budget is refused while the project still has room, and a refund gives it back', async () => {
    const budget = new AgentBudget(a, prefix, { perProject: 100, perUser: 3 });
    for (let i = 0; i < 3; i++) expect(await budget.take('U0ALICE', 'proj_u')).toEqual({ ok: true });
    expect(await budget.take('U0ALICE', 'proj_u')).toMatchObject({ ok: false, which: 'user' });
    expect(await budget.remaining('U0BOB', 'proj_u')).toEqual({ project: 97, user: 3 });
    await budget.give('U0ALICE', 'proj_u');
    expect(await budget.take('U0ALICE', 'proj_u')).toEqual({ ok: true });
  });

  it('a 429 fills the project budget until its Retry-After, whatever the count says', async () => {
    const budget = new AgentBudget(a, prefix, { perProject: 100, perUser: 20 });
    await budget.block('proj_429', 90_000);
    const t = await budget.take('U0CAROL', 'proj_429');
    expect(t).toMatchObject({ ok: false, which: 'project' });
    expect(!t.ok && t.msBeforeNext).toBeGreaterThan(80_000);
    expect((await budget.remaining('U0CAROL', 'proj_429')).project).toBe(0);
  });

  it('budgets are per project', async () => {
    const budget = new AgentBudget(a, prefix, { perProject: 1, perUser: 20 });
    expect(await budget.take('U1', 'proj_a')).toEqual({ ok: true });
    expect(await budget.take('U1', 'proj_a')).toMatchObject({ ok: false, which: 'project' });
    expect(await budget.take('U1', 'proj_b')).toEqual({ ok: true });
  });
});
