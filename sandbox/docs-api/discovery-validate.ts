/**
 * Request checks of the fake discovery API, written from the spec's request schemas
 * (test/fixtures/mintlify/discovery-openapi.json): what the schema requires, the types and ranges it
 * gives, and the limits its descriptions state ("currentPath … Maximum length: 200 characters").
 * Each check returns the first problem as one sentence, or undefined when the body conforms.
 * Extra properties are allowed, as the schemas allow them (AI SDK clients add `id`, `trigger`, …).
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Required fields of each v2 message part type (spec: messages[].parts[].oneOf). */
const PART_FIELDS: Record<string, string[]> = {
  text: ['text'],
  reasoning: ['text'],
  'source-url': ['sourceId', 'url'],
  file: ['mediaType', 'url'],
  'step-start': [],
};

function partProblem(part: unknown, where: string): string | undefined {
  if (!isObj(part) || typeof part.type !== 'string') return `${where} must be an object with a string type`;
  const fields = PART_FIELDS[part.type];
  if (!fields) return `${where}.type must be one of ${Object.keys(PART_FIELDS).join(', ')}`;
  const missing = fields.find((f) => typeof part[f] !== 'string');
  return missing ? `${where}.${missing} must be a string` : undefined;
}

function messageProblem(m: unknown, i: number): string | undefined {
  const where = `messages[${i}]`;
  if (!isObj(m)) return `${where} must be an object`;
  if (typeof m.id !== 'string') return `${where}.id must be a string`;
  if (!['system', 'assistant', 'user'].includes(m.role as string))
    return `${where}.role must be system, assistant or user`;
  if (m.createdAt !== undefined && (typeof m.createdAt !== 'string' || Number.isNaN(Date.parse(m.createdAt))))
    return `${where}.createdAt must be a date-time`;
  if (m.metadata !== undefined && !isObj(m.metadata)) return `${where}.metadata must be an object`;
  if (!Array.isArray(m.parts)) return `${where}.parts must be an array`;
  for (const [j, part] of m.parts.entries()) {
    const problem = partProblem(part, `${where}.parts[${j}]`);
    if (problem) return problem;
  }
  return undefined;
}

function filterProblem(filter: unknown, keys: string[]): string | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (!isObj(filter)) return 'filter must be an object';
  const bad = keys.find((k) => filter[k] !== undefined && typeof filter[k] !== 'string');
  if (bad) return `filter.${bad} must be a string`;
  return filter.groups === undefined || isStringArray(filter.groups)
    ? undefined
    : 'filter.groups must be an array of strings';
}

function contextProblem(context: unknown): string | undefined {
  if (context === undefined) return undefined;
  if (!Array.isArray(context)) return 'context must be an array';
  const bad = context.findIndex(
    (c) => !isObj(c) || !['code', 'textSelection'].includes(c.type as string) || typeof c.value !== 'string',
  );
  return bad < 0 ? undefined : `context[${bad}] must have type code or textSelection and a string value`;
}

/** POST /v2/assistant/{domain}/message: `fp` and `messages` required; the optional fields typed as the spec says. */
export function assistantMessageProblem(body: unknown): string | undefined {
  if (!isObj(body)) return 'body must be a JSON object';
  if (typeof body.fp !== 'string') return 'fp is required and must be a string';
  if (!Array.isArray(body.messages)) return 'messages is required and must be an array';
  for (const [i, m] of body.messages.entries()) {
    const problem = messageProblem(m, i);
    if (problem) return problem;
  }
  for (const key of ['threadId', 'threadKey', 'currentPath'] as const) {
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== 'string')
      return `${key} must be a string`;
  }
  if (typeof body.currentPath === 'string' && body.currentPath.length > 200)
    return 'currentPath must be at most 200 characters';
  if (body.retrievalPageSize !== undefined && typeof body.retrievalPageSize !== 'number')
    return 'retrievalPageSize must be a number';
  return filterProblem(body.filter, ['version', 'language']) ?? contextProblem(body.context);
}

/** POST /v1/search/{domain}: `query` required; `pageSize` an integer 1–50; `scoreThreshold` 0–1. */
export function searchProblem(body: unknown): string | undefined {
  if (!isObj(body)) return 'body must be a JSON object';
  if (typeof body.query !== 'string') return 'query is required and must be a string';
  const size = body.pageSize;
  if (size !== undefined && !(Number.isInteger(size) && (size as number) >= 1 && (size as number) <= 50))
    return 'pageSize must be an integer between 1 and 50';
  const score = body.scoreThreshold;
  if (score !== undefined && !(typeof score === 'number' && score >= 0 && score <= 1))
    return 'scoreThreshold must be a number between 0 and 1';
  return filterProblem(body.filter, ['version', 'language', 'tag']);
}

/** POST /v1/page/{domain}: `path` required; `groups` an array of strings. */
export function pageProblem(body: unknown): string | undefined {
  if (!isObj(body)) return 'body must be a JSON object';
  if (typeof body.path !== 'string') return 'path is required and must be a string';
  return body.groups === undefined || isStringArray(body.groups) ? undefined : 'groups must be an array of strings';
}

/** The text of the last user message's text parts (the question), '' when there is none. */
export function lastQuestion(body: { messages: unknown[] }): string {
  const user = [...body.messages].reverse().find((m) => isObj(m) && m.role === 'user') as Obj | undefined;
  const parts = Array.isArray(user?.parts) ? user.parts : [];
  return parts
    .filter((p) => isObj(p) && p.type === 'text')
    .map((p) => String((p as Obj).text))
    .join('\n')
    .trim();
}
