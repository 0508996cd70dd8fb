import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DiscoveryClient,
  questionMessage,
  type AssistantAnswer,
} from '../../../../src/platform/docs-api/discovery-client.js';
import { AssistantStreamError, DocsApiNetworkError } from '../../../../src/platform/docs-api/errors.js';
import type { AssistantEvent } from '../../../../src/platform/docs-api/ui-message-stream.js';
import { sseEvent } from '../../../helpers/sse.js';

// The discovery client's answer streams over a real connection, against a server each test
// scripts: a connection dropped mid-answer, a stall (idle timeout), an answer over its time limit,
// the caller aborting, and headers that never come. Waits are on conditions, with short limits.

const KEY = 'mint_dsc_stream_key';
let server: Server | undefined;
let client: DiscoveryClient | undefined;

afterEach(async () => {
  await client?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  client = undefined;
});

/** Starts a server answering every request with `script`, and a client of it. */
async function serve(
  script: (req: IncomingMessage, res: ServerResponse) => void,
  opts: { idleMs?: number; totalMs?: number } = {},
): Promise<DiscoveryClient> {
  server = createServer(script);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  client = new DiscoveryClient({
    baseUrl: `http://127.0.0.1:${port}/discovery`,
    apiKey: KEY,
    domain: 'acme',
    answerIdleTimeoutMs: opts.idleMs ?? 2_000,
    answerTimeoutMs: opts.totalMs ?? 5_000,
  });
  return client;
}

function startStream(res: ServerResponse, first = 'Hello '): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' });
  res.write(
    sseEvent({ type: 'start' }) +
      sseEvent({ type: 'text-start', id: 't' }) +
      sseEvent({ type: 'text-delta', id: 't', delta: first }),
  );
}

async function collect(
  answer: AssistantAnswer,
  onEvent: (e: AssistantEvent) => void = () => {},
): Promise<{ events: AssistantEvent[]; error?: unknown }> {
  const events: AssistantEvent[] = [];
  try {
    for await (const e of answer.events) {
      events.push(e);
      onEvent(e);
    }
    return { events };
  } catch (error) {
    return { events, error };
  }
}

const ask = (c: DiscoveryClient, signal?: AbortSignal) =>
  c.sendMessage({ fp: 'fp', messages: [questionMessage('q')] }, { signal });

describe('answer streams over a real connection', () => {
  it('a connection dropped mid-answer ends as cut off, after the text that arrived', async () => {
    const c = await serve((_req, res) => {
      startStream(res);
      res.write(sseEvent({ type: 'text-delta', id: 't', delta: 'world' }), () => res.destroy());
    });
    const { events, error } = await collect(await ask(c));
    expect(events).toEqual([
      { type: 'text', delta: 'Hello ' },
      { type: 'text', delta: 'world' },
    ]);
    expect(error).toBeInstanceOf(AssistantStreamError);
    expect(error).toMatchObject({ reason: 'cut_off', textChars: 11, retryable: true });
  });

  it('a stream that stalls longer than the idle timeout ends as timed out', async () => {
    const c = await serve((_req, res) => startStream(res), { idleMs: 150 });
    const { events, error } = await collect(await ask(c));
    expect(events).toEqual([{ type: 'text', delta: 'Hello ' }]);
    expect(error).toMatchObject({ name: 'AssistantStreamError', reason: 'timed_out', retryable: true });
  });

  it('an answer that keeps trickling past its total time limit ends as timed out', async () => {
    const c = await serve(
      (_req, res) => {
        startStream(res);
        const timer = setInterval(() => res.write(sseEvent({ type: 'text-delta', id: 't', delta: '.' })), 20);
        res.on('close', () => clearInterval(timer));
      },
      { idleMs: 1_000, totalMs: 300 },
    );
    const { events, error } = await collect(await ask(c));
    expect(events.length).toBeGreaterThan(2);
    expect(error).toMatchObject({ reason: 'timed_out' });
  });

  it("the caller's signal aborts a stream (shutdown): aborted, not retryable", async () => {
    const c = await serve((_req, res) => startStream(res));
    const controller = new AbortController();
    const { events, error } = await collect(await ask(c, controller.signal), () => controller.abort());
    expect(events).toEqual([{ type: 'text', delta: 'Hello ' }]);
    expect(error).toMatchObject({ reason: 'aborted', retryable: false });
  });

  it('headers that never come end as a network error the request may have reached (sent)', async () => {
    const c = await serve(() => {}, { idleMs: 150 });
    const err = await ask(c).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocsApiNetworkError);
    expect((err as DocsApiNetworkError).sent).toBe(true);
    expect((err as Error).message).toContain('timed out');
  });

  it('a caller abort before the answer began is a network error that says so', async () => {
    const c = await serve(() => {}, { idleMs: 5_000 });
    const controller = new AbortController();
    const pending = ask(c, controller.signal).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 50);
    const err = await pending;
    expect(err).toBeInstanceOf(DocsApiNetworkError);
    expect((err as Error).message).toContain('aborted by the caller');
  });
});
