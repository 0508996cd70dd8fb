import { Redis } from 'ioredis';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RedisErrorCode, redisErrorCode, redisReplyCode } from '../../../src/platform/redis-errors.js';
import { isReadOnlyError } from '../../../src/platform/redis.js';
import { BUSY_TEXT, notRecordedText, UNSURE_TEXT } from '../../../src/platform/slack/edge.js';
import { TEST_REDIS_URL } from '../../helpers/redis.js';

/**
 * The codes the bot decides Redis failures on, from the errors the installed ioredis really
 * throws: a real Redis's error reply, a server that answers every command with READONLY (what a
 * demoted primary says), one that never answers (ioredis' commandTimeout), and one that is gone.
 */

/** The command names in a chunk of RESP requests (arrays of bulk strings; ioredis sends whole ones). */
function commandNames(raw: string): string[] {
  const names: string[] = [];
  let i = 0;
  while (raw[i] === '*') {
    const end = raw.indexOf('\r\n', i);
    const count = Number(raw.slice(i + 1, end));
    i = end + 2;
    for (let k = 0; k < count; k++) {
      const lenEnd = raw.indexOf('\r\n', i);
      const len = Number(raw.slice(i + 1, lenEnd));
      if (k === 0) names.push(raw.slice(lenEnd + 2, lenEnd + 2 + len).toUpperCase());
      i = lenEnd + 2 + len + 2;
    }
  }
  return names;
}

/**
 * A TCP server speaking just enough RESP: ioredis' handshake is answered as an older Redis would
 * (HELLO unknown, CLIENT SETINFO OK), every other command with `answer` (none: silence).
 */
async function fakeRedis(answer: string | undefined): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk) => {
      for (const name of commandNames(chunk.toString())) {
        if (name === 'HELLO') socket.write("-ERR unknown command 'HELLO'\r\n");
        else if (name === 'CLIENT') socket.write('+OK\r\n');
        else if (answer !== undefined) socket.write(answer);
      }
    });
  });
  server.on('close', () => {
    for (const s of sockets) s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

const clients: Redis[] = [];
const servers: Server[] = [];

/** A client of the fake on `port` that sends commands at once (no ready check) and never retries. */
function clientOf(port: number, extra: { commandTimeout?: number } = {}): Redis {
  const c = new Redis({
    port,
    host: '127.0.0.1',
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    ...extra,
  });
  c.on('error', () => undefined); // the fakes close or refuse connections on purpose: every test asserts the command's own error
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('Redis failures as the bot decides on them (redis-errors.ts, against the installed ioredis)', () => {
  const real = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  afterAll(() => real.quit());

  it("a real Redis's error reply is decided on by its error prefix, and a record it refused is 'busy'", async () => {
    const err = await real.call('NO-SUCH-COMMAND').catch((e: unknown) => e);
    expect(redisReplyCode(err)).toBe('ERR');
    expect(redisErrorCode(err)).toBe('ERR');
    expect(notRecordedText(err)).toBe(BUSY_TEXT);
  });

  it('READONLY from a demoted primary is the code the reconnect decides on', async () => {
    const { server, port } = await fakeRedis("-READONLY You can't write against a read only replica.\r\n");
    servers.push(server);
    const err = await clientOf(port)
      .set('k', 'v')
      .catch((e: unknown) => e);
    expect(redisReplyCode(err)).toBe(RedisErrorCode.ReadOnly);
    expect(isReadOnlyError(err as Error)).toBe(true);
  });

  it("ioredis' command timeout is command_timeout, and a record that timed out is 'can't tell', not 'busy'", async () => {
    const { server, port } = await fakeRedis(undefined);
    servers.push(server);
    const err = await clientOf(port, { commandTimeout: 50 })
      .set('k', 'v')
      .catch((e: unknown) => e);
    expect(redisReplyCode(err)).toBeUndefined();
    expect(redisErrorCode(err)).toBe(RedisErrorCode.CommandTimeout);
    expect(notRecordedText(err)).toBe(UNSURE_TEXT);
  });

  it('a connection that is gone has no code: nothing was written, so the person hears "busy"', async () => {
    const { server, port } = await fakeRedis(undefined);
    await new Promise((resolve) => server.close(resolve));
    const err = await clientOf(port)
      .set('k', 'v')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(redisErrorCode(err)).toBeUndefined();
    expect(notRecordedText(err)).toBe(BUSY_TEXT);
  });
});
