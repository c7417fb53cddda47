import { describe, expect, it } from 'vitest';
import { ConfigError, RejectedError, SupersededError } from '../../../src/errors/index.ts';
import { createScheduler, type SchedulerOptions } from '../../../src/ratelimit/scheduler.ts';
import { type GroupRates, type GroupStatus, Priority, type RateGroup } from '../../../src/ratelimit/types.ts';
import { TokenBucketLimiter } from '../../../src/sandbox/ratelimit/token-bucket.ts';
import { FakeClock, flush } from './fake-clock.ts';

const RATES: GroupRates = {
  read: { count: 1, windowMs: 1000 },
  write: { count: 2, windowMs: 1000 },
  fulfillment: { count: 1, windowMs: 1000 },
};

function make(options: Partial<SchedulerOptions> = {}) {
  const clock = new FakeClock();
  const s = createScheduler({
    rates: RATES,
    clock,
    timers: clock,
    safetyMargin: 0,
    probeFirst: false,
    ...options,
  });
  return { clock, s };
}

function group(s: ReturnType<typeof make>['s'], g: RateGroup): GroupStatus {
  const st = s.status().groups.find((x) => x.group === g);
  if (!st) throw new Error(`no status for ${g}`);
  return st;
}

interface Deferred {
  resolve(): void;
  readonly promise: Promise<void>;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { resolve, promise };
}

