import { SupersededError } from '../../../src/errors/index.ts';
import type {
  GroupStatus,
  JobOptions,
  Rate,
  RateGroup,
  RateLimitObservation,
  Scheduler,
  SchedulerStatus,
} from '../../../src/ratelimit/types.ts';
import { RATE_GROUPS } from '../../../src/ratelimit/types.ts';

/**
 * Virtual time: `sleep` advances the clock at once (after yielding a macrotask), so tests can wait
 * "minutes" instantly and still assert how long something waited.
 */
export class VirtualClock {
  #now: number;
  /** Every sleep requested, in ms, in order. */
  readonly sleeps: number[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs;
  }

  now = (): number => this.#now;

  advance(ms: number): void {
    this.#now += ms;
  }

  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    this.sleeps.push(ms);
    this.#now += Math.max(0, ms);
    await new Promise<void>((r) => setImmediate(r));
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
  };
}

export interface ScheduledJobRecord {
  readonly options: JobOptions;
  /** Virtual time when the job was handed to the scheduler. */
  readonly queuedAt: number;
  /** Virtual time when the job started (undefined if it never ran). */
  startedAt?: number;
  finishedAt?: number;
}

interface Entry {
  readonly options: JobOptions;
  readonly job: () => Promise<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  readonly record: ScheduledJobRecord;
  readonly onAbort?: () => void;
}

export interface FakeSchedulerOptions {
  readonly clock?: VirtualClock;
  /**
   * Pause a group on a 429 observation until Retry-After / X-RateLimit-Reset (default true, like
   * the real scheduler). `false` gives a naive scheduler that lets a re-scheduled job run at once.
   */
  readonly pauseOn429?: boolean;
}

/**
 * A Scheduler for tests: really serializes jobs (one at a time, priority order, FIFO within a
 * priority), supersedes a queued job with the same coalescing key, honours abort signals while
 * queued, pauses a group after a 429 observation (on virtual time) and records everything.
 */
export class FakeScheduler implements Scheduler {
  readonly clock: VirtualClock;
  readonly observations: RateLimitObservation[] = [];
  readonly jobs: ScheduledJobRecord[] = [];
  /** Highest number of jobs that ran at the same time (must stay 1). */
  maxConcurrent = 0;
  /** Virtual waits the scheduler itself did for paused groups (not the transport's sleeps). */
  readonly pauseWaits: number[] = [];
  readonly pausedUntil: Record<RateGroup, number> = { read: 0, write: 0, fulfillment: 0 };
  readonly rates: Partial<Record<RateGroup, Rate>> = {};
  readonly #pauseOn429: boolean;
  readonly #queue: Entry[] = [];
  #running = 0;
  #pumping = false;
  #stopped = false;

  constructor(options: FakeSchedulerOptions = {}) {
    this.clock = options.clock ?? new VirtualClock();
    this.#pauseOn429 = options.pauseOn429 ?? true;
  }

  schedule<T>(options: JobOptions, job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#stopped) {
        reject(new Error('scheduler stopped'));
        return;
      }
      const signal = options.signal;
      if (signal?.aborted) {
        reject(signal.reason ?? new Error('aborted'));
        return;
      }
      if (options.coalesceKey !== undefined) {
        const i = this.#queue.findIndex(
          (e) => e.options.coalesceKey === options.coalesceKey && e.options.group === options.group,
        );
        const old = i === -1 ? undefined : this.#queue.splice(i, 1)[0];
        if (old) {
          if (old.onAbort) old.options.signal?.removeEventListener('abort', old.onAbort);
          old.reject(new SupersededError(options.coalesceKey));
        }
      }
      const record: ScheduledJobRecord = { options, queuedAt: this.clock.now() };
      this.jobs.push(record);
      let entry: Entry;
      const onAbort = () => {
        const i = this.#queue.indexOf(entry);
        if (i !== -1) {
          this.#queue.splice(i, 1);
          reject(signal?.reason ?? new Error('aborted'));
        }
      };
      entry = {
        options,
        job,
        resolve: resolve as (v: unknown) => void,
        reject,
        record,
        ...(signal ? { onAbort } : {}),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(entry);
      void this.#pump();
    });
  }

  observe(observation: RateLimitObservation): void {
    this.observations.push(observation);
    if (!this.#pauseOn429 || observation.status !== 429) return;
    const now = this.clock.now();
    const until =
      observation.retryAfterMs !== undefined
        ? now + observation.retryAfterMs
        : observation.resetAtMs !== undefined
          ? observation.resetAtMs
          : now;
    this.pausedUntil[observation.group] = Math.max(this.pausedUntil[observation.group], until);
  }

  setRate(group: RateGroup, rate: Rate): void {
    this.rates[group] = rate;
  }

  status(): SchedulerStatus {
    const groups: GroupStatus[] = RATE_GROUPS.map((group) => ({
      group,
      limit: this.rates[group]?.count ?? 0,
      windowMs: this.rates[group]?.windowMs ?? 0,
      available: 0,
      queued: this.#queue.filter((e) => e.options.group === group).length,
      inFlight: this.#running,
      pausedUntilMs: this.pausedUntil[group],
      served: this.jobs.filter((j) => j.options.group === group && j.finishedAt !== undefined).length,
      http429: this.observations.filter((o) => o.group === group && o.status === 429).length,
      superseded: 0,
    }));
    return { mode: 'local', groups };
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const e of this.#queue.splice(0)) e.reject(new Error('scheduler stopped'));
  }

  /** Observations with the given status. */
  observed(status: number): RateLimitObservation[] {
    return this.observations.filter((o) => o.status === status);
  }

  /** Start times (virtual) of the jobs that ran. */
  startTimes(): number[] {
    return this.jobs.flatMap((j) => (j.startedAt === undefined ? [] : [j.startedAt]));
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length > 0) {
        let best = 0;
        for (let i = 1; i < this.#queue.length; i++) {
          const p = this.#queue[i]?.options.priority ?? 4;
          const q = this.#queue[best]?.options.priority ?? 4;
          if (p < q) best = i;
        }
        const entry = this.#queue[best] as Entry;
        // The group stays paused (virtual time) until the 429 wait is over.
        const until = this.pausedUntil[entry.options.group];
        if (until > this.clock.now()) {
          const wait = until - this.clock.now();
          this.pauseWaits.push(wait);
          this.clock.advance(wait);
          await new Promise<void>((r) => setImmediate(r));
          continue;
        }
        this.#queue.splice(best, 1);
        if (entry.onAbort) entry.options.signal?.removeEventListener('abort', entry.onAbort);
        entry.record.startedAt = this.clock.now();
        this.#running++;
        this.maxConcurrent = Math.max(this.maxConcurrent, this.#running);
        try {
          entry.resolve(await entry.job());
        } catch (e) {
          entry.reject(e);
        } finally {
          this.#running--;
          entry.record.finishedAt = this.clock.now();
        }
      }
    } finally {
      this.#pumping = false;
    }
  }
}
