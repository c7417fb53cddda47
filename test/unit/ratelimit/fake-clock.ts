import type { Clock, TimerHandle, Timers } from '../../../src/ratelimit/clock.ts';

interface FakeTimer {
  readonly id: number;
  readonly due: number;
  readonly fn: () => void;
}

/** Lets every pending promise callback run (jobs start and settle through microtasks). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A manual clock that is also the timer source: time moves only through `advance`, which fires
 * due timers in order, letting promise callbacks run after each one.
 */
export class FakeClock implements Clock, Timers {
  private mono = 10_000;
  private wallOffset = 1_700_000_000_000 - 10_000;
  private nextId = 1;
  private timers: FakeTimer[] = [];

  now(): number {
    return this.mono;
  }

  wallNow(): number {
    return this.mono + this.wallOffset;
  }

  /** Steps the wall clock only (NTP correction, skew): the monotonic clock does not move. */
  jumpWall(ms: number): void {
    this.wallOffset += ms;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t: FakeTimer = { id: this.nextId++, due: this.mono + Math.max(0, ms), fn };
    this.timers.push(t);
    return t.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.mono + ms;
    await flush();
    for (;;) {
      let next: FakeTimer | undefined;
      for (const t of this.timers) if (t.due <= target && (!next || t.due < next.due)) next = t;
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      if (next.due > this.mono) this.mono = next.due;
      next.fn();
      await flush();
    }
    this.mono = target;
    await flush();
  }
}
