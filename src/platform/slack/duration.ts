import prettyMs from 'pretty-ms';

/**
 * Formats a duration for people: `45s`, `2m 10s`, `1h 5m` (at most two units, via pretty-ms).
 * @param ms - duration in milliseconds (negative counts as 0).
 */
export function formatDuration(ms: number): string {
  const clamped = Math.max(0, ms);
  if (clamped < 1000) return '0s';
  return prettyMs(clamped, { secondsDecimalDigits: 0, unitCount: 2 });
}
