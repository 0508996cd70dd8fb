/**
 * What the fake Slack's agent methods (`./agents.ts`) remember: suggested prompts per conversation,
 * the loading lines set in threads, and each thread's agent session.
 */
/** The suggestions set for a conversation. */
export interface FakePrompts {
  title?: string;
  prompts: Array<{ title: string; message: string }>;
}

/** A loading line as it was set: `afterTs` is the newest message of its thread at the time (for transcripts). */
export interface FakeLoadingLine {
  channel: string;
  threadTs: string;
  status: string;
  afterTs?: string;
}

/** A thread's agent session: its title, initiator and every status it was set to, in order. */
export interface FakeSession {
  channel: string;
  threadTs: string;
  title?: string;
  initiator?: string;
  statuses: string[];
}

/** Agent state of the fake workspace. */
export class FakeAgentState {
  /** Suggestions by conversation id (the DM of the Messages tab). */
  readonly prompts = new Map<string, FakePrompts>();
  /** Every non-empty loading line set, in order (cleared ones included: transcripts show what people saw). */
  readonly loadingLines: FakeLoadingLine[] = [];
  /** The loading line showing now, by `channel:threadTs`. */
  readonly loading = new Map<string, string>();
  /** Sessions by `channel:threadTs`. */
  readonly sessions = new Map<string, FakeSession>();
  /** When set, every agent method answers this error (e.g. "not_allowed", "missing_scope", "unknown_method"). */
  refuseWith: string | undefined;

  /** The bot posted in `threadTs` of `channel`: Slack clears its loading line there. */
  botPosted(channel: string, threadTs: string | undefined): void {
    if (threadTs) this.loading.delete(`${channel}:${threadTs}`);
  }
}
