/**
 * The checks of the discovery client's request arguments, made before any request: what the spec and
 * the vendor's guide say the server would refuse later.
 */
import type { AssistantMessageBody, SearchBody } from './discovery-schemas.js';

/**
 * Checks a message body before it is sent (spec and guide rules the server would refuse later).
 * @throws RangeError when `fp` is empty, `messages` is empty, `threadId` and `threadKey` do not come
 *   together (guide: a threadId without its key is answered 404), `currentPath` is over 200
 *   characters (spec), or `retrievalPageSize` is not a positive integer.
 */
export function checkMessageBody(body: AssistantMessageBody): void {
  if (body.fp.trim() === '') throw new RangeError('fp must not be empty (use "anonymous" or a stable id)');
  if (body.messages.length === 0) throw new RangeError('messages must hold at least the question');
  if ((body.threadId === undefined) !== (body.threadKey === undefined))
    throw new RangeError('threadId and threadKey go together');
  if (body.currentPath !== undefined && body.currentPath.length > 200)
    throw new RangeError('currentPath is over 200 characters');
  const size = body.retrievalPageSize;
  if (size !== undefined && !(Number.isInteger(size) && size > 0))
    throw new RangeError('retrievalPageSize must be a positive integer');
}

/**
 * Checks a search body: a non-blank `query`, `pageSize` an integer 1–50, `scoreThreshold` 0–1 (spec).
 * @throws RangeError otherwise.
 */
export function checkSearchBody(body: SearchBody): void {
  if (body.query.trim() === '') throw new RangeError('query must not be blank');
  const size = body.pageSize;
  if (size !== undefined && !(Number.isInteger(size) && size >= 1 && size <= 50))
    throw new RangeError('pageSize must be an integer from 1 to 50');
  const score = body.scoreThreshold;
  if (score !== undefined && !(score >= 0 && score <= 1)) throw new RangeError('scoreThreshold must be from 0 to 1');
}
