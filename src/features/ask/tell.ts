import type { PrivateTarget } from '../../platform/slack/tell.js';

/** Telling one person privately: the platform's one helper (src/platform/slack/tell.ts). */
export { tellPrivately, type TellDeps } from '../../platform/slack/tell.js';

/** Where one asker is told privately: always a user and a conversation (a `response_url` when there is one). */
export type TellTarget = Omit<PrivateTarget, 'respond'> & { user: string; channel: string };
