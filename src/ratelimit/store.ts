import { type BucketSnapshot, LocalBucket, type SyncInput, type TakeResult } from './bucket.ts';
import type { Clock } from './clock.ts';
import type { GroupRates, Rate, RateGroup } from './types.ts';
import { RATE_GROUPS } from './types.ts';

export type MaybePromise<T> = T | Promise<T>;

/**
 * Where the buckets live. The local store keeps them in memory (one process); the Redis store
 * keeps them in Redis so every process of one account draws from the same bucket per group.
 * Local operations are synchronous, so the scheduler's hot path never waits for a microtask.
 */
export interface BucketStore {
  readonly mode: 'local' | 'redis';
  /** Takes up to `want` tokens now; says how long until the next one otherwise. */
  take(group: RateGroup, want: number): MaybePromise<TakeResult>;
  sync(group: RateGroup, input: SyncInput): MaybePromise<void>;
  /** Pauses the group for `ms` from now (a later pause end wins). */
  pause(group: RateGroup, ms: number): MaybePromise<void>;
  setRate(group: RateGroup, rate: Rate): MaybePromise<void>;
  /**
   * Resolves once the store answers (Redis: every group's bucket read within `timeoutMs`); rejects
   * with a ConfigError that names the store (never its password) and the fix. Local: at once.
   */
  ready?(timeoutMs: number): Promise<void>;
  /** Last known state (the Redis store answers from the last script reply). */
  snapshot(group: RateGroup): BucketSnapshot;
  close(): Promise<void>;
}

export interface LocalStoreOptions {
  readonly rates: GroupRates;
  readonly clock: Clock;
  /** Tokens held back from every bucket. */
  readonly safetyMargin: number;
}

export function createLocalStore(options: LocalStoreOptions): BucketStore {
  const { clock } = options;
  const buckets = new Map<RateGroup, LocalBucket>();
  for (const g of RATE_GROUPS) {
    buckets.set(g, new LocalBucket(options.rates[g], options.safetyMargin, clock.now()));
  }
  const bucket = (g: RateGroup): LocalBucket => {
    const b = buckets.get(g);
    if (!b) throw new TypeError(`unknown rate group '${String(g)}'`);
    return b;
  };
  return {
    mode: 'local',
    take: (g, want) => bucket(g).take(want, clock.now()),
    sync: (g, input) => bucket(g).sync(input, clock.now()),
    pause: (g, ms) => {
      const now = clock.now();
      bucket(g).pause(now + ms, now);
    },
    setRate: (g, rate) => bucket(g).setRate(rate, clock.now()),
    snapshot: (g) => bucket(g).snapshot(clock.now()),
    close: async () => {},
  };
}
