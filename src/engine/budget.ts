// The engine reads the scheduler's write budget through this port.
import type { Scheduler } from '../ratelimit/types.ts';
import type { WriteBudget } from './ports.ts';

/** Writes the scheduler can serve now: tokens available in the `write` group minus jobs queued there. */
export function writeBudgetFromScheduler(
  scheduler: Pick<Scheduler, 'status'>,
  now: () => number = Date.now,
): WriteBudget {
  return {
    writesAvailable() {
      const g = scheduler.status().groups.find((x) => x.group === 'write');
      if (g === undefined) return Number.POSITIVE_INFINITY;
      if (g.pausedUntilMs > now()) return 0;
      return Math.max(0, Math.floor(g.available) - g.queued);
    },
  };
}
