/**
 * The calls of the docs API clients (client.ts and the discovery client), as named to a
 * {@link DocsApiObserver} (and in the `operation` label of the request metrics).
 */
export const DOCS_API_OPERATIONS = [
  'create_job',
  'get_job',
  'send_message',
  'get_visitors',
  'assistant_message',
  'search_docs',
  'get_page',
  'get_views',
  'get_searches',
  'get_feedback_by_page',
  'get_feedback',
  'get_assistant_conversations',
  'request_preview',
  'get_update_status',
] as const;

/** One of {@link DOCS_API_OPERATIONS}. */
export type DocsApiOperation = (typeof DOCS_API_OPERATIONS)[number];

/** What a docs API client reports about each HTTP request it makes. */
export interface DocsApiObserver {
  /**
   * @param statusCode - the HTTP status, or undefined when no response came (network error, timeout).
   * @param seconds - from sending the request to having read its body (or failing).
   */
  docsApiRequest(operation: DocsApiOperation, statusCode: number | undefined, seconds: number): void;
}
