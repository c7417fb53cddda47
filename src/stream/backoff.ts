/** Exponential backoff with jitter: attempt n waits about `initial × factor^n`, capped, partly random. */
import type { BackoffOptions } from './types.ts';

export interface Backoff {
  /** Delay before attempt `attempt` (0-based). */
  delay(attempt: number): number;
}

export function createBackoff(options: BackoffOptions = {}, random: () => number = Math.random): Backoff {
  const initial = Math.max(1, options.initialMs ?? 500);
  const max = Math.max(initial, options.maxMs ?? 30_000);
  const factor = Math.max(1, options.factor ?? 2);
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0.5));
  return {
    delay(attempt: number): number {
      const d = Math.min(max, initial * factor ** Math.max(0, attempt));
      const r = Math.min(1, Math.max(0, random()));
      return Math.round(d * (1 - jitter) + d * jitter * r);
    },
  };
}
