import type { LimiterClock } from './ratelimit/token-bucket.ts';

/**
 * The sandbox's one clock: real time (or a test's clock) plus an offset that only grows.
 *
 * `POST /_sandbox/clock {advanceSec}` moves it forward so a test crosses lifetimes measured in
 * days (wallet JWT 12 h, access cookie 3.5 d, instant key 7 d, refresh cookie 30 d) in seconds.
 * Everything that judges a lifetime reads it: instant keys, rate buckets, nonces, sessions, PATs
 * and wallet JWTs. The chain's time is moved by the same amount by the admin route (anvil
 * `evm_increaseTime` + `evm_mine`), so order windows and drop stages keep their place beside it.
 */
export class SandboxClock implements LimiterClock {
  readonly #base: LimiterClock;
  #offsetMs = 0;

  constructor(base: LimiterClock = { now: () => performance.now(), wallNow: () => Date.now() }) {
    this.#base = base;
  }

  /** Monotonic ms (rate buckets), offset included. */
  now(): number {
    return this.#base.now() + this.#offsetMs;
  }

  /** Epoch ms, offset included. */
  wallNow(): number {
    return this.#base.wallNow() + this.#offsetMs;
  }

  /** How far the clock has been moved ahead of its base, ms. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Moves the clock forward by `ms` (a whole, non-negative number). */
  advance(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < 0) {
      throw new RangeError(`the sandbox clock only moves forward by whole ms, got ${ms}`);
    }
    this.#offsetMs += ms;
  }
}
