import { describe, expect, it } from 'vitest';
import { cronNext, VirtualTime } from '../../../src/backtest/time.ts';

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);

describe('virtual time', () => {
  it('cron: the next match after a time, 5 and 6 fields, in UTC', () => {
    expect(cronNext('*/15 * * * * *')(T0)).toBe(T0 + 15_000);
    expect(cronNext('*/15 * * * * *')(T0 + 14_999)).toBe(T0 + 15_000);
    expect(cronNext('*/5 * * * *')(T0)).toBe(T0 + 5 * 60_000);
    expect(cronNext('0 3 * * *')(T0)).toBe(T0 + 3 * 3_600_000);
    expect(cronNext('30 0 1 * *')(T0 + 3_600_000)).toBe(Date.UTC(2026, 1, 1, 0, 30));
    // 2026-01-01 is a Thursday: the next Monday at 09:00
    expect(cronNext('0 9 * * 1')(T0)).toBe(Date.UTC(2026, 0, 5, 9, 0));
    expect(() => cronNext('not cron')).toThrow(/not a cron expression/);
  });

  it('fires timers and ticks in time order, each at its own time, and settles after each', async () => {
    const time = new VirtualTime(T0);
    const seen: string[] = [];
    time.setTimeout(() => seen.push(`timer@${time.now() - T0}`), 20_000);
    const cancelled = time.setTimeout(() => seen.push('never'), 5_000);
    time.clearTimeout(cancelled);
    const task = time.cron.schedule('*/15 * * * * *', () => {
      seen.push(`tick@${time.now() - T0}`);
      if (time.now() - T0 === 15_000) time.setTimeout(() => seen.push(`nested@${time.now() - T0}`), 1_000);
    });
    let settles = 0;
    await time.advanceTo(T0 + 31_000, async () => {
      settles++;
    });
    expect(seen).toEqual(['tick@15000', 'nested@16000', 'timer@20000', 'tick@30000']);
    expect(settles).toBe(4);
    expect(time.now()).toBe(T0 + 31_000);
    task.stop();
    await time.advanceTo(T0 + 120_000, async () => {});
    expect(seen).toHaveLength(4);
    expect(time.nextDue()).toBe(Number.POSITIVE_INFINITY);
  });

  it("what is due at the same moment fires together, then settles once (as the daemon's timers of one moment: each hook reads the state from before the others' executions); one set meanwhile for that moment comes after", async () => {
    const time = new VirtualTime(T0);
    const seen: string[] = [];
    let executed = 0;
    time.cron.schedule('*/10 * * * * *', () => seen.push(`minter@${time.now() - T0} sees ${executed}`));
    time.cron.schedule('*/20 * * * * *', () => {
      seen.push(`rebalancer@${time.now() - T0} sees ${executed}`);
      time.setTimeout(() => seen.push(`later@${time.now() - T0}`), 0);
    });
    await time.advanceTo(T0 + 20_000, () => {
      // what the moment's firings started ends here (an execution)
      executed++;
      seen.push('settled');
      return undefined;
    });
    expect(seen).toEqual([
      'minter@10000 sees 0',
      'settled',
      // both due at 20 s (in the order they were armed): the second reads what the first started
      // as not done yet
      'rebalancer@20000 sees 1',
      'minter@20000 sees 1',
      'settled',
      'later@20000',
      'settled',
    ]);
  });

  it('skipTo: what was due before comes once, at the new time, in its order; ticks go on from there', async () => {
    const time = new VirtualTime(T0);
    const seen: string[] = [];
    const every = (ms: number, name: string) => {
      const again = () => {
        seen.push(`${name}@${(time.now() - T0) / 1000}`);
        time.setTimeout(again, ms);
      };
      time.setTimeout(again, ms);
    };
    every(10_000, 'poll');
    const cancelled = time.setTimeout(() => seen.push('never'), 1_000);
    time.clearTimeout(cancelled);
    time.cron.schedule('*/15 * * * * *', () => seen.push(`tick@${(time.now() - T0) / 1000}`));
    time.setTimeout(() => seen.push(`late@${(time.now() - T0) / 1000}`), 3_600_000);
    time.skipTo(T0 + 3_600_000);
    expect(time.now()).toBe(T0 + 3_600_000);
    // nothing fired yet: the next advanceTo fires them
    expect(seen).toEqual([]);
    await time.advanceTo(T0 + 3_630_000, () => undefined);
    // a day of a 10-second timer and a 15-second tick: each once at 3600 s, the one due at 3600 s
    // itself after them, then each on its own schedule again
    expect(seen).toEqual([
      'poll@3600',
      'tick@3600',
      'late@3600',
      'poll@3610',
      'tick@3615',
      'poll@3620',
      'tick@3630',
      'poll@3630',
    ]);
    // backwards or in place: nothing moves
    time.skipTo(T0);
    expect(time.now()).toBe(T0 + 3_630_000);
  });
});
