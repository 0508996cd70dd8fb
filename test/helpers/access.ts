import { vi } from 'vitest';
import type { AccessPolicyConfig } from '../../src/features/access/policy.js';

/** The access policy with nothing set: no allow lists, no guests, no external people, no admins. */
export const OPEN_POLICY: AccessPolicyConfig = {
  allowedUsers: [],
  allowedUsergroups: [],
  allowedChannels: [],
  allowGuests: false,
  allowExternal: false,
  adminUsers: [],
};

/**
 * An agent budget of spies that grants every call: 100 a project and 20 a person, `remaining`
 * answers 5 for the project and 2 for the person.
 */
export function grantingBudget() {
  return {
    take: vi.fn(async () => ({ ok: true as const })),
    give: vi.fn(async () => undefined),
    block: vi.fn(async () => undefined),
    remaining: vi.fn(async () => ({ project: 5, user: 2 })),
    opts: { perProject: 100, perUser: 20 },
  };
}
