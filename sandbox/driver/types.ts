/**
 * Inputs and results of the drivers that play Slack's part towards the bot ({@link SlackDriver} over
 * signed HTTP, {@link SocketModeDriver} over Socket Mode). Units: ts strings as Slack's
 * ("1700000000.000100"), clocks in epoch seconds where named `…S`.
 */

/** A person's message (or its redelivery) as it reaches the bot. `channelType` defaults from the channel (IM → "im"). */
export interface HumanMessage {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
  channelType?: 'channel' | 'group' | 'im';
  /** Files the person attaches (the event then has subtype "file_share" and `files`, like Slack's). */
  files?: Array<{ name: string; title?: string; mimetype?: string; content?: string | Buffer }>;
}

/** Delivery options for events. */
export interface DeliveryOptions {
  /** Event id to use (e.g. to simulate a redelivery with the same id). Default: a fresh "Ev…" id. */
  eventId?: string;
  /** Adds `X-Slack-Retry-Num` (Slack retries up to 3 times, Events API docs); over Socket Mode, `retry_attempt`. */
  retryNum?: number;
  /** Adds `X-Slack-Retry-Reason` (e.g. "http_timeout", "http_error"). Default "http_timeout" when retryNum is set. */
  retryReason?: string;
  /** ts of an existing message: redeliver the event for it instead of recording a new human message. */
  ts?: string;
}

/** A click on an interactive element of message `messageTs` in `channel`. `value`/`blockId` default from the message's blocks. */
export interface BlockActionInput {
  user: string;
  channel: string;
  messageTs: string;
  actionId: string;
  value?: string;
  blockId?: string;
  threadTs?: string;
  /** On `feedback_buttons`: which button is clicked (default positive). */
  feedback?: 'positive' | 'negative';
  /** On a `static_select`: the `value` of the option chosen (it must be one of the element's options). */
  selected?: string;
}

/** A slash command typed by `user` in `channel`. */
export interface SlashCommandInput {
  command: string;
  text: string;
  user: string;
  channel: string;
  userName?: string;
  /** A forged `response_url` (hardening tests: Slack always sends its own, on hooks.slack.com); default one minted by the fake. */
  responseUrl?: string;
}

/** A modal submission: `view.state.values` as Slack sends them (block_id → action_id → value). */
export interface ViewSubmissionInput {
  user: string;
  view: {
    callback_id: string;
    private_metadata?: string;
    state: { values: Record<string, Record<string, { type: string; value?: string }>> };
  };
}

/** A message shortcut (Slack: "message_action") `callbackId` used by `user` on message `messageTs` in `channel`. */
export interface MessageShortcutInput {
  user: string;
  channel: string;
  messageTs: string;
  callbackId: string;
}

/** The companion `message` event of an app_mention, if it was sent. */
export interface MentionOptions extends DeliveryOptions {
  /** Send the `message` event real Slack sends for the same ts (default true). */
  alsoMessageEvent?: boolean;
}
