/**
 * The poll schedule: when to look at an agent job again. Pure functions of the elapsed time, the
 * durations of the project's finished jobs and the bounds; no clock and no I/O, so tests and the
 * bench drive them in virtual time.
 *
 * The docs API has no webhooks, so an announcement is late by however long the job's end waits for
 * the next poll. With enough history ({@link MIN_HISTORY} finished jobs) the schedule polls every
 * {@link DENSE_GAP_MS} where jobs tend to end (high hazard of finishing), every
 * {@link SPARSE_GAP_MS} where they rarely do, and up to POLL_MAX_INTERVAL_MS where history says
 * practically none ends; without history it backs off exponentially from POLL_MIN_INTERVAL_MS to
 * {@link SPARSE_GAP_MS}.
 */

/** Bounds of the poll schedule, in ms: the first poll's delay (POLL_MIN_INTERVAL_MS) and the longest gap (POLL_MAX_INTERVAL_MS). */
export interface PollBounds {
  minMs: number;
  maxMs: number;
}

/** Share of a backoff delay that jitter may take off (so replicas' polls spread out). */
const POLL_JITTER = 0.2;
/** Gap between polls where jobs tend to end, in ms: keeps the lateness of most announcements under 20 s. */
export const DENSE_GAP_MS = 19_000;
/** Gap wherever a job may still end, in ms: the worst lateness (also the cap of the backoff without history). */
export const SPARSE_GAP_MS = 29_000;
/** Finished jobs needed before the learned schedule replaces the backoff. */
export const MIN_HISTORY = 20;
/** Finished-job durations kept per project (the newest). */
export const HISTORY_SIZE = 200;
/** Share of job ends that the dense stretches must cover (the rest wait up to {@link SPARSE_GAP_MS}). */
const COVERED_MASS = 0.88;
/** A gap longer than {@link SPARSE_GAP_MS} may span at most this probability of the job ending. */
const QUIET_MASS = 1e-4;

/**
 * What the schedule learned from finished jobs: on a grid of `cellMs` cells from 0, the
 * probability `cdf[i]` that a job has ended by `i · cellMs`, and whether cell `i` is dense.
 * Past the grid, every gap is {@link SPARSE_GAP_MS}.
 */
export interface PollPlan {
  cellMs: number;
  /** cdf[i] = P(duration ≤ i · cellMs); length = cells + 1. */
  cdf: Float64Array;
  dense: Uint8Array;
}

/** Widest kernel (in log of the duration): keeps distinct modes apart (Silverman's rule would blur a bimodal mix). */
const MAX_BANDWIDTH = 0.12;

/** Most grid cells of a plan (bounds the work of {@link buildPollPlan}). */
const MAX_CELLS = 4_000;

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 erf approximation, |error| < 1.5e-7). */
function phi(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/**
 * Learns a plan from the durations (ms) of finished jobs: a kernel density estimate on the log of
 * the durations (Silverman's bandwidth, at least 0.05), then the cells of highest hazard
 * (P(end in cell) / P(still running)) until they hold {@link COVERED_MASS} of the ends.
 *
 * @returns undefined with fewer than {@link MIN_HISTORY} usable durations (the caller backs off).
 */
export function buildPollPlan(durationsMs: readonly number[]): PollPlan | undefined {
  const logs = durationsMs.filter((d) => Number.isFinite(d) && d > 0).map((d) => Math.log(d));
  if (logs.length < MIN_HISTORY) return undefined;
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / logs.length);
  const bw = Math.min(MAX_BANDWIDTH, Math.max(0.05, 1.06 * sd * logs.length ** -0.2));
  const sorted = [...logs].sort((a, b) => a - b);
  const median = Math.exp(sorted[Math.floor(sorted.length / 2)]!);
  const horizon = Math.exp(sorted[sorted.length - 1]! + 4 * bw);
  const cellMs = Math.max(50, Math.min(5_000, Math.round(median / 60)), Math.ceil(horizon / MAX_CELLS));
  const cells = Math.ceil(horizon / cellMs);
  const cdf = new Float64Array(cells + 1);
  for (let i = 1; i <= cells; i++) {
    const lt = Math.log(i * cellMs);
    let s = 0;
    for (const l of logs) s += phi((lt - l) / bw);
    cdf[i] = s / logs.length;
  }
  const order = Array.from({ length: cells }, (_, i) => i);
  const hazard = order.map((i) => (cdf[i + 1]! - cdf[i]!) / Math.max(1e-12, 1 - cdf[i]!));
  order.sort((a, b) => hazard[b]! - hazard[a]!);
  const dense = new Uint8Array(cells);
  let covered = 0;
  for (const i of order) {
    if (covered >= COVERED_MASS * cdf[cells]!) break;
    dense[i] = 1;
    covered += cdf[i + 1]! - cdf[i]!;
  }
  return { cellMs, cdf, dense };
}

