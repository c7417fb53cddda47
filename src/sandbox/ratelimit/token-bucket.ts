import type { RateGroupName } from '../../errors/index.ts';

/**
 * The server side of rate limiting: one token bucket per (account, group). Capacity `capacity`,
 * refilled continuously at `capacity / windowMs`; each request takes one token; an empty bucket
 * answers 429. All keys of one account share the account's buckets.
 *
 * The sandbox may not import daemon code, so this is its own implementation (the daemon's
 * scheduler models the same bucket from the outside).
 */

export type LimitGroup = RateGroupName;

export interface BucketLimit {
  /** Bucket capacity: the burst allowed from full, and X-RateLimit-Limit. */
  readonly capacity: number;
  /** Time to refill an empty bucket completely. */
  readonly windowMs: number;
}

export interface LimiterClock {
  /** Monotonic milliseconds (refill). */
  now(): number;
  /** Epoch milliseconds (X-RateLimit-Reset). */
  wallNow(): number;
}

export interface TakeDecision {
  readonly allowed: boolean;
  /** X-RateLimit-Limit. */
  readonly limit: number;
  /** X-RateLimit-Remaining: whole tokens left after this request. */
  readonly remaining: number;
  /** X-RateLimit-Reset: epoch seconds when the bucket is full again. */
  readonly resetEpochSeconds: number;
  /** Retry-After for a refused request: whole seconds until one token is back, rounded up. */
  readonly retryAfterSeconds?: number;
}

export interface TokenBucketLimiterOptions<G extends string = LimitGroup> {
  readonly limits: Readonly<Record<G, BucketLimit>>;
  readonly clock?: LimiterClock;
}

const realClock: LimiterClock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
};

/** Float dust from continuous refill must not turn an exactly-due token into a 429. */
const EPSILON = 1e-9;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

function checkLimit(group: string, limit: BucketLimit): void {
  if (
    !(
      Number.isFinite(limit.capacity) &&
      limit.capacity >= 1 &&
      Number.isFinite(limit.windowMs) &&
      limit.windowMs > 0
    )
  ) {
    throw new RangeError(
      `bucket '${group}': capacity must be >= 1 and windowMs > 0, got ${JSON.stringify(limit)}`,
    );
  }
}

export class TokenBucketLimiter<G extends string = LimitGroup> {
  private readonly limits = new Map<G, BucketLimit>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly clock: LimiterClock;

  constructor(options: TokenBucketLimiterOptions<G>) {
    this.clock = options.clock ?? realClock;
    for (const [g, l] of Object.entries(options.limits) as [G, BucketLimit][]) this.setLimit(g, l);
  }

  /** Changes a group's capacity/window; existing buckets keep their tokens (capped). */
  setLimit(group: G, limit: BucketLimit): void {
    checkLimit(group, limit);
    this.limits.set(group, { capacity: limit.capacity, windowMs: limit.windowMs });
  }

  limitOf(group: G): BucketLimit {
    const l = this.limits.get(group);
    if (!l) throw new RangeError(`unknown rate-limit group '${group}'`);
    return l;
  }

  private bucket(account: string, group: G, limit: BucketLimit, now: number): Bucket {
    const key = `${account}\u0000${group}`;
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: limit.capacity, updatedAt: now };
      this.buckets.set(key, b);
      return b;
    }
    if (now > b.updatedAt) {
      b.tokens = Math.min(limit.capacity, b.tokens + ((now - b.updatedAt) * limit.capacity) / limit.windowMs);
      b.updatedAt = now;
    }
    if (b.tokens > limit.capacity) b.tokens = limit.capacity;
    return b;
  }

  private decision(b: Bucket, limit: BucketLimit, allowed: boolean): TakeDecision {
    const msPerToken = limit.windowMs / limit.capacity;
    const fullInMs = Math.max(0, (limit.capacity - b.tokens) * msPerToken);
    const base = {
      allowed,
      limit: limit.capacity,
      remaining: Math.max(0, Math.floor(b.tokens + EPSILON)),
      resetEpochSeconds: Math.ceil((this.clock.wallNow() + fullInMs) / 1000),
    };
    if (allowed) return base;
    const retryMs = Math.max(0, (1 - b.tokens) * msPerToken);
    return { ...base, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)) };
  }

  /** Takes one token for a request of `account` in `group`, or refuses it. */
  take(account: string, group: G): TakeDecision {
    const limit = this.limitOf(group);
    const b = this.bucket(account, group, limit, this.clock.now());
    if (b.tokens >= 1 - EPSILON) {
      b.tokens -= 1;
      return this.decision(b, limit, true);
    }
    return this.decision(b, limit, false);
  }

  /** The state a request would see, without taking a token. */
  peek(account: string, group: G): TakeDecision {
    const limit = this.limitOf(group);
    const b = this.bucket(account, group, limit, this.clock.now());
    return this.decision(b, limit, b.tokens >= 1 - EPSILON);
  }
}
