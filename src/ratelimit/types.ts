import type { RateGroupName } from '../errors/index.ts';

export type RateGroup = RateGroupName;
export const RATE_GROUPS: readonly RateGroup[] = Object.freeze(['read', 'write', 'fulfillment']);

/**
 * Job priorities, most urgent first. Lower number runs first within a group.
 * snipe fulfillment > cancel > bid refresh > reads for analytics.
 */
export const Priority = Object.freeze({
  snipe: 0,
  cancel: 1,
  bidRefresh: 2,
  trade: 3,
  read: 4,
  analytics: 5,
});
export type Priority = (typeof Priority)[keyof typeof Priority];

/** A rate: `count` requests per `windowMs` (from a `<count>/<unit>` string). */
export interface Rate {
  readonly count: number;
  readonly windowMs: number;
}

export type GroupRates = Readonly<Record<RateGroup, Rate>>;

/** What one HTTP response told us about a group's bucket. */
export interface RateLimitObservation {
  readonly group: RateGroup;
  readonly status: number;
  /** X-RateLimit-Limit: the bucket's capacity. */
  readonly limit?: number;
  /** X-RateLimit-Remaining: tokens left after this request, as the server saw it. */
  readonly remaining?: number;
  /** X-RateLimit-Reset, converted to epoch milliseconds. */
  readonly resetAtMs?: number;
  /** Retry-After (429), converted to milliseconds. */
  readonly retryAfterMs?: number;
  /** Epoch ms when the request was dispatched (for ordering observations of concurrent calls). */
  readonly sentAtMs?: number;
}

export interface JobOptions {
  readonly group: RateGroup;
  /** Default `Priority.read`. */
  readonly priority?: Priority;
  /** A newer job with the same key replaces a queued older one (the older rejects with SupersededError). */
  readonly coalesceKey?: string;
  readonly signal?: AbortSignal;
}

export interface GroupStatus {
  readonly group: RateGroup;
  readonly limit: number;
  readonly windowMs: number;
  /** Tokens the scheduler believes are available now. */
  readonly available: number;
  readonly queued: number;
  readonly inFlight: number;
  /** Epoch ms until which the group is paused by a 429, or 0. */
  readonly pausedUntilMs: number;
  readonly served: number;
  readonly http429: number;
  readonly superseded: number;
}

export interface SchedulerStatus {
  readonly mode: 'local' | 'redis';
  readonly groups: readonly GroupStatus[];
}

/**
 * The rate-limit scheduler. Every HTTP call of the daemon goes through `schedule`; the transport
 * reports every response's headers through `observe`.
 */
export interface Scheduler {
  /**
   * Resolves once the bucket store answers; call it once at start. With buckets in Redis it reads
   * every group's shared bucket (within `storeReadyTimeoutMs`) and rejects with a ConfigError
   * (`redis_unreachable`) that names the Redis host (never its password) and the fix. Local
   * buckets are ready at once. Optional so that fakes need not implement it.
   */
  ready?(): Promise<void>;
  schedule<T>(options: JobOptions, job: () => Promise<T>): Promise<T>;
  observe(observation: RateLimitObservation): void;
  /** Re-size a group (e.g. after a new key's `rate_limits`). */
  setRate(group: RateGroup, rate: Rate): void;
  status(): SchedulerStatus;
  /** Rejects queued jobs, stops timers, closes shared-store connections. */
  stop(): Promise<void>;
}
