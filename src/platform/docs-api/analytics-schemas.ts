import { z } from 'zod';

/**
 * Zod schemas of the analytics endpoints beyond visitors (spec: analytics.openapi.json, copied in
 * test/fixtures/mintlify), read tolerantly: unknown fields are dropped, a value outside one of the
 * spec's enums becomes `'other'` instead of failing the page, fields the spec marks nullable may
 * also be absent (read as null). Fields the spec requires otherwise stay required.
 */

/** spec: FeedbackResponse.feedback[].source and the `source` filter. */
export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
/** One of {@link FEEDBACK_SOURCES}: code block, page-level, a third-party AI agent, a bare 👍/👎. */
export type FeedbackSource = (typeof FEEDBACK_SOURCES)[number];

/** spec: FeedbackResponse.feedback[].status (the `status` filter takes a comma-separated list of them). */
export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
/** One of {@link FEEDBACK_STATUSES}: the review status the docs team set on the dashboard. */
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/**
 * spec: AssistantConversationsResponse.conversations[].resolutionStatus; `unanswered`: the
 * assistant marked the question as not covered by the docs.
 */
const RESOLUTION_STATUSES = ['answered', 'unanswered'] as const;

/** spec: AssistantConversationsResponse.conversations[].responseType ("Defaults to `answer` when not present"). */
const RESPONSE_TYPES = ['answer', 'clarifying_question'] as const;
/** `clarifying_question`: the assistant asked back instead of answering; `response` is its question. */
type ResponseType = (typeof RESPONSE_TYPES)[number];

/** A value the spec enumerates, or `'other'` for anything else the API sends (a newer value, null, a number…). */
type Tolerant<T extends string> = T | 'other';

/** Reads any value: one of `values` stays itself, anything else (missing included) becomes `'other'`. */
function tolerantEnum<const T extends readonly string[]>(values: T) {
  return z
    .unknown()
    .optional()
    .transform((v): Tolerant<T[number]> => (typeof v === 'string' && values.includes(v) ? v : 'other'));
}

/** A nullable string the API may also leave out: absent reads as null. */
const nullableString = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

const trafficRow = { path: z.string(), human: z.number(), ai: z.number(), total: z.number() };

/** spec: ViewsByPageResponse (GET /v1/analytics/{projectId}/views → 200): content view events, not people. */
export const viewsResponseSchema = z.object({
  totals: z.object({ human: z.number(), ai: z.number(), total: z.number() }),
  views: z.array(z.object(trafficRow)),
  hasMore: z.boolean(),
});
/** A parsed views page: site-wide `totals`, per-page `views` (events), `hasMore` (offset paging). */
export type ViewsResponse = z.output<typeof viewsResponseSchema>;

/** spec: SearchesResponse.searches[]. */
export const searchRowSchema = z.object({
  /** The term readers typed. */
  searchQuery: z.string(),
  /** How many times it was searched in the range. */
  hits: z.number(),
  /** Click-through rate; the spec gives no unit (a fraction in the vendor's dashboard). */
  ctr: z.number(),
  /** The most-clicked result path, or null when no result was clicked. */
  topClickedPage: nullableString,
  /** When it was last searched (the spec gives no format; ISO 8601 in practice). */
  lastSearchedAt: z.string(),
});
/** One search term of a searches page. */
export type SearchRow = z.output<typeof searchRowSchema>;

/**
 * spec: SearchesResponse (GET …/searches → 200). There is no `hasMore`: a next page exists iff
 * `nextCursor` is a string.
 */
export const searchesResponseSchema = z.object({
  searches: z.array(searchRowSchema),
  /** Search events in the range: the sum of all hits, not the number of distinct terms. */
  totalSearches: z.number(),
  nextCursor: nullableString,
});
/** A parsed searches page, terms by `hits` descending. */
export type SearchesResponse = z.output<typeof searchesResponseSchema>;

