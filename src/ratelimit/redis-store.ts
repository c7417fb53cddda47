import { Redis } from 'ioredis';
import { isSecret, type Secret } from '../domain/secret.ts';
import { ConfigError } from '../errors/index.ts';
import type { BucketSnapshot, SyncInput, TakeResult } from './bucket.ts';
import type { Clock } from './clock.ts';
import { PAUSE_LUA, SET_RATE_LUA, SYNC_LUA, TAKE_LUA } from './redis-scripts.ts';
import type { BucketStore } from './store.ts';
import type { GroupRates, Rate, RateGroup } from './types.ts';
import { RATE_GROUPS } from './types.ts';

export interface RedisStoreConfig {
  readonly kind: 'redis';
  /** e.g. `redis://127.0.0.1:6379/0`; a Secret when it may carry a password (as the config's is). */
  readonly url: string | Secret;
  /** Key prefix; default `harpoon:rl:`. */
  readonly keyPrefix?: string;
  /** The account whose keys share the buckets (all processes of one account use the same value). */
  readonly account: string;
  /** Minimum key lifetime in ms after the last use; default 1 h (never less than two windows). */
  readonly ttlMs?: number;
}

export interface RedisStoreOptions extends RedisStoreConfig {
  readonly rates: GroupRates;
  readonly clock: Clock;
  readonly safetyMargin: number;
}

/** How the Redis store is named in messages (which config key, which environment variable). */
const URL_SOURCE = 'rateLimits.cluster.redisUrl / HARPOON_REDIS_URL';

type Reply = [number, number, string, number, number, string, string, number];

interface BucketCommands {
  harpoonRlTake(key: string, ...args: (string | number)[]): Promise<Reply>;
  harpoonRlSync(key: string, ...args: (string | number)[]): Promise<Reply>;
  harpoonRlPause(key: string, ...args: (string | number)[]): Promise<Reply>;
  harpoonRlSetRate(key: string, ...args: (string | number)[]): Promise<Reply>;
}

/** `{` and `}` would break the hash tag; anything else is fine in a Redis key. */
function hashTag(account: string): string {
  return `{${account.replace(/[{}]/g, '_')}}`;
}

