/**
 * Shapes of the discovery API (spec: test/fixtures/mintlify/discovery-openapi.json, OpenAPI 3.0.1,
 * base https://api.mintlify.com/discovery): the request bodies as TypeScript types, and tolerant
 * zod schemas of what comes back (unknown fields ignored, results without a `path` dropped).
 *
 * The v2 assistant answer is an AI SDK v5 UI message stream (ai-sdk.dev "Stream Protocols",
 * v5/docs/ai-sdk-ui/stream-protocol): server-sent events whose `data` is one JSON chunk
 * (`start`, `start-step`, `text-start`, `text-delta` {id, delta}, `text-end`, `tool-input-start`
 * {toolCallId, toolName}, `tool-input-delta`, `tool-input-available` {toolCallId, toolName, input},
 * `tool-output-available` {toolCallId, output} (no toolName: match it by toolCallId), `error`
 * {errorText}, `finish-step`, `finish` {messageMetadata?}, reasoning, source and `data-*` parts …),
 * ended by `data: [DONE]`; the response carries `x-vercel-ai-ui-message-stream: v1`. Only the
 * chunks the bot uses are parsed here; any other `type` is skipped.
 */
import { z } from 'zod';

/** A text part of a UI message (spec, v2 messages[].parts[]: "Text content part", `type` and `text` required). */
export interface AssistantTextPart {
  type: 'text';
  text: string;
}

/**
 * One message of the conversation as the v2 endpoint takes it: an AI SDK v5 `UIMessage` (spec:
 * `id`, `role` (system, assistant, user) and `parts` required; `createdAt` date-time, `metadata`
 * optional). The bot sends text parts only.
 */
export interface AssistantUIMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  parts: AssistantTextPart[];
  createdAt?: string;
  metadata?: Record<string, unknown>;
}

/** The v2 message `filter` (spec: version, language, groups). */
export interface AssistantFilter {
  version?: string;
  language?: string;
  groups?: string[];
}

/**
 * Body of POST /v2/assistant/{domain}/message (spec: `fp` and `messages` required).
 * `threadKey` is not in the spec's schema (which allows extra properties); the vendor's guide
 * (guides/assistant-embed.mdx) says every later message sends both `threadId` and `threadKey`.
 */
export interface AssistantMessageBody {
  /** "Fingerprint identifier for tracking conversation sessions": `anonymous` or a stable id of the person. */
  fp: string;
  messages: AssistantUIMessage[];
  threadId?: string;
  threadKey?: string;
  /** Search results the answer is built from (spec: number, default 5, "Recommended: 5"). */
  retrievalPageSize?: number;
  filter?: AssistantFilter;
  /** The page the person is on; spec: "Maximum length: 200 characters". */
  currentPath?: string;
}

/** The search `filter` (spec: version, language, tag, groups). */
export interface SearchFilter extends AssistantFilter {
  tag?: string;
}

/** Body of POST /v1/search/{domain} (spec: `query` required; `pageSize` 1–50, default 10; `scoreThreshold` 0–1). */
export interface SearchBody {
  query: string;
  pageSize?: number;
  scoreThreshold?: number;
  filter?: SearchFilter;
}

/**
 * A docs page as the bot uses it, from a search result or the assistant's `search` tool output:
 * `path` (the spec: "The path or URL to the source document"), `title` from `metadata.title` when it
 * is a string, `content` (the matching text; '' when absent) and the raw `metadata` object.
 */
export interface DocsPage {
  path: string;
  title: string | undefined;
  content: string;
  metadata: Record<string, unknown>;
}

const searchResultSchema = z.object({
  path: z.string().min(1),
  content: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** A {@link DocsPage} from one search result, or undefined when it has no usable `path` (tolerant: skipped). */
function toDocsPage(raw: unknown): DocsPage | undefined {
  const parsed = searchResultSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const metadata = parsed.data.metadata ?? {};
  const title = typeof metadata.title === 'string' && metadata.title.trim() !== '' ? metadata.title : undefined;
  return { path: parsed.data.path, title, content: parsed.data.content ?? '', metadata };
}

/**
 * The pages of a `search` tool output. The vendor documents the output only by example (the v1
 * guide reads a list of results with `path`, `url` and `metadata.title`); this accepts that list, or
 * an object holding it under `results`, and drops entries without a `path`.
 */
export function pagesFromToolOutput(output: unknown): DocsPage[] {
  const list = Array.isArray(output)
    ? output
    : z.object({ results: z.array(z.unknown()) }).safeParse(output).data?.results;
  return (list ?? []).map(toDocsPage).filter((p): p is DocsPage => p !== undefined);
}

/** POST /v1/search/{domain} → 200: an array of `{content, path, metadata}` (spec); a non-array body is invalid. */
export const searchResponseSchema = z
  .array(z.unknown())
  .transform((items) => items.map(toDocsPage).filter((p): p is DocsPage => p !== undefined));

/** POST /v1/page/{domain} → 200 `{path, content}` (spec: both optional; the bot needs `content`). */
export const pageResponseSchema = z.object({ path: z.string().optional(), content: z.string() });
/** A page's full text: `path` as answered (else as asked) and `content`. */
export interface PageContent {
  path: string;
  content: string;
}

/** The UI message stream chunks the bot reads (see the module doc); unknown fields are ignored. */
export const uiMessageChunkSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text-delta'), id: z.string().optional(), delta: z.string() }),
  z.object({ type: z.literal('tool-input-start'), toolCallId: z.string(), toolName: z.string() }),
  z.object({
    type: z.literal('tool-input-available'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
  }),
  z.object({ type: z.literal('tool-output-available'), toolCallId: z.string(), output: z.unknown() }),
  z.object({ type: z.literal('error'), errorText: z.string() }),
  z.object({ type: z.literal('finish'), threadId: z.string().optional(), messageMetadata: z.unknown().optional() }),
]);
/** One parsed chunk of {@link uiMessageChunkSchema}. */
export type UIMessageChunk = z.output<typeof uiMessageChunkSchema>;
/** The `type`s {@link uiMessageChunkSchema} knows; a chunk of one of these that does not parse is malformed. */
export const KNOWN_CHUNK_TYPES: ReadonlySet<string> = new Set([
  'text-delta',
  'tool-input-start',
  'tool-input-available',
  'tool-output-available',
  'error',
  'finish',
]);