/** spec: FeedbackGroupedByPageResponse.feedback[]. */
export const feedbackByPageRowSchema = z.object({
  path: z.string(),
  /** 👍 of contextual (page-level) feedback. */
  thumbsUp: z.number(),
  /** 👎 of contextual (page-level) feedback. */
  thumbsDown: z.number(),
  /** Code snippet feedback entries (not thumbs). */
  code: z.number(),
  /** All feedback entries of the page. */
  total: z.number(),
});
/** One page of the feedback-by-page aggregate. */
export type FeedbackByPageRow = z.output<typeof feedbackByPageRowSchema>;

/** spec: FeedbackGroupedByPageResponse (GET …/feedback/by-page → 200): no cursor, no offset, only `limit`. */
export const feedbackByPageResponseSchema = z.object({
  feedback: z.array(feedbackByPageRowSchema),
  hasMore: z.boolean(),
});
/** A parsed feedback-by-page answer. */
export type FeedbackByPageResponse = z.output<typeof feedbackByPageResponseSchema>;

/**
 * spec: FeedbackResponse.feedback[] — the union of its three variants read as one shape (contextual
 * adds `helpful`; code_snippet adds `code`, `filename`, `lang`). `contact` (the reader's email) is
 * deliberately not read: it must never reach Slack.
 */
export const feedbackEntrySchema = z.object({
  id: z.string(),
  path: z.string(),
  /** The reader's comment: untrusted text from the public internet (escape it before Slack sees it). */
  comment: nullableString,
  createdAt: nullableString,
  source: tolerantEnum(FEEDBACK_SOURCES),
  status: tolerantEnum(FEEDBACK_STATUSES),
  /** Contextual feedback only: whether the reader found the page helpful (👍 true, 👎 false). */
  helpful: z.boolean().optional(),
  /** Code snippet feedback only: the snippet. */
  code: z.string().optional(),
  filename: nullableString,
  lang: nullableString,
});
/** One piece of reader feedback. */
export type FeedbackEntry = z.output<typeof feedbackEntrySchema>;

/** spec: FeedbackResponse (GET …/feedback → 200). */
export const feedbackResponseSchema = z.object({
  feedback: z.array(feedbackEntrySchema),
  /** The cursor of the next page; null on the last. */
  nextCursor: nullableString,
  hasMore: z.boolean(),
});
/** A parsed feedback page. */
export type FeedbackResponse = z.output<typeof feedbackResponseSchema>;

/** spec: AssistantConversationsResponse.conversations[]: one turn (a question and the answer to it). */
export const assistantConversationSchema = z.object({
  id: z.string(),
  /** When the reader asked (the spec gives no format; ISO 8601 in practice). */
  timestamp: z.string(),
  /** The reader's question: untrusted text from the public internet. */
  query: z.string(),
  /** The assistant's answer, or its clarifying question. */
  response: z.string(),
  responseType: z
    .unknown()
    .optional()
    .transform((v): Tolerant<ResponseType> =>
      v === undefined ? 'answer' : (RESPONSE_TYPES.find((t) => t === v) ?? 'other'),
    ),
  /** Docs pages the answer cited. */
  sources: z.array(z.object({ title: z.string(), url: z.string() })),
  resolutionStatus: tolerantEnum(RESOLUTION_STATUSES),
  /** The vendor's automatic category, free text, or null. */
  queryCategory: nullableString,
  /** Full URL of the page the reader asked from, or null. */
  pageUrl: nullableString,
});
/** One parsed assistant turn. */
export type AssistantConversation = z.output<typeof assistantConversationSchema>;

/** spec: AssistantConversationsResponse (GET …/assistant → 200). */
export const assistantConversationsResponseSchema = z.object({
  conversations: z.array(assistantConversationSchema),
  nextCursor: nullableString,
  hasMore: z.boolean(),
});
/** A parsed page of assistant conversations. */
export type AssistantConversationsResponse = z.output<typeof assistantConversationsResponseSchema>;