/** P(duration ≤ t) from the plan (linear between grid points; 1 past the grid). */
function cdfAt(plan: PollPlan, t: number): number {
  const x = t / plan.cellMs;
  const i = Math.floor(x);
  if (i >= plan.cdf.length - 1) return 1;
  if (i < 0) return 0;
  return plan.cdf[i]! + (x - i) * (plan.cdf[i + 1]! - plan.cdf[i]!);
}

/**
 * Gap from `elapsedMs` to the next poll under a learned plan, in ms, before the bounds: the longest
 * gap such that no end in a dense cell waits more than {@link DENSE_GAP_MS}, no end anywhere more
 * than {@link SPARSE_GAP_MS}, except across stretches where ending has probability ≤ {@link QUIET_MASS}.
 */
function plannedGapMs(plan: PollPlan, elapsedMs: number, maxMs: number): number {
  const cells = plan.dense.length;
  let allowed = maxMs;
  const base = cdfAt(plan, elapsedMs);
  for (let i = Math.max(0, Math.floor(elapsedMs / plan.cellMs)); ; i++) {
    const start = Math.max(elapsedMs, i * plan.cellMs);
    const ahead = start - elapsedMs;
    if (ahead >= allowed) break;
    if (i >= cells) return Math.min(allowed, Math.max(ahead, SPARSE_GAP_MS));
    if (plan.dense[i]) allowed = Math.min(allowed, Math.max(ahead, DENSE_GAP_MS));
    else if (plan.cdf[i + 1]! - base > QUIET_MASS) allowed = Math.min(allowed, Math.max(ahead, SPARSE_GAP_MS));
  }
  return allowed;
}

/** Input of {@link nextPollDelayMs}. */
interface PollTiming {
  /** Polls done so far in this cycle (0 = none yet: the delay is then POLL_MIN_INTERVAL_MS). */
  attempt: number;
  /** Time since the cycle started, in ms (the schedule's clock). */
  elapsedMs: number;
  /** What was learned from finished jobs, or undefined without enough history. */
  plan?: PollPlan;
}

/**
 * Delay before the next poll, in ms. The first poll comes after exactly `bounds.minMs`. Then, with
 * a plan, the gap it allows at this elapsed time; without one, exponential backoff
 * `min · 2^attempt` capped at {@link SPARSE_GAP_MS} (or `max`, if lower), minus up to 20 % jitter.
 * Every delay is within [min, max].
 *
 * @param random - source of [0, 1) numbers; tests pass a fixed one.
 */
export function nextPollDelayMs(timing: PollTiming, bounds: PollBounds, random: () => number = Math.random): number {
  const clamp = (ms: number) => Math.round(Math.min(bounds.maxMs, Math.max(bounds.minMs, ms)));
  const { attempt, plan } = timing;
  if (attempt <= 0) return bounds.minMs;
  if (plan) return clamp(plannedGapMs(plan, Math.max(0, timing.elapsedMs), bounds.maxMs));
  const base = Math.min(SPARSE_GAP_MS, bounds.maxMs, bounds.minMs * 2 ** Math.min(attempt, 40));
  return clamp(base - random() * POLL_JITTER * base);
}

/**
 * The most polls a job can take before `timeoutMs` runs out (every delay ≥ `minMs`), plus room
 * for retries after crashes. BullMQ's `maxStartedAttempts` counts every poll of a step job, so it
 * must be set above this.
 */
export function maxPollsFor(timeoutMs: number, bounds: PollBounds): number {
  return Math.ceil(timeoutMs / bounds.minMs) + 50;
}

/**
 * Least wait (ms) before a status edit is tried again: a taken slot or lock can free within
 * milliseconds, but each reschedule is a BullMQ start, which `maxStartedAttempts` counts.
 */
const EDIT_RETRY_MIN_MS = 1_000;

/** The delay (ms) of a reschedule that only retries a status edit: `ms`, at least {@link EDIT_RETRY_MIN_MS}. */
export function editRetryDelay(ms: number): number {
  return Math.max(EDIT_RETRY_MIN_MS, ms);
}
