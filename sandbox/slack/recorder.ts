/**
 * The fake Slack's call log: every HTTP call it answered, live subscribers (the sandbox's log), and
 * `waitFor`, which polls the recorded state until a condition holds.
 */
import type { ApiResult, Json } from './method.js';
import type { SlackCall } from './types.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Records {@link SlackCall}s in order and tells subscribers about each. */
export class CallRecorder {
  /** Every call in order. */
  readonly calls: SlackCall[] = [];
  private readonly listeners = new Set<(call: SlackCall) => void>();

  /** @param now - clock in epoch ms, stamped on each call as `at`. */
  constructor(private readonly now: () => number) {}

  /**
   * Record that `method` was called with `args` and answered `result` (its `retry-after` header, in
   * seconds, becomes `retryAfterS`); notify subscribers (a throwing subscriber is ignored).
   * @returns `result`, unchanged, so handlers can `return recorder.record(...)`.
   */
  record(method: string, args: Json, result: ApiResult): ApiResult {
    const call: SlackCall = { method, args, at: this.now(), response: result.body, status: result.status };
    const retryAfter = result.headers?.['retry-after'];
    if (retryAfter !== undefined) call.retryAfterS = Number(retryAfter);
    this.calls.push(call);
    for (const listener of this.listeners) {
      try {
        listener(call);
      } catch {
        // a broken live printer must not break the fake
      }
    }
    return result;
  }

  /** See {@link FakeSlack.onCall}. */
  onCall(cb: (call: SlackCall) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** See {@link FakeSlack.waitFor}. */
  async waitFor<T>(fn: () => T | undefined | null | false, timeoutMs = 5000): Promise<T> {
    const started = Date.now();
    let lastError: unknown;
    for (;;) {
      try {
        const value = fn();
        if (value) return value;
        lastError = undefined;
      } catch (err) {
        lastError = err;
      }
      if (Date.now() - started >= timeoutMs) throw this.timeoutError(fn, timeoutMs, lastError);
      await sleep(20);
    }
  }

  private timeoutError(fn: () => unknown, timeoutMs: number, lastError: unknown): Error {
    const recent = this.calls
      .slice(-10)
      .map(
        (c) =>
          `  ${c.status} ${c.method} ${JSON.stringify(c.args).slice(0, 160)} -> ${JSON.stringify(c.response).slice(0, 120)}`,
      )
      .join('\n');
    const reason = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
    return new Error(
      `fake Slack waitFor timed out after ${timeoutMs} ms waiting for ${fn.toString().slice(0, 200)}${reason}\n` +
        `${this.calls.length} calls recorded, last ones:\n${recent || '  (none)'}`,
    );
  }
}
