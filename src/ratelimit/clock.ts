import { performance } from 'node:perf_hooks';

/**
 * Time source of the scheduler. `now()` is monotonic (intervals, refill, pauses); `wallNow()` is
 * epoch milliseconds, used only to convert server epoch values (X-RateLimit-Reset) into delays
 * and to report pause ends in status(). A wall-clock step never refills a bucket early.
 */
export interface Clock {
  /** Monotonic milliseconds (arbitrary origin). */
  now(): number;
  /** Epoch milliseconds. */
  wallNow(): number;
}

/** Opaque timer handle. */
export type TimerHandle = unknown;

/** Timer source, injectable so unit tests drive time with a fake clock instead of real sleeps. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = Object.freeze({
  now: () => performance.now(),
  wallNow: () => Date.now(),
});

export const systemTimers: Timers = Object.freeze({
  setTimeout: (fn: () => void, ms: number): TimerHandle => setTimeout(fn, ms),
  clearTimeout: (handle: TimerHandle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/** Calls `unref()` on a real Node timer so it does not keep the process alive; no-op for fakes. */
export function unrefTimer(handle: TimerHandle): void {
  const h = handle as { unref?: () => void } | null;
  if (h && typeof h.unref === 'function') h.unref();
}
