/**
 * A stand-in for the bot's HTTP endpoint that records every request it receives (headers and raw
 * body) and answers 200 `{}` — for checking what the drivers send without running the bot.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in received. */
export interface RecordedRequest {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A running stand-in: its `/slack/events` URL, the requests so far, and `close()`. */
export interface RecordingBot {
  url: string;
  requests: RecordedRequest[];
  server: Server;
  close(): Promise<void>;
}

/**
 * Start a recording endpoint on an ephemeral port of 127.0.0.1.
 * @returns the running stand-in; call `close()` when done.
 */
export async function startRecordingBot(): Promise<RecordingBot> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/slack/events`,
    requests,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
