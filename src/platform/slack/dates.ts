import { TZDate } from '@date-fns/tz';
// date-fns by subpath: its root module loads every function, a second of start-up on a busy machine.
import { format } from 'date-fns/format';
import { formatDuration } from './duration.js';

/**
 * A delivery time for Slack: `<!date^…^{date_short_pretty} at {time}|fallback>`, which Slack shows
 * in each reader's own time zone; the fallback is the time in the schedule's zone.
 *
 * @param ms - epoch ms.
 * @param zone - IANA zone of the fallback text.
 */
export function slackDateText(ms: number, zone: string): string {
  const fallback = `${format(new TZDate(ms, zone), 'EEE, MMM d, yyyy HH:mm')} ${zone}`;
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|${fallback}>`;
}

/**
 * When a used-up quota frees its next slot, for a refusal: "Next free slot: <!date…|14:32> (in 7m)."
 * The time is Slack's `<!date^…^{time}|…>` token (each reader's own zone) with a fallback in `tz`
 * (the person's `users.info` zone; without one, UTC and said so). Every quota refusal (agent budget,
 * analytics share, manual digest, cooldowns) ends with this sentence.
 *
 * @param now - epoch ms.
 * @param msBeforeNext - ms until the next slot frees (at least 1 s is shown).
 */
export function nextSlotText(now: number, msBeforeNext: number, tz: string | undefined): string {
  const at = now + msBeforeNext;
  const fallback = `${format(new TZDate(at, tz ?? 'UTC'), 'HH:mm')}${tz ? '' : ' UTC'}`;
  return `Next free slot: <!date^${Math.ceil(at / 1000)}^{time}|${fallback}> (in ${formatDuration(Math.max(msBeforeNext, 1000))}).`;
}
