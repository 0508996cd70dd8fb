/**
 * Slash command and interactivity payloads as Slack builds them (Slack docs: "Slash commands";
 * "block_actions payload"; "View interaction payloads" (view_submission); "Shortcuts payloads"
 * (message shortcuts: type `message_action` with `callback_id`, `trigger_id`, `response_url`,
 * `message_ts`, the full `message`, `channel`, `team`, `user`); Bolt's `SlashCommand`,
 * `BlockAction`, `ViewSubmitAction` and `MessageShortcut` types). Each builder mints the trigger_id and
 * response_url the fake will honour. Shared by the HTTP and the Socket Mode drivers.
 */
import { messageJson } from '../slack/wire.js';
import type { DriverContext } from './context.js';
import type { BlockActionInput, MessageShortcutInput, SlashCommandInput, ViewSubmissionInput } from './types.js';

type Json = Record<string, unknown>;

/** Where a Block Kit element with a given action_id sits. */
interface FoundElement {
  blockId?: string;
  element: Json;
}

function findElement(blocks: unknown, actionId: string): FoundElement | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks as Json[]) {
    const candidates: unknown[] = [];
    if (Array.isArray(block.elements)) candidates.push(...(block.elements as unknown[]));
    if (block.accessory) candidates.push(block.accessory);
    if (block.element) candidates.push(block.element);
    for (const el of candidates) {
      if (el && typeof el === 'object' && (el as Json).action_id === actionId) {
        return { ...(typeof block.block_id === 'string' ? { blockId: block.block_id } : {}), element: el as Json };
      }
    }
  }
  return undefined;
}

/**
 * A click on `feedback_buttons` sends the chosen button's `text` and `value` with the element's type
 * and action_id (Slack: Bolt's FeedbackButtonsAction; `choice` defaults to the positive button).
 */
function feedbackChoice(element: Json, choice: 'positive' | 'negative' = 'positive'): Json {
  if (element.type !== 'feedback_buttons') return element;
  const button = (element[`${choice}_button`] ?? {}) as Json;
  return { type: 'feedback_buttons', action_id: element.action_id, text: button.text, value: button.value };
}

/**
 * The fields of a slash command invocation (form fields over HTTP, the payload object over Socket Mode):
 * token, team_id, team_domain, channel_id, channel_name, user_id, user_name, command, text, api_app_id,
 * is_enterprise_install, response_url (bound to the user, for ephemeral replies, and the channel) and
 * trigger_id. Also records "<command> <text>" as the user's message (`source: 'command'`) so transcripts
 * show it; real Slack does not post it.
 */
export function slashCommandFields(ctx: DriverContext, p: SlashCommandInput): Record<string, string> {
  const slack = ctx.slack;
  slack.addUserMessage({ channel: p.channel, user: p.user, text: `${p.command} ${p.text}`.trim(), source: 'command' });
  return {
    token: 'sandbox-verification-token',
    team_id: ctx.teamId,
    team_domain: slack.teamDomain,
    channel_id: p.channel,
    channel_name: ctx.channelName(p.channel),
    user_id: p.user,
    user_name: p.userName ?? ctx.userName(p.user),
    command: p.command,
    text: p.text,
    api_app_id: slack.appId,
    ...ctx.commandEnterpriseFields(),
    response_url: p.responseUrl ?? slack.responseUrl(undefined, { user: p.user, channel: p.channel }),
    trigger_id: slack.triggerId(p.user),
  };
}

/**
 * A choice in a `static_select` (Slack: "block_actions payload" of a select menu): the element's type,
 * action_id and placeholder, and `selected_option`, the option whose value was chosen, as it is in
 * the message.
 * @throws Error when the element has no option of that value (a person can only pick one of them).
 */
function selectEntry(element: Json, selected: string): Json {
  const options = (Array.isArray(element.options) ? element.options : []) as Json[];
  const option = options.find((o) => o.value === selected);
  if (!option) throw new Error(`the menu has no option ${selected}`);
  const placeholder = element.placeholder ? { placeholder: element.placeholder } : {};
  return { type: 'static_select', ...placeholder, selected_option: option };
}

/** The `actions[0]` entry of a block_actions payload, completed from the element in the message's blocks. */
function actionEntry(ctx: DriverContext, p: BlockActionInput, found: FoundElement | undefined): Json {
  if (p.selected !== undefined) {
    const chosen = selectEntry(found?.element ?? {}, p.selected);
    const blockId = p.blockId ?? found?.blockId ?? 'actions';
    return { ...chosen, action_id: p.actionId, block_id: blockId, action_ts: ctx.eventTs() };
  }
  const element = feedbackChoice(found?.element ?? {}, p.feedback);
  return {
    type: typeof element.type === 'string' ? element.type : 'button',
    action_id: p.actionId,
    block_id: p.blockId ?? found?.blockId ?? 'actions',
    ...(element.text ? { text: element.text } : { text: { type: 'plain_text', text: p.actionId, emoji: true } }),
    ...((p.value ?? element.value) !== undefined ? { value: p.value ?? element.value } : {}),
    ...(typeof element.url === 'string' ? { url: element.url } : {}),
    ...(typeof element.style === 'string' ? { style: element.style } : {}),
    action_ts: ctx.eventTs(),
  };
}

