/** What the answer's writer (`./stream.ts`) and its final write (`./final.ts`) work with. */
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../../platform/logger.js';

/** The Web API methods the writer uses. */
export type StreamSlack = {
  chat: Pick<WebClient['chat'], 'startStream' | 'appendStream' | 'stopStream' | 'postMessage' | 'update'>;
  conversations: Pick<WebClient['conversations'], 'history' | 'replies'>;
};

/** What the writer needs. */
export interface WriterDeps {
  slack: StreamSlack;
  /** The workspace's chat.update budget (agent-jobs' EditBudget: one budget for every edit of the bot). */
  budget: { take(teamId: string): Promise<{ ok: true } | { ok: false; retryMs: number }> };
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
  /** Waits `ms`, or less once `signal` aborts; never rejects (tests pass a fake). @defaultValue setTimeout */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborts at shutdown: a wait for Slack's `Retry-After` or the edit budget ends at once. */
  signal?: AbortSignal;
}

/** Where an answer goes: its thread, who reads it (Slack: the recipient outside DMs), and its post-once key. */
export interface AnswerTarget {
  teamId: string;
  channel: string;
  threadTs: string;
  /** The asker: chat.startStream's `recipient_user_id` / `recipient_team_id`. */
  recipientUserId: string;
  /** Unique per answer (e.g. `<intake id>:answer`): keys the steps and the messages posted at most once. */
  key: string;
  /** Epoch ms no later than the question (postOnce's `since`). */
  since: number;
}

/** The end of an answer: blocks after the text (sources, buttons) and a notice after it, if any. */
export interface AnswerEnd {
  blocks: KnownBlock[];
  notice?: string;
}
