import { z } from 'zod';
import type { AnalyticsDateRange } from '../../../platform/docs-api/analytics-client.js';
import type { AssistantConversation, FeedbackEntry } from '../../../platform/docs-api/analytics-schemas.js';
import type { QueryCaller } from '../queries.js';
import { keyParts, type AnalyticsCache, type Cached, type CachedQuery } from '../store.js';

/**
 * What the reports and the digest keep of the feedback and assistant answers: only what they show,
 * so the cache holds no more reader text than needed (and never a reader's contact email). Both are
 * cached under keys of their own, read back with the schemas below.
 */

/**
 * Most characters of a reader's comment or question kept: what an Improve button carries at most
 * (improve.ts: 300 of a comment, 500 of a question; Slack shows less). The cache holds no more, so an
 * assistant page of 1,000 unanswered turns stays under about 1 MB in Redis for its 10 minutes.
 */
const READER_TEXT_KEEP = 500;
/** Most characters of the assistant's answer kept (a button carries 300). */
const ANSWER_KEEP = 300;
/** Most characters of a page path or URL kept (a button carries 300; longer ones are never offered). */
const PATH_KEEP = 1_000;
/** Feedback entries read for comments (spec: `limit` 1–100 on GET …/feedback). */
const COMMENTS_LIMIT = 100;
/** Assistant turns read per API page (spec: `limit` 1–1000 on GET …/assistant). */
export const ASSISTANT_LIMIT = 1_000;

/** A reader's comment on a docs page. */
export interface Comment {
  path: string;
  /** Untrusted text from the public internet, cut to {@link READER_TEXT_KEEP}. */
  text: string;
  createdAt: string | null;
  /** Page-level feedback: 👍 (true) or 👎 (false); absent for code snippet and agent feedback. */
  helpful?: boolean | undefined;
  /** code snippet feedback: true. */
  onCode: boolean;
}

const commentSchema = z.object({
  path: z.string(),
  text: z.string(),
  createdAt: z.string().nullable(),
  helpful: z.boolean().optional(),
  onCode: z.boolean(),
});

/** The comments of one page of GET …/feedback (entries without a comment dropped), and whether the API had more. */
export interface CommentsPage {
  comments: Comment[];
  /** Entries the API returned (with or without a comment). */
  scanned: number;
  hasMore: boolean;
}

const commentsPageSchema = z.object({ comments: z.array(commentSchema), scanned: z.number(), hasMore: z.boolean() });

function toComment(e: FeedbackEntry): Comment | undefined {
  const text = e.comment?.trim();
  if (!text) return undefined;
  return {
    path: e.path.slice(0, PATH_KEEP),
    text: text.slice(0, READER_TEXT_KEEP),
    createdAt: e.createdAt,
    ...(e.helpful !== undefined ? { helpful: e.helpful } : {}),
    onCode: e.source === 'code_snippet',
  };
}

/**
 * The comments of the first {@link COMMENTS_LIMIT} feedback entries of a range (one call, every
 * source, newest first after sorting by `createdAt`: the spec names no order), through the cache.
 * @throws as AnalyticsCache.read.
 */
export async function readComments(
  cache: AnalyticsCache,
  range: AnalyticsDateRange,
  who: QueryCaller,
): Promise<Cached<CommentsPage>> {
  const q = { dateFrom: range.dateFrom, dateTo: range.dateTo, limit: COMMENTS_LIMIT };
  const projectId = who.projectId ?? cache.defaultProjectId;
  const query: CachedQuery<CommentsPage> = {
    endpoint: 'feedback',
    id: `feedback-comments:${keyParts([projectId, q.dateFrom, q.dateTo, q.limit])}`,
    schema: commentsPageSchema,
    fetch: async (api, onAttempt) => {
      const page = await api.getFeedback(q, { onAttempt });
      const comments = page.feedback.map(toComment).filter((c): c is Comment => c !== undefined);
      comments.sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
      return { comments, scanned: page.feedback.length, hasMore: page.hasMore };
    },
    query: q,
  };
  return cache.read(query, who.purpose, projectId, who.user);
}

/** One question the docs assistant could not answer (GET …/assistant, `resolutionStatus: unanswered`). */
export interface UnansweredTurn {
  /** The reader's question: untrusted text, cut to {@link READER_TEXT_KEEP}. */
  query: string;
  /** The assistant's answer (its non-answer), cut to {@link ANSWER_KEEP}. */
  response: string;
  timestamp: string;
  pageUrl: string | null;
}

const turnSchema = z.object({
  query: z.string(),
  response: z.string(),
  timestamp: z.string(),
  pageUrl: z.string().nullable(),
});

/** The unanswered turns of one page of GET …/assistant, and where the next page starts. */
export interface UnansweredPage {
  turns: UnansweredTurn[];
  /** Turns the API returned (answered ones included). */
  scanned: number;
  nextCursor: string | null;
}

const unansweredPageSchema = z.object({
  turns: z.array(turnSchema),
  scanned: z.number(),
  nextCursor: z.string().nullable(),
});

function toTurn(c: AssistantConversation): UnansweredTurn | undefined {
  if (c.resolutionStatus !== 'unanswered' || !c.query.trim()) return undefined;
  return {
    query: c.query.slice(0, READER_TEXT_KEEP),
    response: c.response.slice(0, ANSWER_KEEP),
    timestamp: c.timestamp.slice(0, 40),
    pageUrl: c.pageUrl === null ? null : c.pageUrl.slice(0, PATH_KEEP),
  };
}

/**
 * The unanswered questions of one page of assistant conversations ({@link ASSISTANT_LIMIT} turns,
 * from `cursor`), through the cache.
 * @throws as AnalyticsCache.read (DocsApiCursorRejectedError for a refused cursor).
 */
export async function readUnanswered(
  cache: AnalyticsCache,
  q: AnalyticsDateRange & { cursor?: string | undefined },
  who: QueryCaller,
): Promise<Cached<UnansweredPage>> {
  const query = {
    dateFrom: q.dateFrom,
    dateTo: q.dateTo,
    limit: ASSISTANT_LIMIT,
    ...(q.cursor ? { cursor: q.cursor } : {}),
  };
  const projectId = who.projectId ?? cache.defaultProjectId;
  const cached: CachedQuery<UnansweredPage> = {
    endpoint: 'assistant',
    id: `assistant-unanswered:${keyParts([projectId, query.dateFrom, query.dateTo, query.limit, q.cursor])}`,
    schema: unansweredPageSchema,
    fetch: async (api, onAttempt) => {
      const page = await api.getAssistantConversations(query, { onAttempt });
      const turns = page.conversations.map(toTurn).filter((t): t is UnansweredTurn => t !== undefined);
      return { turns, scanned: page.conversations.length, nextCursor: page.hasMore ? page.nextCursor : null };
    },
    query,
  };
  return cache.read(cached, who.purpose, projectId, who.user);
}
