/**
 * A question in a person's message (a mention or DM taken as a question, a reply in an answer's
 * thread, a new message in a question channel), routed here by the conversations feature: asked
 * like `/docs-ask`'s ({@link askQuestion}), answered in the message's thread.
 */
import { markupToText } from '../../platform/slack/markup.js';
import { tellPrivately } from '../../platform/slack/tell.js';
import type { Steps } from '../../platform/steps.js';
import { askQuestion, type AskHandlerDeps } from './handlers.js';

/** A person's message routed to the ask feature (the conversations feature decides; see its docs). */
export interface AskMessage {
  teamId: string;
  channel: string;
  user: string;
  /** As Slack sent it (markup), at most AGENT_PROMPT_MAX_CHARS; `textChars` its length when cut. */
  text: string;
  textChars?: number;
  ts: string;
  thread_ts?: string;
}

/**
 * A question in a message (a mention or DM taken as a question, or a reply in an answer's thread):
 * answered in the message's thread (its own ts when top level); the bot's mention is removed and
 * other markup turned into text, once the person is admitted (access and budget before any Slack
 * read). Only the question leaves Slack (and, in an answer's thread, the
 * assistant's own conversation): never the thread's other messages. A message from a question
 * channel (`opts.from`) is told a spent budget once per person per hour (see `askQuestion`).
 * @throws as {@link askQuestion}.
 */
export async function handleQuestionMessage(
  deps: AskHandlerDeps,
  msg: AskMessage,
  botUserId: string | undefined,
  steps: Steps,
  receipt: { key: string; receivedAt: number },
  opts: { from?: 'question-channel' } = {},
): Promise<void> {
  const threadTs = msg.thread_ts ?? msg.ts;
  const to = { user: msg.user, channel: msg.channel, threadTs };
  const tell = (text: string) => tellPrivately(deps, to, text);
  const req = {
    teamId: msg.teamId,
    channel: msg.channel,
    user: msg.user,
    // Mentions become names (users.info) only once the person may ask and has budget left.
    question: () => markupToText(msg.text, botUserId, deps.names.lookup(msg.teamId)),
    ...(msg.textChars !== undefined ? { textChars: msg.textChars } : {}),
    threadTs,
    // The asker's own top-level message (or DM) is claimed for their replies; someone else's thread never is.
    ...(msg.thread_ts === undefined ? { claim: 'asker' as const } : {}),
    key: receipt.key,
    receivedAt: receipt.receivedAt,
    ...(opts.from ? { from: opts.from } : {}),
  };
  await askQuestion(deps.ask, req, steps, { to, tell });
}
