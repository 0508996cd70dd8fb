import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../sandbox/free-port.js';

/**
 * Real Redis topologies for the failover tests, started from the `redis-server` binary on free
 * loopback ports (no persistence), each in its own temporary directory; `stop()` kills them all
 * and removes the directories. Nothing here touches the shared Redis on 6379.
 */

/** One redis-server (or Sentinel) process. */
export interface RedisProc {
  port: number;
  proc: ChildProcess;
  /** SIGKILL (kill -9), and wait for the exit. */
  kill9(): Promise<void>;
}

const PAUSE = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `cond` is true (checked every 50 ms) or throws after `timeoutMs` naming `what`. */
export async function until(what: string, timeoutMs: number, cond: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await Promise.resolve(cond()).catch(() => false)) return;
    await PAUSE(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** A plain client for checks (no retries, short timeouts). */
export function adminClient(port: number): Redis {
  const c = new Redis({
    port,
    host: '127.0.0.1',
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
    lazyConnect: false,
  });
  c.on('error', () => undefined);
  return c;
}

/** Runs one command on `port` with a fresh connection. */
export async function command(port: number, ...args: (string | number)[]): Promise<unknown> {
  const c = adminClient(port);
  try {
    return await c.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    c.disconnect();
  }
}

/** A set of processes that are stopped together. */
export class RedisTopology {
  private readonly procs: RedisProc[] = [];
  private readonly dirs: string[] = [];
  private readonly proxies: TcpProxy[] = [];

  /** Starts `redis-server` (or `redis-server <conf> --sentinel` with `sentinel`) on a free port with extra config lines. */
  async start(lines: string[] = [], opts: { sentinel?: boolean } = {}): Promise<RedisProc> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'docs-agent-redis-'));
    this.dirs.push(dir);
    const conf = join(dir, 'redis.conf');
    const data = opts.sentinel ? [] : ['save ""', 'appendonly no', 'repl-diskless-sync-delay 0'];
    writeFileSync(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, ...data, ...lines].join('\n') + '\n');
    const proc = spawn('redis-server', opts.sentinel ? [conf, '--sentinel'] : [conf], { stdio: 'ignore' });
    const exited = new Promise((r) => proc.once('exit', r));
    const p: RedisProc = {
      port,
      proc,
      kill9: async () => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
        await exited;
      },
    };
    this.procs.push(p);
    await until(`redis-server on ${port}`, 10_000, async () => (await command(port, 'PING')) === 'PONG');
    return p;
  }

  /** Starts a TCP proxy on a free port in front of `targetPort`. */
  async proxy(targetPort: number): Promise<TcpProxy> {
    const p = await TcpProxy.start(targetPort);
    this.proxies.push(p);
    return p;
  }

  /** SIGKILLs every process and removes the directories at once (for a process 'exit' hook, where nothing async runs). */
  killSync(): void {
    for (const p of this.procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }

  /** Kills every process, closes the proxies and removes the directories. */
  async stop(): Promise<void> {
    await Promise.all(this.proxies.map((p) => p.close()));
    await Promise.all(this.procs.map((p) => p.kill9()));
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

/**
 * A TCP proxy standing for a managed service's single endpoint: new connections go to the current
 * target; {@link repoint} changes the target for new connections only, and existing ones stay on
 * the old server (as a connection to a DNS name's old address does), so a client there meets
 * READONLY once the old primary is demoted.
 */
export class TcpProxy {
  readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private target: number,
  ) {}

  static async start(target: number): Promise<TcpProxy> {
    const port = await freePort();
    const server = createServer();
    const proxy = new TcpProxy(server, port, target);
    server.on('connection', (client) => proxy.pipe(client));
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    return proxy;
  }

  private pipe(client: Socket): void {
    const upstream = connect(this.target, '127.0.0.1');
    this.sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  }

  /** New connections go to `target` from now on. */
  repoint(target: number): void {
    this.target = target;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}

/** The name the test Sentinels monitor. */
export const SENTINEL_NAME = 'mymaster';

/**
 * Three Sentinels watching `primaryPort` (quorum 2, down after 1 s, failover timeout 10 s), once
 * they agree they can fail over (`SENTINEL CKQUORUM`) and know the replica.
 */
export async function sentinels(t: RedisTopology, primaryPort: number, replicas = 1): Promise<RedisProc[]> {
  const lines = [
    `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primaryPort} 2`,
    `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
    `sentinel failover-timeout ${SENTINEL_NAME} 10000`,
    `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
  ];
  const procs = await Promise.all([0, 1, 2].map(() => t.start(lines, { sentinel: true })));
  for (const s of procs) {
    await until(`Sentinel ${s.port} to see a quorum`, 30_000, async () =>
      String(await command(s.port, 'SENTINEL', 'CKQUORUM', SENTINEL_NAME)).startsWith('OK 3'),
    );
    const known = async () => ((await command(s.port, 'SENTINEL', 'REPLICAS', SENTINEL_NAME)) as unknown[]).length;
    await until(`Sentinel ${s.port} to know the replicas`, 30_000, async () => (await known()) === replicas);
  }
  return procs;
}

/** Whether the server on `port` is a primary now (`ROLE`). */
export async function isPrimary(port: number): Promise<boolean> {
  const role = (await command(port, 'ROLE')) as unknown[];
  return role[0] === 'master';
}

/** A primary and its replica (connected and in sync). */
export async function primaryWithReplica(t: RedisTopology): Promise<{ primary: RedisProc; replica: RedisProc }> {
  const { primary, replicas } = await primaryWithReplicas(t, 1);
  return { primary, replica: replicas[0]! };
}

/** A primary and `count` replicas (each connected and in sync); `lines` are extra config lines for every data node. */
export async function primaryWithReplicas(
  t: RedisTopology,
  count: number,
  lines: string[] = [],
): Promise<{ primary: RedisProc; replicas: RedisProc[] }> {
  const primary = await t.start(lines);
  const replicas: RedisProc[] = [];
  for (let i = 0; i < count; i++) replicas.push(await t.start([...lines, `replicaof 127.0.0.1 ${primary.port}`]));
  for (const replica of replicas) {
    const synced = async () =>
      String(await command(replica.port, 'INFO', 'replication')).includes('master_link_status:up');
    await until('the replica to sync', 15_000, synced);
  }
  // The replicas must acknowledge a write too: right after the sync a replica answers a WAIT only
  // with its once-a-second ACK (a first WAIT 1 200 times out). A WAIT covers the writes of its own
  // connection only, so it has to follow a write there (on a connection that wrote nothing it
  // returns at once, whatever the replica does).
  await until('the replicas to acknowledge a write', 15_000, () => writeConfirmed(primary.port, count));
  return { primary, replicas };
}

/**
 * Whether a write on `port` is confirmed by `replicas` replicas within 200 ms (`SET`, then
 * `WAIT replicas 200` on the same connection).
 */
export async function writeConfirmed(port: number, replicas = 1): Promise<boolean> {
  const c = adminClient(port);
  try {
    await c.set('redis-topology:ready', '1', 'PX', 60_000);
    return Number(await c.call('WAIT', String(replicas), '200')) >= replicas;
  } finally {
    c.disconnect();
  }
}

/**
 * A local Redis Cluster of three primaries (`cluster-enabled yes`, joined by
 * `redis-cli --cluster create … --cluster-yes`), once every node reports `cluster_state:ok`.
 * @returns the nodes' ports.
 */
export async function cluster(t: RedisTopology): Promise<number[]> {
  const nodes = await Promise.all(
    [0, 1, 2].map(() =>
      t.start(['cluster-enabled yes', 'cluster-config-file nodes.conf', 'cluster-node-timeout 2000']),
    ),
  );
  const ports = nodes.map((n) => n.port);
  const create = spawn('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'], {
    stdio: 'ignore',
  });
  const code = await new Promise((r) => create.once('exit', r));
  if (code !== 0) throw new Error(`redis-cli --cluster create exited ${String(code)}`);
  for (const p of ports)
    await until(`cluster node ${p} to be ok`, 30_000, async () =>
      String(await command(p, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
    );
  return ports;
}