/**
 * A Redis URL fit for messages and logs: scheme, user, host, port and database, never the
 * password (`redis://:***@host:6379/0` → `redis://host:6379/0`). Unparseable text says so only.
 */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username !== '' ? `${decodeURIComponent(u.username)}@` : '';
    return `${u.protocol}//${user}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(an unparseable Redis URL)';
  }
}

/** `text` with every form of the URL's password (raw, URL-encoded) replaced by `[REDACTED]`. */
function withoutPassword(text: string, url: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return text.split(url).join('[REDACTED]');
  }
  let out = text.split(url).join(redactRedisUrl(url));
  for (const form of new Set([password, decodeURIComponent(password)]))
    if (form.length > 0) out = out.split(form).join('[REDACTED]');
  return out;
}

export function bucketKey(keyPrefix: string, account: string, group: RateGroup): string {
  return `${keyPrefix}${hashTag(account)}:${group}`;
}

/**
 * Buckets shared through Redis. Every operation is one Lua script (atomic take-with-refill on the
 * Redis clock, sync from headers, pause). Scripts are sent with EVALSHA and re-sent with EVAL on
 * NOSCRIPT (ioredis `defineCommand`), so a Redis restart or SCRIPT FLUSH is harmless
 * (Bottleneck #118). A process that gets no token is told how long until the next one and sleeps
 * that long: no polling.
 */
export function createRedisStore(options: RedisStoreOptions): BucketStore {
  const prefix = options.keyPrefix ?? 'harpoon:rl:';
  const ttl = options.ttlMs ?? 3_600_000;
  const url = isSecret(options.url) ? options.url.reveal() : options.url;
  const shownUrl = redactRedisUrl(url);
  const client = new Redis(url, {
    // Commands wait for a reconnect instead of failing at once; the scheduler retries a failed take.
    maxRetriesPerRequest: 3,
    enableAutoPipelining: false,
    lazyConnect: false,
  });
  // ioredis emits 'error' on every failed connection attempt; an unhandled one would crash. The
  // last one says why Redis cannot be reached (ECONNREFUSED, WRONGPASS...) if ready() fails.
  let lastError: string | undefined;
  client.on('error', (err: unknown) => {
    lastError = err instanceof Error ? err.message : String(err);
  });
  client.defineCommand('harpoonRlTake', { numberOfKeys: 1, lua: TAKE_LUA });
  client.defineCommand('harpoonRlSync', { numberOfKeys: 1, lua: SYNC_LUA });
  client.defineCommand('harpoonRlPause', { numberOfKeys: 1, lua: PAUSE_LUA });
  client.defineCommand('harpoonRlSetRate', { numberOfKeys: 1, lua: SET_RATE_LUA });
  const cmd = client as unknown as BucketCommands;

  const defaults = new Map<RateGroup, Rate>();
  const last = new Map<RateGroup, BucketSnapshot>();
  for (const g of RATE_GROUPS) {
    defaults.set(g, options.rates[g]);
    last.set(g, {
      limit: options.rates[g].count,
      windowMs: options.rates[g].windowMs,
      tokens: options.rates[g].count,
      pausedUntil: 0,
      at: options.clock.now(),
      synced: false,
    });
  }

  const common = (g: RateGroup): (string | number)[] => {
    const d = defaults.get(g) as Rate;
    return [d.count, d.windowMs, ttl, options.safetyMargin];
  };

  const record = (g: RateGroup, reply: Reply): TakeResult => {
    const [granted, firstTicket, waitMs, limit, windowMs, tokens, pausedForMs, synced] = reply;
    const at = options.clock.now();
    const pausedFor = Number(pausedForMs);
    last.set(g, {
      limit: Number(limit),
      windowMs: Number(windowMs),
      tokens: Number(tokens),
      pausedUntil: pausedFor > 0 ? at + pausedFor : 0,
      at,
      synced: Number(synced) === 1,
    });
    return {
      granted: Number(granted),
      firstTicket: Number(firstTicket),
      waitMs: Number(waitMs),
      synced: Number(synced) === 1,
    };
  };

  return {
    mode: 'redis',
    async take(g, want) {
      const reply = await cmd.harpoonRlTake(bucketKey(prefix, options.account, g), ...common(g), want);
      return record(g, reply);
    },
    async sync(g, input: SyncInput) {
      const reply = await cmd.harpoonRlSync(
        bucketKey(prefix, options.account, g),
        ...common(g),
        input.ticket ?? '',
        input.remaining ?? '',
        input.limit ?? '',
        input.uncountedBefore,
      );
      record(g, reply);
    },
    async pause(g, ms) {
      const reply = await cmd.harpoonRlPause(
        bucketKey(prefix, options.account, g),
        ...common(g),
        Math.max(0, Math.ceil(ms)),
      );
      record(g, reply);
    },
    async setRate(g, rate) {
      defaults.set(g, rate);
      const reply = await cmd.harpoonRlSetRate(
        bucketKey(prefix, options.account, g),
        ...common(g),
        rate.count,
        rate.windowMs,
      );
      record(g, reply);
    },
    snapshot(g) {
      return last.get(g) as BucketSnapshot;
    },
    async ready(timeoutMs) {
      // One take of 0 tokens per group: Redis answers, the scripts run (EVAL allowed, Lua
      // present), and the snapshots start from the shared state. Nothing is consumed.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        timer.unref?.();
      });
      try {
        await Promise.race([
          Promise.all(
            RATE_GROUPS.map(async (g) =>
              record(g, await cmd.harpoonRlTake(bucketKey(prefix, options.account, g), ...common(g), 0)),
            ),
          ),
          timeout,
        ]);
      } catch (err) {
        const said = err instanceof Error ? err.message : String(err);
        // "max retries" and timeouts say only that it failed; the connection error says why
        const vague = /max retries|no answer within|Connection is closed/i.test(said);
        const why = vague && lastError !== undefined ? lastError : said;
        throw new ConfigError(
          withoutPassword(
            `the shared rate-limit bucket is not available: Redis at ${shownUrl} (${URL_SOURCE}): ${why}. Fix: start redis-server there or correct HARPOON_REDIS_URL (host, port, password); with one daemon per account, rateLimits.cluster.store: local needs no Redis`,
            url,
          ),
          { code: 'redis_unreachable', details: { redis: shownUrl, account: options.account } },
        );
      } finally {
        if (timer !== undefined) clearTimeout(timer);
      }
    },
    async close() {
      // A client that never connected (or lost its server) would wait for reconnects to quit.
      if (client.status !== 'ready') {
        client.disconnect();
        return;
      }
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
