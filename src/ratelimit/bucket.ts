import type { Rate } from './types.ts';

/**
 * The client-side model of one server bucket: a token bucket with capacity `limit` that refills
 * continuously at `limit / windowMs`, on the monotonic clock. Pure arithmetic: no timers, no I/O.
 *
 * Every token handed out gets a ticket number (1, 2, 3, … in dispatch order). A response's
 * `X-RateLimit-Remaining` is matched to the ticket of the request that produced it, which tells
 * how many requests the server cannot have counted yet (see `sync`). The Redis store runs the
 * same algorithm in Lua (./redis-scripts.ts); keep the two in step.
 */

/** Tokens are compared with this slack so float dust never delays a dispatch by a timer tick. */
export const EPSILON = 1e-9;

export interface TakeResult {
  /** Tokens granted now (0..want). */
  readonly granted: number;
  /** Ticket of the first granted token; the others follow consecutively. */
  readonly firstTicket: number;
  /** When `granted < want`: ms until the next token (or the pause end). 0 otherwise. */
  readonly waitMs: number;
  /** The bucket has been corrected from a server response at least once. */
  readonly synced: boolean;
}

export interface SyncInput {
  /**
   * Ticket of the request whose response is observed, when known. Without it only downward
   * corrections are applied (the observation could be older than others already applied).
   */
  readonly ticket?: number;
  /** X-RateLimit-Remaining of that response. */
  readonly remaining?: number;
  /** X-RateLimit-Limit of that response. */
  readonly limit?: number;
  /**
   * Requests dispatched before `ticket` (or, without a ticket, all requests) that are still in
   * flight and so may not have reached the server when it computed `remaining`.
   */
  readonly uncountedBefore: number;
}

export interface BucketSnapshot {
  readonly limit: number;
  readonly windowMs: number;
  readonly tokens: number;
  /** Monotonic ms of the pause end (store clock), or 0. */
  readonly pausedUntil: number;
  /** Store-clock "now" the snapshot was taken at (to turn pausedUntil into a delay). */
  readonly at: number;
  readonly synced: boolean;
}

/** Largest usable safety margin for a capacity: never more than half the spare capacity. */
export function effectiveMargin(margin: number, limit: number): number {
  return Math.max(0, Math.min(margin, (limit - 1) / 2));
}

export class LocalBucket {
  private limit: number;
  private windowMs: number;
  private tokens: number;
  private updatedAt: number;
  private pausedUntil = 0;
  /** Last ticket handed out. */
  private ticket = 0;
  /** Highest ticket whose `remaining` was applied; older observations are stale. */
  private lastSyncTicket = 0;
  private synced = false;

  constructor(
    rate: Rate,
    private readonly margin: number,
    now: number,
  ) {
    this.limit = rate.count;
    this.windowMs = rate.windowMs;
    this.tokens = rate.count;
    this.updatedAt = now;
  }

  private refill(now: number): void {
    if (now > this.updatedAt) {
      const rate = this.limit / this.windowMs;
      this.tokens = Math.min(this.limit, this.tokens + (now - this.updatedAt) * rate);
      this.updatedAt = now;
    }
  }

  take(want: number, now: number): TakeResult {
    this.refill(now);
    const firstTicket = this.ticket + 1;
    if (this.pausedUntil > now) {
      return { granted: 0, firstTicket, waitMs: this.pausedUntil - now, synced: this.synced };
    }
    const margin = effectiveMargin(this.margin, this.limit);
    const usable = Math.floor(this.tokens - margin + EPSILON);
    const granted = Math.max(0, Math.min(want, usable));
    this.tokens -= granted;
    this.ticket += granted;
    let waitMs = 0;
    if (granted < want) {
      const rate = this.limit / this.windowMs;
      waitMs = Math.max(0, (1 + margin - this.tokens) / rate);
    }
    return { granted, firstTicket, waitMs, synced: this.synced };
  }

  /**
   * Corrects the model from one response.
   *
   * - `limit` replaces the capacity (refill rate = limit / windowMs, window kept).
   * - `remaining` is what the server had left right after it counted request `ticket`. Requests
   *   dispatched after that one (`this.ticket - ticket`) cannot be in it, and requests dispatched
   *   before it that are still in flight (`uncountedBefore`) might not be, so the estimate is
   *   `remaining - after - uncountedBefore`: never above what the server has, because the server
   *   only refills between its count and now. It replaces the model (up or down) when the
   *   observation is the freshest seen; observations older than one already applied are ignored,
   *   so responses that arrive out of order cannot push the estimate up with stale numbers.
   *   Without a ticket the estimate can only lower the model.
   */
  sync(input: SyncInput, now: number): void {
    this.refill(now);
    if (input.limit !== undefined && input.limit > 0 && input.limit !== this.limit) {
      this.limit = input.limit;
      this.tokens = Math.min(this.tokens, this.limit);
      this.synced = true;
    }
    if (input.remaining !== undefined) {
      if (input.ticket !== undefined) {
        if (input.ticket > this.lastSyncTicket) {
          const after = Math.max(0, this.ticket - input.ticket);
          const estimate = input.remaining - after - input.uncountedBefore;
          this.tokens = Math.max(-this.limit, Math.min(this.limit, estimate));
          this.lastSyncTicket = input.ticket;
        }
      } else {
        const estimate = input.remaining - input.uncountedBefore;
        this.tokens = Math.max(-this.limit, Math.min(this.tokens, estimate));
      }
      this.synced = true;
    }
  }

  /** Pauses until monotonic `until` (a later pause wins). */
  pause(until: number, now: number): void {
    this.refill(now);
    if (until > this.pausedUntil) this.pausedUntil = until;
  }

  setRate(rate: Rate, now: number): void {
    this.refill(now);
    this.limit = rate.count;
    this.windowMs = rate.windowMs;
    this.tokens = Math.min(this.tokens, this.limit);
    this.synced = false;
  }

  snapshot(now: number): BucketSnapshot {
    this.refill(now);
    return {
      limit: this.limit,
      windowMs: this.windowMs,
      tokens: this.tokens,
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : 0,
      at: now,
      synced: this.synced,
    };
  }
}
