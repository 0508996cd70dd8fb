import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/platform/config.js';
import { keyPrefix, reconnectDelayMs, redisTarget, warnPlaintextPasswords } from '../../../src/platform/redis.js';
import { arrayLogger } from '../../helpers/logs.js';
import { configProblems as problems, VALID_ENV as valid } from '../../helpers/config-env.js';

describe('Redis connection modes', () => {
  it('defaults to one endpoint on 127.0.0.1:6379, no replica acknowledgement', () => {
    const c = readConfig(valid);
    expect(redisTarget(c)).toEqual({ mode: 'url', url: 'redis://127.0.0.1:6379' });
    expect(keyPrefix(c)).toBe('docs-agent');
    expect(c).toMatchObject({
      REDIS_WAIT_REPLICAS: 0,
      REDIS_WAIT_TIMEOUT_MS: 200,
      HEALTHZ_DUE_JOB_MAX_WAIT_MS: 60_000,
    });
  });

  it("reads Sentinel: the Sentinels, the primary's name, the Sentinels' password and TLS, the data nodes' credentials", () => {
    const c = readConfig({
      ...valid,
      REDIS_SENTINELS: 's1:26379, s2:26379,10.0.0.3:26380',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'spw',
      REDIS_SENTINEL_TLS: 'true',
      REDIS_PASSWORD: 'pw',
      REDIS_TLS: 'true',
    });
    expect(redisTarget(c)).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '10.0.0.3', port: 26380 },
      ],
      name: 'mymaster',
      sentinelPassword: 'spw',
      sentinelTls: true,
      password: 'pw',
      tls: true,
    });
  });

  it('reads Cluster, and wraps every key of the bot in one hash tag', () => {
    const c = readConfig({ ...valid, REDIS_CLUSTER_NODES: 'n1:7000,n2:7001', QUEUE_PREFIX: 'docs' });
    expect(redisTarget(c)).toMatchObject({
      mode: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
      tls: false,
    });
    expect(keyPrefix(c)).toBe('{docs}');
  });

  it('refuses a mix that makes no sense, naming each variable', () => {
    expect(
      problems({ ...valid, REDIS_URL: 'redis://r:6379', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_NAME: 'm' }),
    ).toEqual(['REDIS_URL: cannot be set with REDIS_SENTINELS: choose one connection mode']);
    expect(
      problems({ ...valid, REDIS_SENTINELS: 's:26379', REDIS_CLUSTER_NODES: 'n:7000', REDIS_SENTINEL_NAME: 'm' }),
    ).toEqual(['REDIS_CLUSTER_NODES: cannot be set with REDIS_SENTINELS: choose Sentinel or Cluster']);
    expect(problems({ ...valid, REDIS_SENTINELS: 's:26379' })[0]).toMatch(
      /^REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS/,
    );
    expect(problems({ ...valid, REDIS_SENTINEL_NAME: 'm', REDIS_SENTINEL_TLS: 'true' })).toEqual([
      'REDIS_SENTINEL_NAME: is only used with REDIS_SENTINELS',
      'REDIS_SENTINEL_TLS: is only used with REDIS_SENTINELS',
    ]);
    expect(problems({ ...valid, REDIS_PASSWORD: 'pw', REDIS_TLS: 'true' })).toEqual([
      'REDIS_PASSWORD: is only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL put it in the URL)',
      'REDIS_TLS: is only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL use rediss://)',
    ]);
    expect(problems({ ...valid, REDIS_SENTINELS: 'just-a-host', REDIS_SENTINEL_NAME: 'm' })).toEqual([
      'REDIS_SENTINELS: must be comma-separated host:port pairs (ports 1–65535)',
    ]);
    expect(problems({ ...valid, REDIS_CLUSTER_NODES: 'n:7000,n:99999' })).toEqual([
      'REDIS_CLUSTER_NODES: must be comma-separated host:port pairs (ports 1–65535)',
    ]);
    expect(problems({ ...valid, REDIS_CLUSTER_NODES: 'n:0' })).toEqual([
      'REDIS_CLUSTER_NODES: must be comma-separated host:port pairs (ports 1–65535)',
    ]);
    expect(readConfig({ ...valid, REDIS_CLUSTER_NODES: 'n:1,n:65535' }).REDIS_CLUSTER_NODES).toEqual([
      'n:1',
      'n:65535',
    ]);
  });

  it('refuses a feature a Cluster cannot run, naming it', () => {
    expect(problems({ ...valid, REDIS_CLUSTER_NODES: 'n:7000', REDIS_WAIT_REPLICAS: '1' })[0]).toMatch(
      /^REDIS_WAIT_REPLICAS: is not supported with REDIS_CLUSTER_NODES/,
    );
  });

  it('takes REDIS_WAIT_REPLICAS 0–10 and REDIS_WAIT_TIMEOUT_MS up to 500 ms (an ack may wait about twice it)', () => {
    expect(readConfig({ ...valid, REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: '500' })).toMatchObject({
      REDIS_WAIT_REPLICAS: 1,
      REDIS_WAIT_TIMEOUT_MS: 500,
    });
    expect(problems({ ...valid, REDIS_WAIT_REPLICAS: '-1' })).toEqual([
      'REDIS_WAIT_REPLICAS: must be a whole number of replicas (0–10)',
    ]);
    expect(problems({ ...valid, REDIS_WAIT_TIMEOUT_MS: '501' })).toEqual([
      'REDIS_WAIT_TIMEOUT_MS: must be at most 500 (an ack may wait about twice it; Slack waits 3 s)',
    ]);
  });

  it('reconnects quickly after a failover: 100 ms, doubling, at most 2 s apart', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map(reconnectDelayMs)).toEqual([100, 200, 400, 800, 1_600, 2_000, 2_000]);
  });
});

