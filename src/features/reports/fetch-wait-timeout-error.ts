import { VisitorsErrorCode } from './budget.js';

/**
 * A local wait ran out: another caller (this replica or another) held the single-flight lock of the
 * same visitors query for longer than the caller would wait, and no answer appeared in the cache.
 * Nothing was sent to the docs API by this caller, and nothing says the docs service is down: the
 * other caller's fetch may still succeed. Trying again in a moment is the right move.
 */
export class VisitorsFetchWaitTimeoutError extends Error {
  readonly code = VisitorsErrorCode.FetchWaitTimeout;
  /**
   * @param waitedMs - how long the caller waited for the other fetch, in ms.
   */
  constructor(readonly waitedMs: number) {
    super(`timed out after ${waitedMs} ms waiting for another caller to fetch the same visitors query`);
    this.name = 'VisitorsFetchWaitTimeoutError';
  }
}
