/** Deterministic randomness for the fake docs API's data: the same parts always give the same number. */

/** One UTC day in ms. */
export const DAY_MS = 86_400_000;

/** Deterministic hash of the parts to [0, 1): FNV-1a followed by the murmur3 finaliser. */
export function hash01(...parts: (string | number)[]): number {
  const s = parts.join('|');
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** 0 = Sunday … 6 = Saturday, of a UTC day number (days since 1970-01-01, a Thursday). */
export function dayOfWeek(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** The ISO 8601 instant `msIntoDay` ms after the start of UTC day `day`. */
export function isoAt(day: number, msIntoDay: number): string {
  return new Date(day * DAY_MS + msIntoDay).toISOString();
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID (26 Crockford base-32 characters: 48-bit ms timestamp, then 80 bits) whose "random" part
 * is drawn from `seed`, so the same event always has the same id, and ids sort by time.
 */
export function seededUlid(ms: number, seed: string): string {
  let time = '';
  let t = Math.floor(ms);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rest = '';
  for (let i = 0; i < 16; i++) rest += CROCKFORD[Math.floor(hash01(seed, i) * 32)];
  return time + rest;
}

/** Monday-based week number of a UTC day (day 4, 1970-01-05, was a Monday). */
export function weekOf(day: number): number {
  return Math.floor((day - 4) / 7);
}

/**
 * A seeded count of events on one UTC day around `perWeekday` a weekday: half at weekends, a level
 * that changes from week to week (0.6–1.4×, so this week and the one before differ) and day noise.
 */
export function dailyCount(perWeekday: number, key: string, day: number): number {
  const weekend = dayOfWeek(day) === 0 || dayOfWeek(day) === 6 ? 0.5 : 1;
  const weekLevel = 0.6 + 0.8 * hash01(key, weekOf(day), 'week');
  return Math.floor(
    perWeekday * weekend * weekLevel * (0.8 + 0.4 * hash01(key, day, 'day')) + hash01(key, day, 'round'),
  );
}
