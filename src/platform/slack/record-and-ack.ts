import type { AckFn, RespondArguments } from '@slack/bolt';
import type { Intake, IntakeKind } from '../intake.js';
import type { Logger } from '../logger.js';
import { EventNotRecordedError, notRecordedText } from './edge.js';
import { tellPrivately } from './tell.js';

/** One request to record: its intake kind, the id derived from the request, the request's id for logs, what the handler gets. */
export interface IntakeEntry<T> {
  kind: IntakeKind<T>;
  id: string;
  requestId: string;
  payload: T;
  /** Kept only this long for deduplication, not a day (see `Intake.record`). */
  dedupeWindowMs?: number;
}

/**
 * The entry of a slash command's request: its id is `cmd-{trigger_id}` and its request id the
 * `trigger_id` (Slack: one per invocation of a command), so a redelivered command is the same request.
 */
export function commandEntry<T>(command: { trigger_id: string }, kind: IntakeKind<T>, payload: T): IntakeEntry<T> {
  return { kind, id: `cmd-${command.trigger_id}`, requestId: command.trigger_id, payload };
}

/**
 * The entry of a click whose every press is its own request: its id is `act-{action_ts}` and its
 * request id the `action_ts` (Slack: the time of that press), so only a redelivery is the same request.
 */
export function actionEntry<T>(action: { action_ts: string }, kind: IntakeKind<T>, payload: T): IntakeEntry<T> {
  return { kind, id: `act-${action.action_ts}`, requestId: action.action_ts, payload };
}

/**
 * The entry of a click recorded once per person and press: its id is `{prefix}-{user}-{at}` and its
 * request id `at` (the press's `action_ts`, cut to the characters a BullMQ job id can hold, ≤ 40; no
 * `:`), so a redelivery is the same request and two people's presses are two.
 */
export function clickerEntry<T>(
  prefix: string,
  user: string,
  actionTs: string,
  kind: IntakeKind<T>,
  payload: T,
): IntakeEntry<T> {
  const at = actionTs.replace(/[^0-9A-Za-z._-]/g, '').slice(0, 40);
  return { kind, id: `${prefix}-${user.replace(/[^0-9A-Za-z]/g, '')}-${at}`, requestId: at, payload };
}

/**
 * A command's listener, after the input checks: records the intake, then acks (Slack: within 3 s).
 * When Redis would not take it, the ack says "I couldn't reach my database … try again" (nothing
 * was recorded, so nothing will happen), or, when it may have been kept after all (the write timed
 * out, or no replica acknowledgement could be had), that it can't tell ({@link notRecordedText}).
 */
export async function recordCommand<T>(
  intake: Pick<Intake, 'record'>,
  logger: Logger,
  ack: AckFn<string | RespondArguments>,
  e: IntakeEntry<T>,
): Promise<void> {
  try {
    await intake.record(e.kind, e.id, e.requestId, e.payload);
  } catch (err) {
    logger.warn({ err, intake: e.kind.name }, 'could not record a request; told the person to try again');
    await ack({ response_type: 'ephemeral', text: notRecordedText(err) });
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
    logger.warn({ err, intake: e.kind.name }, 'could not record a click; told the person to try again');
    await ack();
    await tellPrivately({ logger }, { responseUrl }, notRecordedText(err), {
      failure: 'could not tell the person to try again',
    });
    return;
  }
  await ack();
}

/** Slack retries an Events API delivery that was not acked up to 3 times (nearly at once, after 1 minute, after 5 minutes; Slack docs: Events API, "Retries"). */
const SLACK_EVENT_RETRIES = 3;

/**
 * An event's listener: records the intake (the edge acks once the listener returns). When Redis
 * would not take it, logs one warning and throws {@link EventNotRecordedError}, so the event is not
 * acked and Slack redelivers it; on Slack's last retry (`retryNum` {@link SLACK_EVENT_RETRIES}) the
 * person is told through `tellOnLastTry` first, since no redelivery follows.
 * @throws {EventNotRecordedError}
 */
export async function recordEvent<T>(
  intake: Pick<Intake, 'record'>,
  logger: Logger,
  e: IntakeEntry<T> & { retryNum?: number | undefined },
  tellOnLastTry?: (text: string) => Promise<unknown>,
): Promise<void> {
  try {
    await intake.record(
      e.kind,
      e.id,
      e.requestId,
      e.payload,
      e.dedupeWindowMs ? { dedupeWindowMs: e.dedupeWindowMs } : undefined,
    );
  } catch (err) {
    return eventNotRecorded(logger, e, err, tellOnLastTry);
  }
}

/**
 * An event's listener could not read or write Redis (the record, or a lookup deciding whether to
 * record): logs one warning, tells the person on Slack's last retry (when `tellOnLastTry` is
 * given; the warning says whether), and throws {@link EventNotRecordedError} so the event is not
 * acked and Slack redelivers it.
 * @throws {EventNotRecordedError} always.
 */
export async function eventNotRecorded(
  logger: Logger,
  e: { kind: Pick<IntakeKind<unknown>, 'name'>; retryNum?: number | undefined },
  err: unknown,
  tellOnLastTry?: (text: string) => Promise<unknown>,
): Promise<never> {
  const last = (e.retryNum ?? 0) >= SLACK_EVENT_RETRIES;
  const msg = !last
    ? 'could not record an event; not acked, so Slack redelivers it'
    : tellOnLastTry
      ? "could not record an event on Slack's last try; told the person"
      : "could not record an event on Slack's last try; Slack will not send it again";
  logger.warn({ err, intake: e.kind.name, retryNum: e.retryNum ?? 0 }, msg);
  if (last && tellOnLastTry)
    await tellOnLastTry(notRecordedText(err)).catch((tellErr: unknown) =>
      logger.warn({ err: tellErr }, 'could not tell the person their message was not taken'),
    );
  throw new EventNotRecordedError(e.kind.name, { cause: err });
}