/**
 * A `block_actions` payload for a click on a message element (Slack docs: "block_actions payload"):
 * `container` `{type:"message", message_ts, channel_id, is_ephemeral, thread_ts?}`, the full `message`,
 * `response_url` (bound to the user, channel and message, so `replace_original` works), `trigger_id`
 * and `actions[]`.
 */
export function blockActionsPayload(ctx: DriverContext, p: BlockActionInput): Json {
  const slack = ctx.slack;
  const message = slack.messages.find((m) => m.channel === p.channel && m.ts === p.messageTs && !m.deleted);
  const threadTs = p.threadTs ?? message?.thread_ts;
  return {
    type: 'block_actions',
    user: ctx.userRef(p.user),
    api_app_id: slack.appId,
    token: 'sandbox-verification-token',
    container: {
      type: 'message',
      message_ts: p.messageTs,
      channel_id: p.channel,
      is_ephemeral: Boolean(message?.ephemeralTo),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    },
    trigger_id: slack.triggerId(p.user),
    team: { id: ctx.teamId, domain: slack.teamDomain },
    ...ctx.enterpriseFields(),
    channel: { id: p.channel, name: ctx.channelName(p.channel) },
    message: {
      type: 'message',
      ts: p.messageTs,
      text: message?.text ?? '',
      ...(message?.user ? { user: message.user } : {}),
      ...(message?.bot_id ? { bot_id: message.bot_id, app_id: slack.appId } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(message?.blocks ? { blocks: message.blocks } : {}),
      team: ctx.teamId,
    },
    state: { values: {} },
    response_url: slack.responseUrl(undefined, {
      user: p.user,
      channel: p.channel,
      messageTs: p.messageTs,
      ...(threadTs ? { threadTs } : {}),
    }),
    actions: [actionEntry(ctx, p, findElement(message?.blocks, p.actionId))],
  };
}

/**
 * A `view_submission` payload (Slack docs: "View interaction payloads"). `view` is completed from the
 * latest modal the fake recorded with the same callback_id (id, blocks, title, hash).
 */
export function viewSubmissionPayload(ctx: DriverContext, p: ViewSubmissionInput): Json {
  const slack = ctx.slack;
  const opened = [...slack.views]
    .reverse()
    .find((v) => v.kind === 'modal' && v.view.callback_id === p.view.callback_id);
  const id = opened?.id ?? `V${String(ctx.nextId()).padStart(8, '0')}`;
  const metadata =
    p.view.private_metadata ?? (typeof opened?.view.private_metadata === 'string' ? opened.view.private_metadata : '');
  return {
    type: 'view_submission',
    team: { id: ctx.teamId, domain: slack.teamDomain },
    user: ctx.userRef(p.user),
    api_app_id: slack.appId,
    token: 'sandbox-verification-token',
    trigger_id: slack.triggerId(p.user),
    view: {
      id,
      team_id: ctx.teamId,
      type: 'modal',
      blocks: opened?.view.blocks ?? [],
      title: opened?.view.title ?? { type: 'plain_text', text: 'Modal' },
      ...(opened?.view.submit ? { submit: opened.view.submit } : {}),
      ...(opened?.view.close ? { close: opened.view.close } : {}),
      private_metadata: metadata,
      callback_id: p.view.callback_id,
      state: p.view.state,
      hash: opened?.hash ?? `${ctx.nowS()}.${ctx.nextId()}`,
      clear_on_close: false,
      notify_on_close: false,
      root_view_id: id,
      previous_view_id: null,
      app_id: slack.appId,
      external_id: '',
      app_installed_team_id: ctx.teamId,
      bot_id: slack.botId,
    },
    response_urls: [],
    ...ctx.enterpriseFields(),
  };
}

/**
 * A message shortcut payload (Slack docs: "Shortcuts payloads": type `message_action`, `callback_id`,
 * `trigger_id`, `response_url` (message shortcuts only), `message_ts`, `message` "the full structure
 * of the message", `channel`, `team`, `user`, `action_ts`). The response_url is bound to the user,
 * channel and message like a block action's.
 */
export function messageActionPayload(ctx: DriverContext, p: MessageShortcutInput): Json {
  const slack = ctx.slack;
  const message = slack.messages.find((m) => m.channel === p.channel && m.ts === p.messageTs && !m.deleted);
  const threadTs = message?.thread_ts;
  return {
    type: 'message_action',
    token: 'sandbox-verification-token',
    action_ts: ctx.eventTs(),
    team: { id: ctx.teamId, domain: slack.teamDomain },
    user: ctx.userRef(p.user),
    channel: { id: p.channel, name: ctx.channelName(p.channel) },
    ...ctx.enterpriseFields(),
    callback_id: p.callbackId,
    trigger_id: slack.triggerId(p.user),
    response_url: slack.responseUrl(undefined, {
      user: p.user,
      channel: p.channel,
      messageTs: p.messageTs,
      ...(threadTs ? { threadTs } : {}),
    }),
    message_ts: p.messageTs,
    message: message ? messageJson(slack, message) : { type: 'message', ts: p.messageTs, text: '' },
  };
}
