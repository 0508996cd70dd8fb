import { createServer, type Server, type Socket } from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { SwitchSafeSentinelConnector } from '../../../src/platform/redis-sentinel.js';
import { RedisConnections, type RedisTarget } from '../../../src/platform/redis.js';
import { arrayLogger } from '../../helpers/logs.js';
import { until } from '../../helpers/redis-topology.js';
import { TEST_REDIS_URL } from '../../helpers/redis.js';

/**
 * A Sentinel announces a failover (`+switch-master`) while a client is already reconnecting (its
 * primary died first) and is waiting for a Sentinel to name the primary: ioredis' own connector
 * ends the client for good (every later command fails with `Connection is closed.`); the bot's
 * (SwitchSafeSentinelConnector, which redis.ts gives every Sentinel connection) reconnects.
 *
 * The Sentinel is a fake speaking RESP (the commands ioredis sends a Sentinel: `SENTINEL
 * get-master-addr-by-name`, `SENTINEL sentinels`, `SUBSCRIBE +switch-master`) whose answer naming
 * the primary the test holds back; the primary is the test Redis.
 */

const PRIMARY = new URL(TEST_REDIS_URL);
const NAME = 'mymaster';

/** RESP encodings (Redis docs: "Redis serialization protocol specification"). */
const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
const array = (items: string[]) => `*${items.length}\r\n${items.join('')}`;

/** A fake Sentinel: names the primary (or holds the answer back), and publishes `+switch-master` on demand. */
class FakeSentinel {
  private readonly subscribers = new Set<Socket>();
  private held: (() => void)[] = [];
  /** While true, answers to `get-master-addr-by-name` wait for {@link release}. */
  hold = false;
  /** How many `get-master-addr-by-name` were asked. */
  asked = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<FakeSentinel> {
    const ready: { fake?: FakeSentinel } = {};
    const server = createServer((socket) => ready.fake!.serve(socket));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    ready.fake = new FakeSentinel(server, (server.address() as { port: number }).port);
    return ready.fake;
  }

  private serve(socket: Socket): void {
    let buffered = '';
    socket.on('error', () => undefined);
    socket.on('close', () => this.subscribers.delete(socket));
    socket.on('data', (d) => {
      buffered += d.toString();
      // One command per `*N` array of bulk strings (ioredis sends no inline commands).
      for (;;) {
        const parsed = parseCommand(buffered);
        if (!parsed) break;
        buffered = buffered.slice(parsed.length);
        this.answer(
          socket,
          parsed.args.map((a) => a.toLowerCase()),
        );
      }
    });
  }

  private answer(socket: Socket, args: string[]): void {
    const [cmd, sub] = args;
    if (cmd === 'sentinel' && sub === 'get-master-addr-by-name') {
      this.asked++;
      const reply = () => socket.write(array([bulk(PRIMARY.hostname), bulk(PRIMARY.port || '6379')]));
      if (this.hold) this.held.push(reply);
      else reply();
    } else if (cmd === 'sentinel' && sub === 'sentinels') socket.write('*0\r\n');
    else if (cmd === 'subscribe') {
      this.subscribers.add(socket);
      socket.write(array([bulk('subscribe'), bulk(args[1]!), ':1\r\n']));
    } else socket.write(`-ERR unknown command '${cmd}'\r\n`);
  }

  /** Sends the held answers. */
  release(): void {
    this.hold = false;
    for (const reply of this.held.splice(0)) reply();
  }

