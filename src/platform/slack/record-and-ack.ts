import type { AckFn, RespondArguments } from '@slack/bolt';
import type { Intake } from '../intake.js';
import type { Logger } from '../logger.js';
import { BUSY_TEXT } from './edge.js';
import { postToResponseUrl } from './respond.js';

/** One request to record: its intake kind, the id derived from the request, the request's id for logs, what the handler gets. */
export interface IntakeEntry<T> {
  kind: string;
  id: string;
  requestId: string;
  payload: T;
}

/**
 * A command's listener, after the input checks: records the intake, then acks (Slack: within 3 s).
 * When Redis would not take it, the ack says "I couldn't reach my database … try again" (nothing
 * was recorded, so nothing will happen).
 */
export async function recordCommand<T>(intake: Pick<Intake, 'record'>, logger: Logger, ack: AckFn<string | RespondArguments>, e: IntakeEntry<T>): Promise<void> {
  try {
    await intake.record(e.kind, e.id, e.requestId, e.payload);
  } catch (err) {
    logger.warn({ err, intake: e.kind }, 'could not record a request; told the person to try again');
    await ack({ response_type: 'ephemeral', text: BUSY_TEXT });
    return;
  }
  await ack();
}

/**
 * An interaction's listener (a click): records the intake, then acks. When Redis would not take
 * it, acks anyway (the ack carries nothing for a click) and tells the person through the
 * `response_url` to try again.
 */
export async function recordInteraction<T>(
  intake: Pick<Intake, 'record'>,
  logger: Logger,
  ack: () => Promise<void>,
  responseUrl: string | undefined,
  e: IntakeEntry<T>,
): Promise<void> {
  try {
    await intake.record(e.kind, e.id, e.requestId, e.payload);
  } catch (err) {
    logger.warn({ err, intake: e.kind }, 'could not record a click; told the person to try again');
    await ack();
    if (responseUrl) await postToResponseUrl(responseUrl, { response_type: 'ephemeral', replace_original: false, text: BUSY_TEXT }).catch(() => undefined);
    return;
  }
  await ack();
}
