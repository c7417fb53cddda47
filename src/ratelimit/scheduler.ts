import { AsyncLocalStorage } from 'node:async_hooks';
import { ConfigError, RejectedError, SupersededError } from '../errors/index.ts';
import { type Logger, silentLogger } from '../observability/logger.ts';
import { EPSILON, type SyncInput, type TakeResult } from './bucket.ts';
import { type Clock, systemClock, systemTimers, type TimerHandle, type Timers, unrefTimer } from './clock.ts';
import { PriorityQueue, type QueueNode } from './queue.ts';
import { DEFAULT_RATES } from './rates.ts';
import { createRedisStore, type RedisStoreConfig } from './redis-store.ts';
import { type BucketStore, createLocalStore, type MaybePromise } from './store.ts';
import {
  type GroupRates,
  type GroupStatus,
  type JobOptions,
  Priority,
  RATE_GROUPS,
  type Rate,
  type RateGroup,
  type RateLimitObservation,
  type Scheduler,
  type SchedulerStatus,
} from './types.ts';

export type StoreConfig = { readonly kind: 'local' } | RedisStoreConfig;

export interface SchedulerOptions {
  /** Initial bucket sizes (the key's `rate_limits`, parsed); default the documented free tier. */
  readonly rates?: GroupRates;
  /** Where buckets live; default `{ kind: 'local' }`. */
  readonly store?: StoreConfig;
  readonly clock?: Clock;
  readonly timers?: Timers;
  readonly logger?: Logger;
  /**
   * Tokens held back in every bucket (never more than half a bucket's spare capacity); default 1.
   * Costs that many requests once per run, not a share of the rate.
   */
  readonly safetyMargin?: number;
  /**
   * Until a group's first response has been seen, run one job of that group at a time, so a
   * server that enforces less than it advertised answers one request, not a burst; default true.
   */
  readonly probeFirst?: boolean;
  /** Shortest pause after a 429, even with `Retry-After: 0`; default 250 ms. */
  readonly minPauseMs?: number;
  /** Pause after a 429 that says neither Retry-After nor X-RateLimit-Reset; default 1000 ms, doubled per repeat. */
  readonly backoffBaseMs?: number;
  /** Cap of that backoff; default 60 000 ms. */
  readonly backoffMaxMs?: number;
  /** How long `ready()` waits for the shared store (Redis) to answer; default 5000 ms. */
  readonly storeReadyTimeoutMs?: number;
  /** Retry delay after the shared store failed (Redis down); default 1000 ms. */
  readonly storeRetryMs?: number;
  /** Most tokens one Redis round trip asks for; default 50. */
  readonly maxBatch?: number;
  /**
   * Unref the per-group timers so queued jobs alone do not keep the process alive; default false
   * (a queued job is pending work). There is no timer while nothing is queued.
   */
  readonly unrefTimers?: boolean;
}

interface Entry {
  readonly priority: number;
  readonly coalesceKey: string | undefined;
  readonly job: () => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  node: QueueNode<Entry> | undefined;
}

interface GroupState {
  readonly group: RateGroup;
  readonly queue: PriorityQueue<Entry>;
  /** Queued (not started) entries by coalescing key. */
  readonly byKey: Map<string, Entry>;
  /** Tickets of started, unsettled jobs. */
  readonly inFlight: Set<number>;
  /** Tickets of started jobs whose response has not been observed (the server may not have counted them). */
  readonly unanswered: Set<number>;
  /** Tickets granted by the store but not yet used (a job left the queue meanwhile). */
  credits: number[];
  timer: TimerHandle | undefined;
  timerDue: number;
  /** An asynchronous (Redis) take is outstanding. */
  taking: boolean;
  /** A server response has corrected this group's bucket (or probing is off). */
  confirmed: boolean;
  pumping: boolean;
  repump: boolean;
  served: number;
  http429: number;
  superseded: number;
  /** Consecutive 429s that said neither Retry-After nor X-RateLimit-Reset. */
  blind429: number;
}

interface JobContext {
  readonly group: RateGroup;
  readonly ticket: number;
}

function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | undefined)?.then === 'function';
}

function checkRate(rate: Rate, where: string): void {
  if (
    !(Number.isFinite(rate.count) && rate.count > 0 && Number.isFinite(rate.windowMs) && rate.windowMs > 0)
  ) {
    throw new ConfigError(`${where}: a rate needs a positive count and window, got ${JSON.stringify(rate)}`, {
      details: { where },
    });
  }
}

