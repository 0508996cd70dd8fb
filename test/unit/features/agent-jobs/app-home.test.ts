import { describe, expect, it, vi } from 'vitest';
import type { AccessPolicyConfig, UserFacts } from '../../../../src/features/access/policy.js';
import { createAccessGate } from '../../../../src/features/access/service.js';
import { publishHome } from '../../../../src/features/agent-jobs/home/index.js';
import type { AccessGate } from '../../../../src/platform/access.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { OPEN_POLICY, grantingBudget } from '../../../helpers/access.js';

/*
 * What the App Home tab tells each viewer of the docs agent: the budget left to someone the access
 * policy lets start jobs, the policy's refusal (and whom to ask) to someone it does not, and nothing
 * of either when the check can't be made.
 */

const HOME_TEAM = 'T0HOME';
const BUDGET_LINE = 'Agent budget this hour:* 5 of 100 requests left for the docs project `p1`, 2 of 20 for you';
const START_INVITE = 'Start one with `/docs-edit <what to change>` in a channel I am in';

const person = (id: string, over: Partial<UserFacts> = {}): UserFacts => ({
  id,
  teamId: HOME_TEAM,
  isBot: false,
  deleted: false,
  isGuest: false,
  isStranger: false,
  isWorkspaceAdmin: false,
  ...over,
});

const PEOPLE: Record<string, UserFacts> = {
  U0MEMBER: person('U0MEMBER'),
  U0GUEST: person('U0GUEST', { isGuest: true }),
  U0OUTSIDER: person('U0OUTSIDER', { teamId: 'T0OTHER', isStranger: true }),
};

/** The real gate over `policy`, Slack's facts from {@link PEOPLE} (an unknown person: users.info fails). */
function gateFor(policy: Partial<AccessPolicyConfig>) {
  const budget = grantingBudget();
  const { logger, lines } = arrayLogger('info');
  const directory = {
    user: vi.fn(async (u: string) => {
      const facts = PEOPLE[u];
      if (!facts) throw new Error('user_not_found');
      return facts;
    }),
    home: async () => ({ teamId: HOME_TEAM }),
    inAnyGroup: async () => false,
  };
  const gate = createAccessGate({
    policy: { ...OPEN_POLICY, ...policy },
    directory,
    budget,
    promptMaxChars: 100,
    defaultProject: 'p1',
    projectFor: async () => 'p1',
    logger,
    now: () => 0,
  });
  return { gate, budget, lines };
}

/** Publishes `user`'s Home tab (no jobs yet) through `access`; the published view as text, and the warn lines. */
async function homeOf(access: Pick<AccessGate, 'authorize' | 'budgetLeft'>, user: string) {
  const publish = vi.fn(async (_: { user_id: string; view: unknown }) => ({ ok: true }));
  const { logger, lines } = arrayLogger('warn');
  await publishHome(
    {
      store: { listUserJobs: async () => [], update: async () => undefined },
      slack: { chat: { getPermalink: vi.fn() }, views: { publish } } as never,
      access,
      homeDefaults: { followupPolicy: 'anyone', ignorePrefix: '!aside', digestCron: '0 9 * * 1', digestTz: 'UTC' },
      now: () => 0,
      logger,
    },
    { teamId: HOME_TEAM, user },
  );
  expect(publish).toHaveBeenCalledTimes(1);
  expect(publish.mock.calls[0]![0].user_id).toBe(user);
  return { text: JSON.stringify(publish.mock.calls[0]![0].view), warns: lines };
}

describe('App Home: what the viewer is told of the docs agent', () => {
  it('a full member sees the budget left and how to start a job', async () => {
    const { gate } = gateFor({});
    const { text } = await homeOf(gate, 'U0MEMBER');
    expect(text).toContain(BUDGET_LINE);
    expect(text).toContain(START_INVITE);
  });

  it('a guest sees no budget and no invitation to start a job, but the refusal and whom to ask; no audit line', async () => {
    const { gate, budget, lines } = gateFor({});
    const { text } = await homeOf(gate, 'U0GUEST');
    expect(text).not.toContain('Agent budget');
    expect(text).not.toContain(START_INVITE);
    expect(text).toContain(
      "Docs jobs:* Guests can't start docs jobs in this workspace. Ask a full member of the workspace to do it for you.",
    );
    expect(budget.remaining).not.toHaveBeenCalled();
    expect(lines.filter((l) => l.audit)).toEqual([]);
  });

  it('a person of another organization, and a member outside the allow-list, see the refusal instead of the budget', async () => {
    const outsider = await homeOf(gateFor({}).gate, 'U0OUTSIDER');
    expect(outsider.text).not.toContain('Agent budget');
    expect(outsider.text).toContain("People from other organizations can't start docs jobs in this workspace");
    const listed = await homeOf(gateFor({ allowedUsers: ['U0DANA'], adminUsers: ['U0ADMIN'] }).gate, 'U0MEMBER');
    expect(listed.text).not.toContain('Agent budget');
    expect(listed.text).toContain(
      'Docs jobs:* Only <@U0DANA> can start docs jobs: ask whoever runs Docs Agent to add you.',
    );
  });

  it('a guest the policy lets in, and a member where only some channels take jobs, see the budget', async () => {
    expect((await homeOf(gateFor({ allowGuests: true }).gate, 'U0GUEST')).text).toContain(BUDGET_LINE);
    const channels = await homeOf(gateFor({ allowedChannels: ['C0DOCS'] }).gate, 'U0MEMBER');
    expect(channels.text).toContain(BUDGET_LINE);
  });

  it('when Slack cannot say who the viewer is, or the gate throws, the tab is published without a budget', async () => {
    const { gate, budget } = gateFor({});
    const unknown = await homeOf(gate, 'U0NOBODY');
    expect(unknown.text).not.toContain('Agent budget');
    expect(unknown.text).not.toContain('Docs jobs:*');
    expect(budget.remaining).not.toHaveBeenCalled();
    const throwing = {
      authorize: () => Promise.reject(new Error('Connection is closed.')),
      budgetLeft: gate.budgetLeft,
    };
    const thrown = await homeOf(throwing, 'U0MEMBER');
    expect(thrown.text).not.toContain('Agent budget');
    expect(thrown.text).toContain('Your recent docs jobs');
    expect(thrown.warns.map((l) => l.msg)).toEqual([
      "could not check the viewer's access for App Home; no budget shown",
    ]);
  });

  it("How I work here: the workspace's defaults as defaults (a channel may differ), the digest schedule in words", async () => {
    const { text } = await homeOf(gateFor({}).gate, 'U0MEMBER');
    expect(text).toContain(
      'Follow-ups:* by default, anyone in the channel can continue a job by replying in its thread (`/docs-settings` in a channel shows its own).',
    );
    expect(text).toContain('sends one there, Mondays at 09:00 UTC unless you pick a day and time.');
    expect(text).not.toContain('0 9 * * 1');
  });
});
