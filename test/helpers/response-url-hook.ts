import { createServer, type Server } from 'node:http';

/**
 * A local stand-in for a Slack response_url: every POST's JSON body is kept in `received`, and
 * answered with `status` (200 unless a test sets another, e.g. 404 for an expired URL).
 */
export interface ResponseUrlHook {
  url: string;
  received: Record<string, unknown>[];
  status: number;
  close(): Promise<void>;
}

/** Starts a {@link ResponseUrlHook} on 127.0.0.1 (a free port); `close` it after the test. */
export async function startResponseUrlHook(): Promise<ResponseUrlHook> {
  const hook = {
    received: [] as Record<string, unknown>[],
    status: 200,
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hook.received.push(JSON.parse(body) as Record<string, unknown>);
      res.statusCode = hook.status;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return Object.assign(hook, { url, close: () => new Promise<void>((r) => server.close(() => r())) });
}