export function stoppedError(): RejectedError {
  return new RejectedError('scheduler_stopped', 'the rate-limit scheduler was stopped before this job ran');
}

/**
 * Creates the rate-limit scheduler: one token bucket per group (read, write, fulfillment), jobs
 * ordered by priority then arrival, coalescing, abort, 429 pauses, live correction from the
 * X-RateLimit-* headers, and optionally buckets shared through Redis.
 *
 * The transport calls `observe` from inside the job (before the job's promise settles): the
 * scheduler then knows which dispatched request the headers belong to. Observations made outside
 * a job are still used, but only to lower the estimate.
 */
export function createScheduler(options: SchedulerOptions = {}): Scheduler {
  const rates = options.rates ?? DEFAULT_RATES;
  for (const g of RATE_GROUPS) checkRate(rates[g], `rate_limits.${g}`);
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers;
  const logger = options.logger ?? silentLogger();
  const safetyMargin = options.safetyMargin ?? 1;
  const probeFirst = options.probeFirst ?? true;
  const minPauseMs = options.minPauseMs ?? 250;
  const backoffBaseMs = options.backoffBaseMs ?? 1000;
  const backoffMaxMs = options.backoffMaxMs ?? 60_000;
  const storeRetryMs = options.storeRetryMs ?? 1000;
  const storeReadyTimeoutMs = options.storeReadyTimeoutMs ?? 5000;
  const unref = options.unrefTimers ?? false;
  const storeConfig = options.store ?? { kind: 'local' };
  if (!(safetyMargin >= 0)) throw new ConfigError(`safetyMargin must be >= 0, got ${safetyMargin}`);

  const store: BucketStore =
    storeConfig.kind === 'redis'
      ? createRedisStore({ ...storeConfig, rates, clock, safetyMargin })
      : createLocalStore({ rates, clock, safetyMargin });
  const maxBatch = store.mode === 'redis' ? Math.max(1, options.maxBatch ?? 50) : Number.POSITIVE_INFINITY;
  const als = new AsyncLocalStorage<JobContext>();
  let stopped = false;
  let closing: Promise<void> | undefined;

  const groups = new Map<RateGroup, GroupState>();
  for (const g of RATE_GROUPS) {
    groups.set(g, {
      group: g,
      queue: new PriorityQueue<Entry>(),
      byKey: new Map(),
      inFlight: new Set(),
      unanswered: new Set(),
      credits: [],
      timer: undefined,
      timerDue: 0,
      taking: false,
      confirmed: !probeFirst,
      pumping: false,
      repump: false,
      served: 0,
      http429: 0,
      superseded: 0,
      blind429: 0,
    });
  }

  const probing = (gs: GroupState): boolean => !gs.confirmed;

  function clearTimer(gs: GroupState): void {
    if (gs.timer !== undefined) {
      timers.clearTimeout(gs.timer);
      gs.timer = undefined;
    }
  }

  function armTimer(gs: GroupState, ms: number): void {
    const delay = Math.max(0, Math.ceil(ms));
    const due = clock.now() + delay;
    if (gs.timer !== undefined) {
      if (gs.timerDue <= due) return; // an earlier wake-up is already set; it re-arms as needed
      timers.clearTimeout(gs.timer);
    }
    gs.timerDue = due;
    gs.timer = timers.setTimeout(() => {
      gs.timer = undefined;
      pump(gs);
    }, delay);
    if (unref) unrefTimer(gs.timer);
  }

  function detachAbort(e: Entry): void {
    if (e.signal && e.onAbort) e.signal.removeEventListener('abort', e.onAbort);
    e.onAbort = undefined;
  }

  function forgetKey(gs: GroupState, e: Entry): void {
    if (e.coalesceKey !== undefined && gs.byKey.get(e.coalesceKey) === e) gs.byKey.delete(e.coalesceKey);
  }

  function start(gs: GroupState, e: Entry, ticket: number): void {
    forgetKey(gs, e);
    detachAbort(e);
    e.node = undefined;
    gs.inFlight.add(ticket);
    gs.unanswered.add(ticket);
    gs.served++;
    let p: Promise<unknown>;
    try {
      p = Promise.resolve(als.run({ group: gs.group, ticket }, e.job));
    } catch (err) {
      p = Promise.reject(err);
    }
    const done = (): void => {
      gs.inFlight.delete(ticket);
      gs.unanswered.delete(ticket);
      // A response without rate-limit headers still ends the probe: there is nothing better to learn.
      gs.confirmed = true;
      if (gs.queue.size > 0 || gs.credits.length > 0) pump(gs);
    };
    p.then(
      (v) => {
        done();
        e.resolve(v);
      },
      (err: unknown) => {
        done();
        e.reject(err);
      },
    );
  }

  /** Applies a take; returns true when every wanted token was granted (keep pumping). */
  function applyTake(gs: GroupState, res: TakeResult, want: number): boolean {
    if (res.synced && store.mode === 'redis') gs.confirmed = true; // another process already probed
    for (let i = 0; i < res.granted; i++) {
      const ticket = res.firstTicket + i;
      const e = gs.queue.shift();
      if (e) start(gs, e, ticket);
      else gs.credits.push(ticket);
    }
    if (res.granted < want) {
      if (gs.queue.size > 0) armTimer(gs, res.waitMs);
      return false;
    }
    return true;
  }

  function pumpOnce(gs: GroupState): void {
    while (!stopped && gs.queue.size > 0) {
      if (probing(gs) && gs.inFlight.size > 0) return; // wait for the probe's response
      const credit = gs.credits.shift();
      if (credit !== undefined) {
        start(gs, gs.queue.shift() as Entry, credit);
        continue;
      }
      if (gs.taking) return;
      const want = probing(gs) ? 1 : Math.min(gs.queue.size, maxBatch);
      const r = store.take(gs.group, want);
      if (isPromise(r)) {
        gs.taking = true;
        r.then(
          (res) => {
            gs.taking = false;
            if (stopped) return;
            if (applyTake(gs, res, want)) pump(gs);
          },
          (err: unknown) => {
            gs.taking = false;
            if (stopped) return;
            logger.error({ err, group: gs.group }, 'rate-limit store take failed; retrying');
            armTimer(gs, storeRetryMs);
          },
        );
        return;
      }
      if (!applyTake(gs, r, want)) return;
    }
    if (gs.queue.size === 0) clearTimer(gs);
  }

  function pump(gs: GroupState): void {
    if (stopped) return;
    if (gs.pumping) {
      gs.repump = true;
      return;
    }
    gs.pumping = true;
    try {
      do {
        gs.repump = false;
        pumpOnce(gs);
      } while (gs.repump && !stopped);
    } finally {
      gs.pumping = false;
    }
  }

  function groupState(group: RateGroup): GroupState {
    const gs = groups.get(group);
    if (!gs) throw new RejectedError('unknown_rate_group', `unknown rate group '${String(group)}'`);
    return gs;
  }

  function pauseMsFor(gs: GroupState, obs: RateLimitObservation): number {
    let ms: number | undefined;
    if (obs.retryAfterMs !== undefined) {
      ms = obs.retryAfterMs;
    } else if (obs.resetAtMs !== undefined) {
      const untilReset = obs.resetAtMs - clock.wallNow();
      // A reset further away than one window is clock skew, not information.
      if (untilReset > 0) ms = Math.min(untilReset, store.snapshot(gs.group).windowMs);
    }
    if (ms === undefined) {
      ms = Math.min(backoffMaxMs, backoffBaseMs * 2 ** gs.blind429);
      gs.blind429++;
    } else {
      gs.blind429 = 0;
    }
    return Math.max(minPauseMs, ms);
  }

  function settleStoreOps(gs: GroupState, ops: MaybePromise<void>[], then: () => void): void {
    if (!ops.some(isPromise)) {
      then();
      return;
    }
    Promise.all(ops).then(then, (err: unknown) => {
      logger.error({ err, group: gs.group }, 'rate-limit store update failed');
      then();
    });
  }

  let readyPromise: Promise<void> | undefined;

  const scheduler: Scheduler = {
    ready(): Promise<void> {
      if (stopped) return Promise.reject(stoppedError());
      readyPromise ??= store.ready?.(storeReadyTimeoutMs) ?? Promise.resolve();
      return readyPromise;
    },

    schedule<T>(opts: JobOptions, job: () => Promise<T>): Promise<T> {
      if (stopped) return Promise.reject(stoppedError());
      let gs: GroupState;
      try {
        gs = groupState(opts.group);
      } catch (err) {
        return Promise.reject(err);
      }
      const signal = opts.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<T>((resolve, reject) => {
        const e: Entry = {
          priority: opts.priority ?? Priority.read,
          coalesceKey: opts.coalesceKey,
          job,
          resolve: resolve as (value: unknown) => void,
          reject,
          signal,
          onAbort: undefined,
          node: undefined,
        };
        if (e.coalesceKey !== undefined) {
          const old = gs.byKey.get(e.coalesceKey);
          const oldNode = old?.node;
          if (old && oldNode?.linked) {
            detachAbort(old);
            old.node = undefined;
            gs.superseded++;
            if (oldNode.priority <= e.priority) {
              // The older entry's slot is earlier than where the newer one would go: take it over.
              oldNode.value = e;
              e.node = oldNode;
            } else {
              gs.queue.remove(oldNode);
            }
            old.reject(new SupersededError(e.coalesceKey));
          }
          gs.byKey.set(e.coalesceKey, e);
        }
        if (!e.node) e.node = gs.queue.push(e.priority, e);
        if (signal) {
          const onAbort = (): void => {
            const node = e.node;
            if (!node?.linked) return;
            gs.queue.remove(node);
            e.node = undefined;
            e.onAbort = undefined;
            forgetKey(gs, e);
            if (gs.queue.size === 0) clearTimer(gs);
            reject(signal.reason);
          };
          e.onAbort = onAbort;
          signal.addEventListener('abort', onAbort, { once: true });
        }
        pump(gs);
      });
    },

    observe(obs: RateLimitObservation): void {
      if (stopped) return;
      const gs = groups.get(obs.group);
      if (!gs) return;
      const ctx = als.getStore();
      const ticket = ctx && ctx.group === obs.group ? ctx.ticket : undefined;
      // Requests sent before this one whose answers have not come back yet may reach the server
      // after it: its `remaining` need not count them.
      let uncountedBefore = 0;
      if (ticket !== undefined) {
        gs.unanswered.delete(ticket);
        for (const t of gs.unanswered) if (t < ticket) uncountedBefore++;
      } else {
        uncountedBefore = gs.unanswered.size;
      }
      const is429 = obs.status === 429;
      // A 429 means the server's bucket is empty, whether or not it says so.
      const remaining = obs.remaining ?? (is429 ? 0 : undefined);
      const ops: MaybePromise<void>[] = [];
      if (remaining !== undefined || obs.limit !== undefined) {
        const input: SyncInput = {
          uncountedBefore,
          ...(ticket !== undefined ? { ticket } : {}),
          ...(remaining !== undefined ? { remaining } : {}),
          ...(obs.limit !== undefined ? { limit: obs.limit } : {}),
        };
        ops.push(store.sync(gs.group, input));
      }
      if (is429) {
        gs.http429++;
        const ms = pauseMsFor(gs, obs);
        logger.warn({ group: gs.group, pauseMs: ms }, 'rate limited (429): pausing group');
        ops.push(store.pause(gs.group, ms));
      }
      const informative = is429 || remaining !== undefined || obs.limit !== undefined;
      settleStoreOps(gs, ops, () => {
        if (informative) gs.confirmed = true;
        pump(gs);
      });
    },

    setRate(group: RateGroup, rate: Rate): void {
      checkRate(rate, `setRate(${group})`);
      const gs = groupState(group);
      if (probeFirst) gs.confirmed = false;
      settleStoreOps(gs, [store.setRate(group, rate)], () => pump(gs));
    },

    status(): SchedulerStatus {
      const now = clock.now();
      const wall = clock.wallNow();
      const out: GroupStatus[] = [];
      for (const gs of groups.values()) {
        const s = store.snapshot(gs.group);
        const tokens = Math.min(s.limit, s.tokens + Math.max(0, now - s.at) * (s.limit / s.windowMs));
        out.push({
          group: gs.group,
          limit: s.limit,
          windowMs: s.windowMs,
          available: Math.max(0, Math.floor(tokens + EPSILON)) + gs.credits.length,
          queued: gs.queue.size,
          inFlight: gs.inFlight.size,
          pausedUntilMs: s.pausedUntil > now ? Math.round(wall + (s.pausedUntil - now)) : 0,
          served: gs.served,
          http429: gs.http429,
          superseded: gs.superseded,
        });
      }
      return { mode: store.mode, groups: out };
    },

    stop(): Promise<void> {
      if (closing) return closing;
      stopped = true;
      for (const gs of groups.values()) {
        clearTimer(gs);
        gs.byKey.clear();
        gs.credits = [];
        for (const e of gs.queue.drain()) {
          detachAbort(e);
          e.node = undefined;
          e.reject(stoppedError());
        }
      }
      closing = store.close();
      return closing;
    },
  };
  return scheduler;
}
