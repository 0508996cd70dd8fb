import { TZDate } from '@date-fns/tz';
// date-fns by subpath: its root module loads every function, a second of start-up on a busy machine.
import { format } from 'date-fns/format';

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