  /** Publishes a failover to every subscriber, as a Sentinel does once it promoted a replica. */
  switchMaster(): void {
    const host = PRIMARY.hostname;
    const port = PRIMARY.port || '6379';
    const payload = `${NAME} ${host} ${port} ${host} ${port}`;
    for (const s of this.subscribers) s.write(array([bulk('message'), bulk('+switch-master'), bulk(payload)]));
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  async close(): Promise<void> {
    for (const s of this.subscribers) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}

/** The first whole RESP array of bulk strings in `s`: its arguments and length, or undefined if incomplete. */
function parseCommand(s: string): { args: string[]; length: number } | undefined {
  const head = /^\*(\d+)\r\n/.exec(s);
  if (!head) return undefined;
  let at = head[0].length;
  const args: string[] = [];
  for (let i = 0; i < Number(head[1]); i++) {
    const len = /^\$(\d+)\r\n/.exec(s.slice(at));
    if (!len) return undefined;
    const start = at + len[0].length;
    const end = start + Number(len[1]);
    if (s.length < end + 2) return undefined;
    args.push(s.slice(start, end));
    at = end + 2;
  }
  return { args, length: at };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
});

/**
 * A client of the fake Sentinel with the failover detector on, ready and subscribed; then its
 * connection to the primary is killed while the Sentinel holds its answers, so the client's
 * reconnect waits on it; then the Sentinel announces a failover and answers.
 */
async function switchDuringReconnect(
  options: RedisOptions,
  admin: Redis,
): Promise<{ client: Redis; sentinel: FakeSentinel }> {
  const sentinel = await FakeSentinel.start();
  closers.push(() => sentinel.close());
  const client = new Redis({
    sentinels: [{ host: '127.0.0.1', port: sentinel.port }],
    name: NAME,
    failoverDetector: true,
    retryStrategy: () => 50,
    sentinelRetryStrategy: () => 50,
    ...options,
  });
  client.on('error', () => undefined);
  closers.push(async () => client.disconnect());
  expect(await client.ping()).toBe('PONG');
  await until('the failover detector to subscribe', 5_000, () => sentinel.subscriberCount > 0);

  sentinel.hold = true;
  const asked = sentinel.asked;
  await admin.client('KILL', 'ID', String(await client.client('ID')));
  await until('the reconnect to ask the Sentinel', 5_000, () => sentinel.asked > asked);
  sentinel.switchMaster();
  // The detector's disconnect has run once its message arrived: give the socket a turn, then answer.
  await until('the switch to reach the client', 5_000, () => sentinel.subscriberCount === 0);
  sentinel.release();
  return { client, sentinel };
}

describe('Sentinel: +switch-master while a reconnect asks the Sentinels', () => {
  it("the bot's connector reconnects the client (commands work again)", async () => {
    const admin = new Redis(TEST_REDIS_URL);
    closers.push(async () => admin.disconnect());
    const { client, sentinel } = await switchDuringReconnect({ Connector: SwitchSafeSentinelConnector }, admin);
    await until('the client to be ready again', 5_000, () => client.status === 'ready');
    expect(await client.ping()).toBe('PONG');
    // And it listens for the next failover again.
    await until('the failover detector to subscribe again', 5_000, () => sentinel.subscriberCount > 0);
  });

  it("ioredis' own connector ends the client for good (the race this works around; if this fails, ioredis fixed it)", async () => {
    const admin = new Redis(TEST_REDIS_URL);
    closers.push(async () => admin.disconnect());
    const { client } = await switchDuringReconnect({}, admin);
    await until('the client to end', 5_000, () => client.status === 'end');
    await expect(client.ping()).rejects.toThrow('Connection is closed.');
  });

  it('every Sentinel connection the bot makes uses it (state, intake, and the options BullMQ makes its clients from)', async () => {
    const target: RedisTarget = {
      mode: 'sentinel',
      sentinels: [{ host: '127.0.0.1', port: 1 }],
      name: NAME,
      sentinelTls: false,
      tls: false,
    };
    const conns = new RedisConnections(target, arrayLogger().logger, { redisReconnect: () => undefined });
    closers.push(() => conns.close());
    const connectorOf = (c: unknown) => (c as { connector: unknown }).connector;
    expect(connectorOf(conns.state)).toBeInstanceOf(SwitchSafeSentinelConnector);
    expect(connectorOf(conns.intake())).toBeInstanceOf(SwitchSafeSentinelConnector);
    for (const role of ['queue', 'worker'] as const)
      expect((conns.bull(role) as RedisOptions).Connector).toBe(SwitchSafeSentinelConnector);
  });
});
