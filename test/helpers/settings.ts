import type { EffectiveSettings } from '../../src/features/settings/service.js';

/**
 * A channel's settings as the settings service reads them: its own project `proj_b` and follow-up
 * policy `requester` (neither the default), not every message taken as a question, mentions by
 * the mention rule (`auto`), last changed by U0ADMIN. Frozen: a test wanting others spreads it.
 */
export const CHANNEL_SETTINGS: Readonly<EffectiveSettings> = Object.freeze({
  projectId: 'proj_b',
  projectIsDefault: false,
  projectFollowsDefault: false,
  followupPolicy: 'requester',
  followupIsDefault: false,
  answerAll: false,
  mentions: 'auto',
  updatedBy: 'U0ADMIN',
});