describe('scheduler: ordering', () => {
  it('runs the lowest priority number first, spaced by the refill rate', async () => {
    const { clock, s } = make();
    const order: string[] = [];
    const at: number[] = [];
    const run = (name: string) => async () => {
      order.push(name);
      at.push(clock.now());
    };
    const first = s.schedule({ group: 'read' }, run('first'));
    const rest = [
      s.schedule({ group: 'read', priority: Priority.analytics }, run('analytics')),
      s.schedule({ group: 'read', priority: Priority.snipe }, run('snipe-1')),
      s.schedule({ group: 'read', priority: Priority.trade }, run('trade')),
      s.schedule({ group: 'read', priority: Priority.snipe }, run('snipe-2')),
      s.schedule({ group: 'read', priority: Priority.cancel }, run('cancel')),
    ];
    await flush();
    expect(order).toEqual(['first']);
    await clock.advance(5_000);
    await Promise.all([first, ...rest]);
    expect(order).toEqual(['first', 'snipe-1', 'snipe-2', 'cancel', 'trade', 'analytics']);
    const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
    expect(gaps).toEqual([1000, 1000, 1000, 1000, 1000]);
  });

  it('is FIFO within one priority', async () => {
    const { clock, s } = make();
    const order: number[] = [];
    const all = Array.from({ length: 6 }, (_, i) =>
      s.schedule({ group: 'read', priority: Priority.bidRefresh }, async () => {
        order.push(i);
      }),
    );
    await clock.advance(6_000);
    await Promise.all(all);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('keeps groups independent: an empty read bucket does not hold back writes', async () => {
    const { clock, s } = make();
    const started: string[] = [];
    s.schedule({ group: 'read' }, async () => void started.push('r1'));
    s.schedule({ group: 'read' }, async () => void started.push('r2'));
    s.schedule({ group: 'write' }, async () => void started.push('w1'));
    s.schedule({ group: 'write' }, async () => void started.push('w2'));
    await flush();
    expect(started.sort()).toEqual(['r1', 'w1', 'w2']);
    await clock.advance(1000);
    expect(started).toContain('r2');
  });

  it('runs jobs concurrently (the bucket meters them, not a concurrency limit) and tracks inFlight', async () => {
    const { s } = make({ rates: { ...RATES, read: { count: 5, windowMs: 1000 } } });
    const gates = Array.from({ length: 5 }, () => deferred());
    const all = gates.map((g) => s.schedule({ group: 'read' }, () => g.promise));
    await flush();
    expect(group(s, 'read').inFlight).toBe(5);
    for (const g of gates) g.resolve();
    await Promise.all(all);
    expect(group(s, 'read').inFlight).toBe(0);
    expect(group(s, 'read').served).toBe(5);
  });

  it('a job that throws synchronously rejects its caller and the scheduler keeps going', async () => {
    const { clock, s } = make();
    const bad = s.schedule({ group: 'read' }, () => {
      throw new Error('boom');
    });
    const good = s.schedule({ group: 'read' }, async () => 'ok');
    await expect(bad).rejects.toThrow('boom');
    await clock.advance(1000);
    await expect(good).resolves.toBe('ok');
  });

  it('sets at most one timer per group, however many jobs wait', async () => {
    const { clock, s } = make();
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) all.push(s.schedule({ group: 'read' }, async () => {}).catch((e) => e));
    for (let i = 0; i < 100; i++)
      all.push(s.schedule({ group: 'fulfillment' }, async () => {}).catch((e) => e));
    await flush();
    expect(clock.pendingTimers).toBe(2);
    await clock.advance(10_500);
    expect(group(s, 'read').served).toBe(11);
    expect(clock.pendingTimers).toBe(2);
    await s.stop();
    const outcomes = await Promise.all(all);
    expect(outcomes.filter((o) => o instanceof RejectedError)).toHaveLength(200 - 11 - 11);
  });
});

describe('scheduler: coalescing', () => {
  it('a newer job replaces the queued older one, which rejects with SupersededError, and keeps its earlier slot', async () => {
    const { clock, s } = make();
    const order: string[] = [];
    const run = (name: string) => async () => void order.push(name);
    s.schedule({ group: 'read' }, run('blocker'));
    const a1 = s.schedule({ group: 'read', priority: Priority.bidRefresh, coalesceKey: 'bid:x' }, run('a1'));
    const b = s.schedule({ group: 'read', priority: Priority.bidRefresh }, run('b'));
    const a2 = s.schedule({ group: 'read', priority: Priority.bidRefresh, coalesceKey: 'bid:x' }, run('a2'));
    await expect(a1).rejects.toBeInstanceOf(SupersededError);
    await expect(a1).rejects.toMatchObject({ coalesceKey: 'bid:x', code: 'superseded' });
    expect(group(s, 'read').queued).toBe(2);
    await clock.advance(2000);
    await Promise.all([a2, b]);
    expect(order).toEqual(['blocker', 'a2', 'b']);
    expect(group(s, 'read').superseded).toBe(1);
  });

  it('a refresh that keeps being replaced is not starved', async () => {
    const { clock, s } = make();
    const order: string[] = [];
    const run = (name: string) => async () => void order.push(name);
    s.schedule({ group: 'read' }, run('blocker'));
    const superseded: Promise<unknown>[] = [];
    superseded.push(s.schedule({ group: 'read', coalesceKey: 'k' }, run('k1')).catch((e) => e));
    s.schedule({ group: 'read' }, run('other-1'));
    superseded.push(s.schedule({ group: 'read', coalesceKey: 'k' }, run('k2')).catch((e) => e));
    s.schedule({ group: 'read' }, run('other-2'));
    const last = s.schedule({ group: 'read', coalesceKey: 'k' }, run('k3'));
    const errs = await Promise.all(superseded);
    expect(errs.every((e) => e instanceof SupersededError)).toBe(true);
    await clock.advance(3000);
    await last;
    expect(order).toEqual(['blocker', 'k3', 'other-1', 'other-2']);
  });

  it('a newer, more urgent job goes to its own (earlier) place', async () => {
    const { clock, s } = make();
    const order: string[] = [];
    const run = (name: string) => async () => void order.push(name);
    s.schedule({ group: 'read' }, run('blocker'));
    const old = s.schedule({ group: 'read', priority: Priority.analytics, coalesceKey: 'k' }, run('old'));
    s.schedule({ group: 'read', priority: Priority.read }, run('read'));
    s.schedule({ group: 'read', priority: Priority.snipe, coalesceKey: 'k' }, run('new'));
    await expect(old).rejects.toBeInstanceOf(SupersededError);
    await clock.advance(3000);
    expect(order).toEqual(['blocker', 'new', 'read']);
  });

  it('does not touch a job that has already started', async () => {
    const { clock, s } = make();
    const gate = deferred();
    const running = s.schedule({ group: 'read', coalesceKey: 'k' }, async () => {
      await gate.promise;
      return 'first';
    });
    await flush();
    const next = s.schedule({ group: 'read', coalesceKey: 'k' }, async () => 'second');
    gate.resolve();
    await expect(running).resolves.toBe('first');
    await clock.advance(1000);
    await expect(next).resolves.toBe('second');
    expect(group(s, 'read').superseded).toBe(0);
  });
});

describe('scheduler: abort and stop', () => {
  it('an aborted queued job rejects with the abort reason and leaves the queue', async () => {
    const { clock, s } = make();
    const order: string[] = [];
    s.schedule({ group: 'read' }, async () => void order.push('blocker'));
    const ac = new AbortController();
    const x = s.schedule({ group: 'read', signal: ac.signal }, async () => void order.push('x'));
    const y = s.schedule({ group: 'read' }, async () => void order.push('y'));
    expect(group(s, 'read').queued).toBe(2);
    const reason = new Error('no longer wanted');
    ac.abort(reason);
    await expect(x).rejects.toBe(reason);
    expect(group(s, 'read').queued).toBe(1);
    await clock.advance(1000);
    await y;
    expect(order).toEqual(['blocker', 'y']);
  });

  it('an already aborted signal rejects at once and never runs the job', async () => {
    const { s } = make();
    let ran = false;
    const p = s.schedule({ group: 'read', signal: AbortSignal.abort('gone') }, async () => {
      ran = true;
    });
    await expect(p).rejects.toBe('gone');
    expect(ran).toBe(false);
    expect(group(s, 'read').queued).toBe(0);
  });

  it('aborting the last queued job clears the group timer', async () => {
    const { clock, s } = make();
    s.schedule({ group: 'read' }, async () => {});
    const ac = new AbortController();
    const p = s.schedule({ group: 'read', signal: ac.signal }, async () => {}).catch((e) => e);
    await flush();
    expect(clock.pendingTimers).toBe(1);
    ac.abort();
    await p;
    expect(clock.pendingTimers).toBe(0);
  });

  it('stop() rejects queued jobs with a clear error, clears timers, lets running jobs finish', async () => {
    const { clock, s } = make();
    const gate = deferred();
    const running = s.schedule({ group: 'read' }, async () => {
      await gate.promise;
      return 'done';
    });
    const q1 = s.schedule({ group: 'read' }, async () => 'never');
    const q2 = s.schedule({ group: 'fulfillment', priority: Priority.snipe }, async () => 'fine');
    const q3 = s.schedule({ group: 'fulfillment' }, async () => 'never');
    await flush();
    expect(clock.pendingTimers).toBe(2);
    await s.stop();
    await expect(q1).rejects.toBeInstanceOf(RejectedError);
    await expect(q1).rejects.toMatchObject({ code: 'scheduler_stopped' });
    await expect(q2).resolves.toBe('fine');
    await expect(q3).rejects.toMatchObject({ code: 'scheduler_stopped' });
    expect(clock.pendingTimers).toBe(0);
    await expect(s.schedule({ group: 'read' }, async () => 1)).rejects.toMatchObject({
      code: 'scheduler_stopped',
    });
    gate.resolve();
    await expect(running).resolves.toBe('done');
  });
});

describe('scheduler: correction from headers', () => {
  const TEN: GroupRates = { ...RATES, read: { count: 10, windowMs: 1000 } };

  it('X-RateLimit-Limit shrinks the bucket and its refill rate', async () => {
    const { clock, s } = make({ rates: TEN });
    await s.schedule({ group: 'read' }, async () => {
      s.observe({ group: 'read', status: 200, limit: 4, remaining: 3 });
    });
    expect(group(s, 'read')).toMatchObject({ limit: 4, available: 3 });
    const starts: number[] = [];
    const t0 = clock.now();
    for (let i = 0; i < 5; i++) s.schedule({ group: 'read' }, async () => void starts.push(clock.now() - t0));
    await clock.advance(1000);
    // 3 at once, then one token per 250 ms (4 per second), not one per 100 ms.
    expect(starts).toEqual([0, 0, 0, 250, 500]);
  });

  it('X-RateLimit-Limit grows the bucket and Remaining lets the burst through', async () => {
    const { s } = make();
    await s.schedule({ group: 'read' }, async () => {
      s.observe({ group: 'read', status: 200, limit: 10, remaining: 9 });
    });
    expect(group(s, 'read')).toMatchObject({ limit: 10, available: 9 });
    let started = 0;
    for (let i = 0; i < 12; i++) s.schedule({ group: 'read' }, async () => void started++);
    await flush();
    expect(started).toBe(9);
  });

  it('Remaining is corrected for requests still in flight, and stale responses are ignored', async () => {
    const { s } = make({ rates: TEN });
    const gates = Array.from({ length: 5 }, () => deferred());
    const respond: ((remaining: number) => void)[] = [];
    // Each job waits for its "response", then reports the headers from inside the job (like the transport).
    const jobs = gates.map((gate, i) =>
      s.schedule({ group: 'read' }, async () => {
        const remaining = await new Promise<number>((r) => {
          respond[i] = r;
        });
        s.observe({ group: 'read', status: 200, limit: 10, remaining });
        await gate.promise;
      }),
    );
    const answer = async (i: number, remaining: number) => {
      respond[i]?.(remaining);
      await flush();
      return group(s, 'read').available;
    };
    await flush();
    expect(group(s, 'read')).toMatchObject({ available: 5, inFlight: 5 });
    // Job 1 says 8 left after it: jobs 2..5 were sent after it and cannot be counted in that 8.
    expect(await answer(0, 8)).toBe(8 - 4);
    gates[0]?.resolve();
    await jobs[0];
    // Job 3 says 7: jobs 4 and 5 came after it; job 2, sent before it, has no answer yet and
    // may reach the server later.
    expect(await answer(2, 7)).toBe(7 - 2 - 1);
    // Job 2's answer is older than job 3's, already applied: it must not raise the estimate.
    expect(await answer(1, 9)).toBe(4);
    // A fresher answer may raise it (the server had more than we thought): job 5 is the last sent,
    // job 4 (sent before it) still has no answer.
    expect(await answer(4, 9)).toBe(9 - 0 - 1);
    expect(await answer(3, 0)).toBe(8);
    for (const g of gates) g.resolve();
    await Promise.all(jobs);
  });

  it('an observation made outside any job can only lower the estimate', async () => {
    const { s } = make({ rates: TEN });
    s.observe({ group: 'read', status: 200, limit: 10, remaining: 10 });
    expect(group(s, 'read').available).toBe(10);
    await s.schedule({ group: 'read' }, async () => {});
    s.observe({ group: 'read', status: 200, remaining: 10 });
    expect(group(s, 'read').available).toBe(9);
    s.observe({ group: 'read', status: 200, remaining: 2 });
    expect(group(s, 'read').available).toBe(2);
  });

  it('setRate re-sizes a group', async () => {
    const { s } = make({ rates: TEN });
    s.setRate('read', { count: 3, windowMs: 60_000 });
    expect(group(s, 'read')).toMatchObject({ limit: 3, windowMs: 60_000, available: 3 });
    expect(() => s.setRate('read', { count: 0, windowMs: 1000 })).toThrow(ConfigError);
  });
});

describe('scheduler: 429', () => {
  it('pauses the group for Retry-After and never starts a job before it ends', async () => {
    const { clock, s } = make({ rates: { ...RATES, read: { count: 10, windowMs: 1000 } } });
    const wall0 = clock.wallNow();
    await s
      .schedule({ group: 'read' }, async () => {
        s.observe({ group: 'read', status: 429, limit: 10, remaining: 0, retryAfterMs: 5000 });
        throw new Error('429');
      })
      .catch(() => {});
    expect(group(s, 'read')).toMatchObject({ http429: 1, pausedUntilMs: wall0 + 5000 });
    let startedAt = -1;
    const t0 = clock.now();
    const p = s.schedule({ group: 'read', priority: Priority.snipe }, async () => {
      startedAt = clock.now() - t0;
    });
    await clock.advance(4999);
    expect(startedAt).toBe(-1);
    await clock.advance(1);
    await p;
    expect(startedAt).toBe(5000);
    expect(group(s, 'read').pausedUntilMs).toBe(0);
  });

  it('without Retry-After, pauses until X-RateLimit-Reset (read on the wall clock)', async () => {
    const { clock, s } = make({ rates: { ...RATES, read: { count: 600, windowMs: 60_000 } } });
    await s.schedule({ group: 'read' }, async () => {
      s.observe({ group: 'read', status: 429, remaining: 0, resetAtMs: clock.wallNow() + 3000 });
    });
    let startedAt = -1;
    const t0 = clock.now();
    s.schedule({ group: 'read' }, async () => {
      startedAt = clock.now() - t0;
    });
    await clock.advance(2999);
    expect(startedAt).toBe(-1);
    await clock.advance(10);
    expect(startedAt).toBeGreaterThanOrEqual(3000);
  });

  it('a wall-clock step does not end a pause early (the pause runs on the monotonic clock)', async () => {
    const { clock, s } = make({ rates: { ...RATES, read: { count: 10, windowMs: 1000 } } });
    await s.schedule({ group: 'read' }, async () => {
      s.observe({ group: 'read', status: 429, retryAfterMs: 2000 });
    });
    let started = false;
    s.schedule({ group: 'read' }, async () => {
      started = true;
    });
    clock.jumpWall(5 * 60_000);
    await clock.advance(1999);
    expect(started).toBe(false);
    await clock.advance(1);
    expect(started).toBe(true);
  });

  it('a 429 that says nothing pauses with a bounded, growing backoff', async () => {
    const { clock, s } = make({
      rates: { ...RATES, read: { count: 10, windowMs: 1000 } },
      backoffBaseMs: 1000,
      backoffMaxMs: 3000,
    });
    const pauses: number[] = [];
    for (let i = 0; i < 4; i++) {
      await s.schedule({ group: 'read' }, async () => {
        s.observe({ group: 'read', status: 429 });
      });
      const before = clock.now();
      pauses.push(group(s, 'read').pausedUntilMs - clock.wallNow());
      await clock.advance(5000);
      expect(clock.now() - before).toBe(5000);
    }
    expect(pauses).toEqual([1000, 2000, 3000, 3000]);
  });

  it('Retry-After: 0 still pauses for the minimum, never retrying at once', async () => {
    const { clock, s } = make({ rates: { ...RATES, read: { count: 10, windowMs: 1000 } }, minPauseMs: 250 });
    await s.schedule({ group: 'read' }, async () => {
      s.observe({ group: 'read', status: 429, retryAfterMs: 0 });
    });
    let started = false;
    s.schedule({ group: 'read' }, async () => {
      started = true;
    });
    await clock.advance(249);
    expect(started).toBe(false);
    await clock.advance(1);
    expect(started).toBe(true);
  });
});

describe('scheduler against the sandbox token bucket (same fake clock)', () => {
  function serverJob(limiter: TokenBucketLimiter, s: ReturnType<typeof make>['s'], outcomes: boolean[]) {
    return async () => {
      await flush(); // the request travels to the server while other jobs start
      const d = limiter.take('acct', 'read');
      outcomes.push(d.allowed);
      s.observe({
        group: 'read',
        status: d.allowed ? 200 : 429,
        limit: d.limit,
        remaining: d.remaining,
        ...(d.retryAfterSeconds !== undefined ? { retryAfterMs: d.retryAfterSeconds * 1000 } : {}),
      });
    };
  }
  const limits = (capacity: number) => ({
    read: { capacity, windowMs: 1000 },
    write: { capacity: 1, windowMs: 1000 },
    fulfillment: { capacity: 1, windowMs: 1000 },
  });

  it('never fires early: 50 jobs against a 5/s bucket, no 429, finished as soon as the bucket allows', async () => {
    const { clock, s } = make({ rates: { ...RATES, read: { count: 5, windowMs: 1000 } } });
    const limiter = new TokenBucketLimiter({ limits: limits(5), clock });
    const outcomes: boolean[] = [];
    const starts: number[] = [];
    const t0 = clock.now();
    const all = Array.from({ length: 50 }, () =>
      s.schedule({ group: 'read' }, async () => {
        starts.push(clock.now() - t0);
        await serverJob(limiter, s, outcomes)();
      }),
    );
    await clock.advance(20_000);
    await Promise.all(all);
    expect(outcomes.filter((a) => !a)).toHaveLength(0);
    expect(outcomes).toHaveLength(50);
    // 5 at once, then 45 at 5 per second.
    expect(starts.at(-1)).toBe(9000);
  });

  it('probes first: a server enforcing less than advertised, and already half drained, answers no 429', async () => {
    const { clock, s } = make({ rates: { ...RATES, read: { count: 10, windowMs: 1000 } }, probeFirst: true });
    const limiter = new TokenBucketLimiter({ limits: limits(6), clock });
    for (let i = 0; i < 3; i++) limiter.take('acct', 'read'); // someone else used the bucket
    const outcomes: boolean[] = [];
    const all = Array.from({ length: 40 }, () =>
      s.schedule({ group: 'read' }, serverJob(limiter, s, outcomes)),
    );
    await clock.advance(10_000);
    await Promise.all(all);
    expect(outcomes).toHaveLength(40);
    expect(outcomes.filter((a) => !a)).toHaveLength(0);
    expect(group(s, 'read').limit).toBe(6);
    expect(group(s, 'read').http429).toBe(0);
  });

  it('without the probe the same server answers a burst of 429s (what the probe is for)', async () => {
    const { clock, s } = make({
      rates: { ...RATES, read: { count: 10, windowMs: 1000 } },
      probeFirst: false,
    });
    const limiter = new TokenBucketLimiter({ limits: limits(6), clock });
    for (let i = 0; i < 3; i++) limiter.take('acct', 'read');
    const outcomes: boolean[] = [];
    const all = Array.from({ length: 40 }, () =>
      s.schedule({ group: 'read' }, serverJob(limiter, s, outcomes)),
    );
    await clock.advance(20_000);
    await Promise.all(all);
    expect(outcomes.filter((a) => !a).length).toBeGreaterThan(1);
  });
});

describe('scheduler: configuration', () => {
  it('refuses a rate that is not positive, naming the group', () => {
    expect(() => createScheduler({ rates: { ...RATES, write: { count: 0, windowMs: 1000 } } })).toThrow(
      /rate_limits\.write/,
    );
    expect(() => createScheduler({ rates: { ...RATES, write: { count: 0, windowMs: 1000 } } })).toThrow(
      ConfigError,
    );
  });

  it('reports an unknown group as a rejection, not a crash', async () => {
    const { s } = make();
    await expect(s.schedule({ group: 'nope' as RateGroup }, async () => 1)).rejects.toMatchObject({
      code: 'unknown_rate_group',
    });
  });
});
