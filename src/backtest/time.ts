/**
 * Time in a backtest comes from the tape: a virtual clock that only moves when the replay moves it,
 * timers (the market view's refresh schedule) and cron (strategies' ticks, the engine's risk sweep)
 * that fire when the clock passes them, in time order, one at a time, so that the same tape always
 * runs the same way. Cron expressions are read as node-cron reads them (5 or 6 fields), in UTC.
 *
 *   const time = new VirtualTime(tapeStart);
 *   createMarketView({ clock: time, timers: time, ... });
 *   createEngine({ clock: time, cron: time.cron, ... });
 *   await time.advanceTo(event.at, settle);   // fires every timer and tick due until then
 */
import cron from 'node-cron';
import type { CronPort } from '../engine/ports.ts';
import type { TimerHandle, Timers } from '../ratelimit/clock.ts';

interface Due {
  /** Moved only by skipTo (a cron task arms its next firing from it). */
  at: number;
  seq: number;
  readonly fn: () => void;
  cancelled: boolean;
  /** A cron task: scheduled again after it fires. */
  readonly next?: (after: number) => number;
}

/** A binary min-heap by (at, seq). */
class DueHeap {
  private readonly a: Due[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): Due | undefined {
    return this.a[0];
  }
  push(d: Due): void {
    const a = this.a;
    a.push(d);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i] as Due, a[p] as Due)) break;
      [a[i], a[p]] = [a[p] as Due, a[i] as Due];
      i = p;
    }
  }
  pop(): Due | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l] as Due, a[m] as Due)) m = l;
        if (r < a.length && less(a[r] as Due, a[m] as Due)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m] as Due, a[i] as Due];
        i = m;
      }
    }
    return top;
  }
}
const less = (x: Due, y: Due) => x.at < y.at || (x.at === y.at && x.seq < y.seq);

export class VirtualTime implements Timers {
  private t: number;
  private seq = 0;
  private readonly heap = new DueHeap();
  readonly cron: CronPort;

  constructor(start: number) {
    this.t = start;
    const self = this;
    this.cron = {
      validate: (expression: string) => cron.validate(expression),
      schedule(expression: string, fn: () => void) {
        const next = cronNext(expression);
        const task = { stopped: false, current: undefined as Due | undefined };
        // one function for every firing of the task: what fires is always its one armed (current)
        const fire = () => {
          if (task.stopped) return;
          arm((task.current as Due).at);
          fn();
        };
        const arm = (after: number) => {
          const d: Due = { at: next(after), seq: self.seq++, cancelled: false, fn: fire };
          task.current = d;
          self.heap.push(d);
        };
        arm(self.t);
        return {
          stop() {
            task.stopped = true;
            if (task.current) task.current.cancelled = true;
          },
        };
      },
    };
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const d: Due = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.heap.push(d);
    return d as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    if (handle && typeof handle === 'object') (handle as unknown as Due).cancelled = true;
  }

  /** When the next timer or tick is due (Infinity: none). */
  nextDue(): number {
    this.dropCancelled();
    return this.heap.peek()?.at ?? Number.POSITIVE_INFINITY;
  }

  private dropCancelled(): void {
    while (this.heap.peek()?.cancelled) this.heap.pop();
  }

  /** The next timer or tick due that is not cancelled (left in place). */
  private peekDue(): Due | undefined {
    this.dropCancelled();
    return this.heap.peek();
  }

  /** Moves the clock to `to` when nothing is due until then (true); else leaves it (false). */
  moveIfQuiet(to: number): boolean {
    if (this.nextDue() <= to) return false;
    if (to > this.t) this.t = to;
    return true;
  }

  /**
   * Moves the clock to `to` at once: everything due before it (timers and ticks, however many times
   * each would have come) is due once, at `to`, in the order it was due; the next advanceTo fires
   * them. A cron task then arms its next tick after `to`, a timer set again counts from `to`. For a
   * stretch of a tape where nothing was recorded (see TapeReplay.silence): ticking through it minute
   * by minute would only repeat a stale market's answers (a month is millions of firings).
   */
  skipTo(to: number): void {
    if (to <= this.t) return;
    const due: Due[] = [];
    // those due at `to` itself too: they keep their place after the ones due before
    for (let d = this.heap.peek(); d !== undefined && d.at <= to; d = this.heap.peek()) {
      this.heap.pop();
      if (!d.cancelled) due.push(d);
    }
    for (const d of due) {
      d.at = to;
      d.seq = this.seq++;
      this.heap.push(d);
    }
    this.t = to;
  }

