import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.ts';
import { daemonOptionsFromConfig } from '../../../src/daemon/options.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { ConfigError } from '../../../src/errors/index.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { schedulerStoreFromConfig } from '../../../src/ratelimit/cluster.ts';
import { redactRedisUrl } from '../../../src/ratelimit/redis-store.ts';
import { createScheduler } from '../../../src/ratelimit/scheduler.ts';

/**
 * Cluster mode reaches the daemon: the config's `rateLimits.cluster` → daemon options → the
 * scheduler's `store`; an unreachable Redis is a ConfigError at start that names the host and the
 * fix and never the password. (Against a real redis-server: test/integration/ratelimit/.)
 */

const PASSWORD = 'canary-redis-pw-5151';
const BASE_ENV = {
  HARPOON_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
  HARPOON_RPC_URL: 'http://127.0.0.1:8545',
  OPENSEA_API_KEY: 'k',
};

function optionsFrom(env: Record<string, string>) {
  const all = { ...BASE_ENV, ...env };
  const { config } = resolveConfig({ mode: 'live' }, { env: all, cwd: '/tmp' });
  return daemonOptionsFromConfig(config, all);
}

/** A port where nothing listens (bound, then closed). */
function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

let silent: Server;
let silentPort = 0;
const sockets: Socket[] = [];
beforeAll(async () => {
  // accepts connections and never answers: a Redis that hangs
  silent = createServer((sock) => void sockets.push(sock));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  silentPort = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
});

describe('schedulerStoreFromConfig', () => {
  it('local (the default) keeps the buckets in the process', () => {
    expect(schedulerStoreFromConfig(undefined)).toEqual({ kind: 'local' });
    const o = optionsFrom({});
    expect(o.cluster).toEqual({ store: 'local', account: 'default' });
    expect(schedulerStoreFromConfig(o.cluster)).toEqual({ kind: 'local' });
  });

  it('redis: the config (file or HARPOON_* env) reaches the daemon options and the scheduler store', () => {
    const url = `redis://:${PASSWORD}@10.0.0.7:6380/2`;
    const o = optionsFrom({
      HARPOON_RATE_LIMITS_STORE: 'redis',
      HARPOON_REDIS_URL: url,
      HARPOON_RATE_LIMITS_ACCOUNT: 'acct-7',
    });
    expect(o.cluster?.store).toBe('redis');
    const store = schedulerStoreFromConfig(o.cluster);
    expect(store.kind).toBe('redis');
    if (store.kind !== 'redis') throw new Error('unreachable');
    expect(store.account).toBe('acct-7');
    // still a Secret: printing or serialising the options shows no password
    expect(store.url).toBeInstanceOf(Secret);
    expect((store.url as Secret).reveal()).toBe(url);
    const json = JSON.stringify({ o, store }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    expect(json).toContain('[REDACTED]');
    expect(json).not.toContain(PASSWORD);
    expect(String(store.url)).toBe('[REDACTED]');
  });

  it('redis without a URL is a ConfigError with the fix', () => {
    expect(() => schedulerStoreFromConfig({ store: 'redis', account: 'a' })).toThrow(ConfigError);
    expect(() => schedulerStoreFromConfig({ store: 'redis', account: 'a' })).toThrow(/HARPOON_REDIS_URL/);
  });
});

describe('redactRedisUrl', () => {
  it.each([
    [`redis://:${PASSWORD}@127.0.0.1:6379`, 'redis://127.0.0.1:6379'],
    [`redis://bot:${PASSWORD}@redis.internal:6380/3`, 'redis://bot@redis.internal:6380/3'],
    [`rediss://default:${encodeURIComponent('p@ss:/w')}@h.example`, 'rediss://default@h.example'],
    ['redis://127.0.0.1', 'redis://127.0.0.1'],
    ['not a url', '(an unparseable Redis URL)'],
  ])('%s -> %s', (url, shown) => {
    expect(redactRedisUrl(url)).toBe(shown);
  });
});

describe('Scheduler.ready()', () => {
  it('local buckets are ready at once', async () => {
    const s = createScheduler();
    await expect(s.ready?.()).resolves.toBeUndefined();
    await s.stop();
  });

  it('a Redis nobody listens on: ConfigError naming host and port, the cause and the fix; no password', async () => {
    const port = await deadPort();
    const url = `redis://:${PASSWORD}@127.0.0.1:${port}/0`;
    const s = createScheduler({
      store: { kind: 'redis', url: new Secret(url, 'redisUrl'), account: 'a' },
      storeReadyTimeoutMs: 3000,
    });
    const t0 = Date.now();
    const err = await (s.ready?.() ?? Promise.resolve()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ConfigError;
    expect(e.code).toBe('redis_unreachable');
    expect(e.shortMessage).toContain(
      `the shared rate-limit bucket is not available: Redis at redis://127.0.0.1:${port}/0 (rateLimits.cluster.redisUrl / HARPOON_REDIS_URL): `,
    );
    expect(e.shortMessage).toMatch(/HARPOON_REDIS_URL\): connect ECONNREFUSED 127\.0\.0\.1:\d+\. Fix:/);
    expect(e.shortMessage).toContain('Fix: start redis-server there or correct HARPOON_REDIS_URL');
    for (const text of [e.message, e.shortMessage, JSON.stringify(e), String(e.stack)])
      expect(text).not.toContain(PASSWORD);
    expect(e.cause).toBeUndefined();
    // stop() does not wait for reconnects to a server that is not there
    const t1 = Date.now();
    await s.stop();
    expect(Date.now() - t1).toBeLessThan(1000);
  });

  it('a Redis that accepts and never answers: ConfigError after the timeout', async () => {
    const url = `redis://:${PASSWORD}@127.0.0.1:${silentPort}`;
    const s = createScheduler({
      store: { kind: 'redis', url: new Secret(url), account: 'a' },
      storeReadyTimeoutMs: 300,
    });
    const t0 = Date.now();
    const err = (await s.ready?.().catch((e: unknown) => e)) as ConfigError;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.shortMessage).toContain(`Redis at redis://127.0.0.1:${silentPort} `);
    expect(err.shortMessage).toMatch(/no answer within 300 ms/);
    expect(err.message).not.toContain(PASSWORD);
    await s.stop();
  });

  it('the scheduler never logs the password while Redis is down', async () => {
    const port = await deadPort();
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (l: string) => void lines.push(l) } as never,
    });
    const url = `redis://user:${PASSWORD}@127.0.0.1:${port}`;
    const s = createScheduler({
      store: { kind: 'redis', url: new Secret(url), account: 'a' },
      logger,
      storeRetryMs: 50,
      storeReadyTimeoutMs: 1000,
    });
    await s.ready?.().catch(() => undefined);
    const job = s.schedule({ group: 'read' }, async () => 1).catch((e: unknown) => e);
    // ioredis fails a command after 3 reconnects (some seconds): wait for the scheduler's log line
    const end = Date.now() + 15_000;
    while (!lines.some((l) => /rate-limit store take failed/.test(l)) && Date.now() < end)
      await new Promise((r) => setTimeout(r, 50));
    await s.stop();
    await job;
    expect(lines.some((l) => /rate-limit store take failed/.test(l))).toBe(true);
    expect(lines.join('\n')).not.toContain(PASSWORD);
  }, 20_000);
});
