import { Redis } from 'ioredis';
import type { BucketSnapshot, SyncInput, TakeResult } from './bucket.ts';
import type { Clock } from './clock.ts';
import { PAUSE_LUA, SET_RATE_LUA, SYNC_LUA, TAKE_LUA } from './redis-scripts.ts';
import type { BucketStore } from './store.ts';
import type { GroupRates, Rate, RateGroup } from './types.ts';
import { RATE_GROUPS } from './types.ts';

export interface RedisStoreConfig {
  readonly kind: 'redis';
  /** e.g. `redis://127.0.0.1:6379/0`. */
  readonly url: string;
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
  const client = new Redis(options.url, {
    // Commands wait for a reconnect instead of failing at once; the scheduler retries a failed take.
    maxRetriesPerRequest: 3,
    enableAutoPipelining: false,
    lazyConnect: false,
  });
  // ioredis emits 'error' on every failed connection attempt; an unhandled one would crash.
  client.on('error', () => {});
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
    async close() {
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
