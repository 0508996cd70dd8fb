import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { respondVia } from '../../platform/slack/respond.js';
import { queueDigestNow, type DigestCommandDeps } from './subcommands.js';
import { DIGESTS_INTAKE, type DigestRetryIntake } from './intake.js';

/** What the digests handlers need. */
export interface DigestHandlerDeps extends Pick<DigestCommandDeps, 'digestQueue' | 'defaultSchedule' | 'now'> {
  slack: { chat: Pick<WebClient['chat'], 'update'> };
  access: Pick<AccessGate, 'authorize'>;
  logger: Logger;
}

/** Registers the digests intake handlers. */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: DigestHandlerDeps): void {
  intake.on<DigestRetryIntake>(DIGESTS_INTAKE.retry, async (p, ctx) => {
    const decision = await deps.access.authorize({ user: p.user, teamId: p.teamId }, 'manage_digests', p.channel);
    if (!decision.allowed) {
      if (p.responseUrl)
        await respondVia(p.responseUrl)({
          response_type: 'ephemeral',
          replace_original: false,
          text: decision.text,
        }).catch((err: unknown) => ctx.log.warn({ err }, 'could not tell the person why'));
      return;
    }
    try {
      await queueDigestNow(deps, {
        teamId: p.teamId,
        channel: p.channel,
        requestedBy: p.user,
        ...(p.responseUrl ? { responseUrl: p.responseUrl } : {}),
      });
    } catch (err) {
      if (!ctx.finalAttempt) throw err;
      deps.logger.warn({ err }, 'could not queue a digest retry');
      if (p.responseUrl)
        await respondVia(p.responseUrl)({
          response_type: 'ephemeral',
          replace_original: false,
          text: "I couldn't queue the digest; try again in a moment.",
        }).catch((e: unknown) => ctx.log.warn({ err: e }, 'could not tell the person to try again'));
      return;
    }
    if (p.ts) {
      const text = `:hourglass_flowing_sand: <@${p.user}> asked to try the weekly digest again; it is on its way.`;
      await deps.slack.chat
        .update({ channel: p.channel, ts: p.ts, text, blocks: [] })
        .catch((err: unknown) => deps.logger.warn({ err }, 'could not edit the digest notice'));
    }
  });
}