  /**
   * Moves the clock to `to`, firing what is due on the way, each at its own time — what is due at
   * the same moment together — ; `settle` runs after each moment's firings (returns what to await
   * for what they started, if anything) before the next one.
   * With `stop`, each firing is followed by its `turn` (what to await, if anything) and a check of
   * `stopped`: when it says stop, the clock stays at the last firing (a gap of days in a tape is
   * hundreds of thousands of ticks, which a Ctrl-C must not wait for).
   * Returns what to await, if anything: nothing when every `settle` returned nothing and there is no
   * `stop` (the clock is at `to` then, all fired).
   */
  advanceTo(
    to: number,
    settle: () => Promise<void> | undefined,
    stop?: { readonly turn: () => Promise<void> | undefined; readonly stopped: () => boolean },
  ): Promise<void> | undefined {
    for (;;) {
      const d = this.peekDue();
      if (d === undefined || d.at > to) break;
      this.fireMoment(d);
      const settling = settle();
      if (settling !== undefined || stop !== undefined) return this.advanceOn(settling, to, settle, stop);
    }
    if (to > this.t) this.t = to;
    return undefined;
  }

  /** advanceTo from the end of a moment's firings: awaits what `settle` returned and the turn, goes on. */
  private async advanceOn(
    settling: Promise<void> | undefined,
    to: number,
    settle: () => Promise<void> | undefined,
    stop?: { readonly turn: () => Promise<void> | undefined; readonly stopped: () => boolean },
  ): Promise<void> {
    for (;;) {
      if (settling !== undefined) await settling;
      if (stop !== undefined) {
        const turn = stop.turn();
        if (turn !== undefined) await turn;
        if (stop.stopped()) return;
      }
      const d = this.peekDue();
      if (d === undefined || d.at > to) break;
      this.fireMoment(d);
      settling = settle();
    }
    if (to > this.t) this.t = to;
  }

  /**
   * Fires `d`, the next due, and what else was due at that same moment, as the daemon's timers of
   * one moment do (their hooks read the state from before any of their executions); a timer set
   * meanwhile for this moment waits for the next round.
   */
  private fireMoment(d: Due): void {
    this.heap.pop();
    if (d.at > this.t) this.t = d.at;
    const before = this.seq;
    d.fn();
    for (let n = this.peekDue(); n !== undefined && n.at === d.at && n.seq < before; n = this.peekDue()) {
      this.heap.pop();
      n.fn();
    }
  }
}

// ── cron ────────────────────────────────────────────────────────────────

const DAY_MS = 86_400_000;

/** The next time (ms, UTC) strictly after `after` that `expression` matches. */
export function cronNext(expression: string): (after: number) => number {
  if (!cron.validate(expression)) throw new RangeError(`not a cron expression: '${expression}'`);
  const f = cron.parse(expression);
  const numeric = (name: string, v: readonly (number | string)[]): Set<number> => {
    for (const x of v)
      if (typeof x !== 'number')
        throw new RangeError(`cron '${expression}': ${name} '${x}' is not supported in a backtest`);
    return new Set(v as number[]);
  };
  const seconds = [...f.second].sort((a, b) => a - b);
  const minutes = new Set(f.minute);
  const hours = new Set(f.hour);
  const months = new Set(f.month);
  const doms = numeric('day of month', f.dayOfMonth);
  const dows = numeric('day of week', f.dayOfWeek);
  if (dows.has(7)) dows.add(0);
  /** The start of the last minute found to match all but the seconds (a task fires in it again and again). */
  let matched = Number.NaN;
  return (after: number) => {
    // start at the next whole second after `after`
    let t = Math.floor(after / 1000) * 1000 + 1000;
    for (let guard = 0; guard < 400 * 1440; guard++) {
      const minute = Math.floor(t / 60_000) * 60_000;
      if (minute !== matched) {
        const d = new Date(t);
        if (!months.has(d.getUTCMonth() + 1) || !doms.has(d.getUTCDate()) || !dows.has(d.getUTCDay())) {
          t = Math.floor(t / DAY_MS) * DAY_MS + DAY_MS; // next day, 00:00:00
          continue;
        }
        if (!hours.has(d.getUTCHours())) {
          t = Math.floor(t / 3_600_000) * 3_600_000 + 3_600_000;
          continue;
        }
        if (!minutes.has(d.getUTCMinutes())) {
          t = minute + 60_000;
          continue;
        }
        matched = minute;
      }
      // t is a whole second: its seconds past the minute
      const s = (t - minute) / 1000;
      const hit = seconds.find((x) => x >= s);
      if (hit !== undefined) return minute + hit * 1000;
      t = minute + 60_000;
    }
    throw new RangeError(`cron '${expression}' never fires`);
  };
}
