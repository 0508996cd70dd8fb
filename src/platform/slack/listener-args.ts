/**
 * The arguments Bolt gives a feature's listeners (`app.command`, `app.action`, `app.view`,
 * `app.shortcut`, `app.event`), one name each, so every listener file types them alike.
 */
import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  FeedbackButtonsAction,
  MessageShortcut,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  StaticSelectAction,
  ViewSubmitAction,
} from '@slack/bolt';

/** A slash command's listener arguments. */
export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
/** A button click's listener arguments. */
export type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;
/** A feedback button's (👍/👎 `feedback_buttons` element) listener arguments. */
export type FeedbackArgs = SlackActionMiddlewareArgs<BlockAction<FeedbackButtonsAction>> & AllMiddlewareArgs;
/** A static select menu's listener arguments. */
export type SelectArgs = SlackActionMiddlewareArgs<BlockAction<StaticSelectAction>> & AllMiddlewareArgs;
/** A message shortcut's listener arguments. */
export type ShortcutArgs = SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs;
/** A modal submission's listener arguments. */
export type SubmissionArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;
/** An Events API event's listener arguments (`E`: the event's `type`). */
export type EventArgs<E extends string> = SlackEventMiddlewareArgs<E> & AllMiddlewareArgs;
