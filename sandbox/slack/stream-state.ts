/**
 * What the fake Slack's chat streaming methods (`./streams.ts`) remember: each streamed message's
 * stream (who it streams to, its mode, its state, the chunks that were not text), and the refusals a
 * test can switch on to see the bot fall back to posting.
 */

/**
 * A stream's state: `in_progress` until `chat.stopStream` (`completed`); `stopped_by_user` when the
 * person pressed Stop; `expired` when Slack ended it on its own (people report about 5 minutes
 * after it started; undocumented). Only `in_progress` takes appends.
 */
export type FakeStreamStateName = 'in_progress' | 'completed' | 'stopped_by_user' | 'expired';

/** One streamed message. `mode` is fixed by the first call that carried content (Slack: `streaming_mode_mismatch`). */
export interface FakeStream {
  channel: string;
  ts: string;
  threadTs: string;
  recipientUserId?: string;
  recipientTeamId?: string;
  mode?: 'markdown_text' | 'chunks';
  state: FakeStreamStateName;
  /** Calls that added content: the start (when it carried some), each append, the stop (when it carried some). */
  contentCalls: number;
  /** Chunks other than markdown text (task and plan updates, blocks), in order. */
  otherChunks: unknown[];
}

/** Streams of the fake workspace, and the switches that make Slack refuse streaming. */
export class FakeStreamState {
  /** Streams by `channel:ts`. */
  readonly streams = new Map<string, FakeStream>();
  /**
   * When set, chat.startStream, chat.appendStream and chat.stopStream all answer this error, e.g.
   * `unknown_method` (a Slack without streaming) or `not_allowed_token_type`.
   */
  refuseWith: string | undefined;
  /**
   * Channels where chat.startStream answers an error, by channel id, e.g.
   * `channel_type_not_supported`, `restricted_action_read_only_channel`, `messages_tab_disabled`
   * (codes from the method's reference page).
   */
  readonly refuseIn = new Map<string, string>();

  /** The stream of message `ts` in `channel`, if it is one. */
  get(channel: string, ts: string): FakeStream | undefined {
    return this.streams.get(`${channel}:${ts}`);
  }

  /** Records a new stream. */
  add(stream: FakeStream): void {
    this.streams.set(`${stream.channel}:${stream.ts}`, stream);
  }

  /**
   * Ends a stream the way Slack ends one without the app: the person pressed Stop
   * (`stopped_by_user`: appends are refused with that code) or Slack ended it (`expired`: appends
   * and the stop are refused with `message_not_in_streaming_state`).
   * @throws Error when there is no such stream (a test mistake).
   */
  interrupt(channel: string, ts: string, how: 'stopped_by_user' | 'expired'): void {
    const stream = this.get(channel, ts);
    if (!stream) throw new Error(`no stream ${channel}:${ts}`);
    stream.state = how;
  }
}
