/**
 * Which page paths may go into an agent instruction. Anyone can visit a made-up URL (or send
 * feedback about one) and make it a "page" in the analytics, so a path with spaces, quotes, markup
 * or newlines (text that could read as instructions) is listed in reports but never offered to the
 * agent.
 */

/**
 * Characters a page path may hold to be offered to the agent: a path as the analytics API reports
 * it (`/api-reference/endpoint/trigger-update`), with non-ASCII percent-encoded.
 */
export const SAFE_DOCS_PATH = /^\/[A-Za-z0-9\-._~%/]{0,300}$/;

/** True when `path` may go into an "Improve with agent" instruction ({@link SAFE_DOCS_PATH}). */
export function isSafeDocsPath(path: string): boolean {
  return SAFE_DOCS_PATH.test(path);
}

/**
 * The docs path of a feedback entry's `path` ("The path or URL to the source document", spec): the
 * path itself, or the pathname of an `http(s)` URL; undefined for anything else.
 */
export function docsPathOf(raw: string): string | undefined {
  if (raw.startsWith('/')) return raw;
  if (!/^https?:\/\//i.test(raw)) return undefined;
  try {
    return new URL(raw).pathname;
  } catch {
    return undefined;
  }
}