describe('a Redis password sent over plaintext to another host', () => {
  const warned = (env: Record<string, string>) => {
    const { logger, lines } = arrayLogger('debug');
    warnPlaintextPasswords(redisTarget(readConfig({ ...valid, ...env })), logger);
    return lines;
  };

  it.each([
    [
      'REDIS_URL redis:// with a password to a remote host',
      { REDIS_URL: 'redis://:s3cret-pw@redis.internal:6379' },
      ['REDIS_URL'],
    ],
    [
      'REDIS_URL with a user and password to an IP address',
      { REDIS_URL: 'redis://bot:s3cret-pw@10.0.0.5:6379/0' },
      ['REDIS_URL'],
    ],
    [
      'Sentinel, both passwords without TLS',
      {
        REDIS_SENTINELS: 's1:26379,127.0.0.1:26380',
        REDIS_SENTINEL_NAME: 'm',
        REDIS_PASSWORD: 's3cret-pw',
        REDIS_SENTINEL_PASSWORD: 's3cret-spw',
      },
      ['REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD'],
    ],
    ['Cluster without TLS', { REDIS_CLUSTER_NODES: 'n1:7000', REDIS_PASSWORD: 's3cret-pw' }, ['REDIS_PASSWORD']],
  ])('%s: one warning at start-up naming the variable, never the password', (_name, env, variables) => {
    const lines = warned(env);
    expect(lines).toMatchObject([{ level: 40, variables, msg: expect.stringContaining('without TLS') }]);
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it.each([
    ['the default (local, no password)', {}],
    ['rediss:// to a remote host', { REDIS_URL: 'rediss://:s3cret-pw@redis.internal:6380' }],
    ['redis:// with a password to this machine', { REDIS_URL: 'redis://:s3cret-pw@localhost:6379' }],
    ['redis:// with a password to 127.0.0.1', { REDIS_URL: 'redis://:s3cret-pw@127.0.0.1:6379' }],
    ['redis:// with a password to [::1]', { REDIS_URL: 'redis://:s3cret-pw@[::1]:6379' }],
    ['redis:// to a remote host without a password', { REDIS_URL: 'redis://redis.internal:6379' }],
    [
      'Sentinel with TLS on both',
      {
        REDIS_SENTINELS: 's1:26379',
        REDIS_SENTINEL_NAME: 'm',
        REDIS_PASSWORD: 'p',
        REDIS_TLS: 'true',
        REDIS_SENTINEL_PASSWORD: 'q',
        REDIS_SENTINEL_TLS: 'true',
      },
    ],
    ['Cluster on this machine', { REDIS_CLUSTER_NODES: '127.0.0.1:7000,localhost:7001', REDIS_PASSWORD: 'p' }],
  ])('%s: no warning', (_name, env) => {
    expect(warned(env)).toEqual([]);
  });
});
