import { describe, expect, it } from 'vitest';
import { type AlertEvent, createNotifier, type NotifierOptions } from '../../../src/alerts/index.ts';
import { FakeClock, flush } from '../ratelimit/fake-clock.ts';
import { ev, fakeFetch, keySink, type Reply } from './fakes.ts';

function setup(
  reply?: Parameters<typeof fakeFetch>[1],
  over: Partial<NotifierOptions> = {},
  sinks = [keySink('a')],
) {
  const clock = new FakeClock();
  const f = fakeFetch(clock, reply);
  const t0 = clock.now();
  const notifier = createNotifier({ sinks, clock, fetch: f.fetch, random: () => 0, ...over });
  return { clock, f, t0, notifier };
}

const bodies = (calls: { body: string }[]) => calls.map((c) => c.body);

describe('notifier: notify', () => {
  it('queues and returns at once, even while the service hangs; the send happens after', async () => {
    const { f, notifier } = setup(() => ({ hang: true }));
    const e = ev();
    expect(notifier.notify(e)).toBeUndefined();
    expect(notifier.notify(ev())).toBeUndefined();
    await flush();
    expect(f.calls).toHaveLength(1);
    expect(notifier.status()).toMatchObject({ sent: 0, queued: 1 });
  });

  it('never throws: not an alert, a sink that cannot build its request, after close', async () => {
    const broken = {
      name: 'broken',
      request: (): never => {
        throw new Error('no request');
      },
      scrub: (t: string) => t,
    };
    const { notifier } = setup(undefined, {}, [broken, keySink('a')]);
    expect(() => notifier.notify(null as unknown as AlertEvent)).not.toThrow();
    expect(() => notifier.notify(ev())).not.toThrow();
    await flush();
    const s = notifier.status();
    expect(s.bySink.broken).toMatchObject({
      sent: 0,
      failed: 1,
      lastError: 'cannot build the request: Error: no request',
    });
    expect(s.bySink.a).toMatchObject({ sent: 1, failed: 0 });
    await notifier.close(0);
    expect(() => notifier.notify(ev())).not.toThrow();
    expect(notifier.status().bySink.a?.dropped).toBe(1);
  });

  it('sends only the configured kinds; the others are counted as filtered', async () => {
    const { f, notifier } = setup(undefined, { events: ['fill', 'fatal'] });
    notifier.notify(ev({ kind: 'fill' }));
    notifier.notify(ev({ kind: 'kill' }));
    notifier.notify(ev({ kind: 'fatal', severity: 'critical' }));
    await flush();
    expect(f.calls).toHaveLength(2);
    expect(notifier.status()).toMatchObject({ sent: 2, filtered: 1 });
  });

  it('refuses two sinks of one name', () => {
    const clock = new FakeClock();
    expect(() => createNotifier({ sinks: [keySink('a'), keySink('a')], clock })).toThrow(
      /two alert sinks are named a/,
    );
  });
});

describe('notifier: dedup', () => {
  it('a key seen within the window is not sent again; the window runs from the one sent', async () => {
    const { clock, f, notifier } = setup(undefined, { dedupWindowMs: 600_000 });
    notifier.notify(ev({ key: 'budget:eth-like:80' }));
    await clock.advance(300_000);
    notifier.notify(ev({ key: 'budget:eth-like:80' }));
    notifier.notify(ev({ key: 'other' }));
    await clock.advance(299_999);
    notifier.notify(ev({ key: 'budget:eth-like:80' }));
    await flush();
    expect(bodies(f.calls)).toEqual(['budget:eth-like:80', 'other']);
    await clock.advance(1);
    notifier.notify(ev({ key: 'budget:eth-like:80' }));
    await flush();
    expect(bodies(f.calls)).toEqual(['budget:eth-like:80', 'other', 'budget:eth-like:80']);
    expect(notifier.status()).toMatchObject({ sent: 3, deduped: 2 });
  });

  it('a window of 0 sends every alert', async () => {
    const { f, notifier } = setup(undefined, { dedupWindowMs: 0 });
    notifier.notify(ev({ key: 'same' }));
    notifier.notify(ev({ key: 'same' }));
    await flush();
    expect(f.calls).toHaveLength(2);
  });
});

describe('notifier: rate limit per sink', () => {
  it('at most maxPerMinute requests a minute; the rest wait for the window, none is lost', async () => {
    const { clock, f, t0, notifier } = setup(undefined, { maxPerMinute: 3 });
    for (let i = 0; i < 5; i++) notifier.notify(ev());
    await flush();
    expect(f.calls).toHaveLength(3);
    expect(notifier.status()).toMatchObject({ sent: 3, queued: 2 });
    expect(notifier.status().rateLimited).toBeGreaterThanOrEqual(1);
    await clock.advance(59_999);
    expect(f.calls).toHaveLength(3);
    await clock.advance(1);
    expect(f.calls).toHaveLength(5);
    expect(f.calls.slice(3).map((c) => c.at - t0)).toEqual([60_000, 60_000]);
    expect(notifier.status()).toMatchObject({ sent: 5, queued: 0, dropped: 0 });
  });

  it('one sink at its limit does not hold back another', async () => {
    const clock = new FakeClock();
    const f = fakeFetch(clock);
    const notifier = createNotifier({
      sinks: [keySink('a'), keySink('b')],
      clock,
      fetch: f.fetch,
      maxPerMinute: 1,
    });
    notifier.notify(ev());
    notifier.notify(ev());
    await flush();
    expect(f.to('http://a.test')).toHaveLength(1);
    expect(f.to('http://b.test')).toHaveLength(1);
  });
});

describe('notifier: retries', () => {
  it('5xx and network errors are retried with exponential backoff; the alert arrives once', async () => {
    const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    const script: Reply[] = [{ status: 500 }, { error: refused }, { status: 503 }, { status: 200 }];
    const { clock, f, t0, notifier } = setup((_c, n) => script[n] as Reply);
    notifier.notify(ev());
    await clock.advance(10_000);
    // random() = 0: half of 1000·2ⁿ⁻¹ before try n+1
    expect(f.calls.map((c) => c.at - t0)).toEqual([0, 500, 1_500, 3_500]);
    const s = notifier.status().bySink.a;
    expect(s).toMatchObject({ sent: 1, failed: 0, retries: 3, lastError: 'HTTP 503' });
  });

  it('the jitter is the random half of the backoff, capped at maxMs', async () => {
    const { clock, f, t0, notifier } = setup(() => ({ status: 502 }), {
      random: () => 0.999,
      retry: { attempts: 4, baseMs: 1_000, maxMs: 1_500 },
    });
    notifier.notify(ev());
    await clock.advance(10_000);
    const gaps = f.calls.map((c, i) => c.at - (f.calls[i - 1]?.at ?? t0));
    expect(gaps[0]).toBe(0);
    expect(gaps[1]).toBeGreaterThan(990);
    expect(gaps[1]).toBeLessThanOrEqual(1_000);
    expect(gaps[2]).toBeGreaterThan(1_490);
    expect(gaps[3]).toBeLessThanOrEqual(1_500);
    expect(notifier.status().bySink.a).toMatchObject({ sent: 0, failed: 1, retries: 3 });
  });

  it('gives up after `attempts` tries, counts a failure and goes on with the next alert', async () => {
    const { clock, f, notifier } = setup((c) => (c.body === 'doomed' ? { status: 500 } : { status: 204 }), {
      retry: { attempts: 3 },
    });
    notifier.notify(ev({ key: 'doomed' }));
    notifier.notify(ev({ key: 'fine' }));
    await clock.advance(60_000);
    expect(bodies(f.calls)).toEqual(['doomed', 'doomed', 'doomed', 'fine']);
    expect(notifier.status()).toMatchObject({ sent: 1, failed: 1 });
  });

  it('a 4xx other than 408/429 is not retried: counted with what the service said', async () => {
    const { clock, f, notifier } = setup(() => ({
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' },
    }));
    notifier.notify(ev());
    await clock.advance(60_000);
    expect(f.calls).toHaveLength(1);
    expect(notifier.status().bySink.a).toMatchObject({
      failed: 1,
      retries: 0,
      lastError: 'HTTP 400: Bad Request: chat not found',
    });
  });

  it('a request without an answer times out and is retried', async () => {
    const { clock, f, t0, notifier } = setup((_c, n) => (n === 0 ? { hang: true } : { status: 200 }), {
      timeoutMs: 2_000,
    });
    notifier.notify(ev());
    await clock.advance(1_999);
    expect(f.calls).toHaveLength(1);
    await clock.advance(1_000);
    expect(f.calls.map((c) => c.at - t0)).toEqual([0, 2_500]);
    expect(notifier.status().bySink.a).toMatchObject({ sent: 1, lastError: 'no answer within 2000 ms' });
  });
});

describe('notifier: 429', () => {
  it('honours Retry-After (seconds) before the next request of that sink', async () => {
    const { clock, f, t0, notifier } = setup((_c, n) =>
      n === 0 ? { status: 429, headers: { 'Retry-After': '7' } } : { status: 200 },
    );
    notifier.notify(ev());
    notifier.notify(ev());
    await clock.advance(6_999);
    expect(f.calls).toHaveLength(1);
    await clock.advance(1);
    expect(f.calls.map((c) => c.at - t0)).toEqual([0, 7_000, 7_000]);
    expect(notifier.status()).toMatchObject({ sent: 2, failed: 0, rateLimited: 1 });
  });

  it("honours Telegram's parameters.retry_after and Discord's retry_after (seconds in the JSON body)", async () => {
    const telegram = {
      ...keySink('telegram'),
      retryAfterMs: (b: unknown) =>
        (b as { parameters: { retry_after: number } }).parameters.retry_after * 1000,
    };
    const discord = {
      ...keySink('discord'),
      retryAfterMs: (b: unknown) => (b as { retry_after: number }).retry_after * 1000,
    };
    const clock = new FakeClock();
    const t0 = clock.now();
    const f = fakeFetch(clock, (c, n) => {
      if (n > 0) return { status: 200 };
      return c.url.startsWith('http://telegram')
        ? {
            status: 429,
            body: {
              ok: false,
              error_code: 429,
              description: 'Too Many Requests: retry after 3',
              parameters: { retry_after: 3 },
            },
          }
        : { status: 429, body: { message: 'You are being rate limited.', retry_after: 1.5, global: false } };
    });
    const notifier = createNotifier({ sinks: [telegram, discord], clock, fetch: f.fetch, random: () => 0 });
    notifier.notify(ev());
    await clock.advance(5_000);
    expect(f.to('http://telegram').map((c) => c.at - t0)).toEqual([0, 3_000]);
    expect(f.to('http://discord').map((c) => c.at - t0)).toEqual([0, 1_500]);
    expect(notifier.status().bySink.telegram?.lastError).toBe('HTTP 429: Too Many Requests: retry after 3');
  });

  it('a 429 without a wait backs off like a 5xx', async () => {
    const { clock, f, t0, notifier } = setup((_c, n) => (n === 0 ? { status: 429 } : { status: 200 }));
    notifier.notify(ev());
    await clock.advance(5_000);
    expect(f.calls.map((c) => c.at - t0)).toEqual([0, 500]);
  });
});

describe('notifier: a full queue', () => {
  it('drops the oldest info first, then warnings; never a critical alert ahead of an info one', async () => {
    const { clock, f, notifier } = setup(undefined, { maxPerMinute: 1, queueMax: 3 });
    notifier.notify(ev({ key: 'first' }));
    await flush();
    for (const [key, severity] of [
      ['i1', 'info'],
      ['c1', 'critical'],
      ['i2', 'info'],
      ['w1', 'warn'], // drops i1
      ['i3', 'info'], // drops i2 (the oldest info)
      ['c2', 'critical'], // drops i3
      ['i4', 'info'], // the queue holds c1, w1, c2: i4 itself gives way
    ] as const)
      notifier.notify(ev({ key, severity }));
    expect(notifier.status()).toMatchObject({ dropped: 4, queued: 3 });
    await clock.advance(5 * 60_000);
    // the most severe first
    expect(bodies(f.calls)).toEqual(['first', 'c1', 'c2', 'w1']);
  });

  it('a queue of critical alerts gives up its oldest for a new critical one', async () => {
    const { clock, f, notifier } = setup(undefined, { maxPerMinute: 1, queueMax: 2 });
    notifier.notify(ev({ key: 'first' }));
    await flush();
    for (const key of ['c1', 'c2', 'c3']) notifier.notify(ev({ key, severity: 'critical' }));
    await clock.advance(5 * 60_000);
    expect(bodies(f.calls)).toEqual(['first', 'c2', 'c3']);
    expect(notifier.status().dropped).toBe(1);
  });
});

describe('notifier: a failing sink', () => {
  it('is counted and never delays the others', async () => {
    const clock = new FakeClock();
    const f = fakeFetch(clock, (c) => (c.url.startsWith('http://bad') ? { hang: true } : { status: 200 }));
    const notifier = createNotifier({
      sinks: [keySink('bad'), keySink('good')],
      clock,
      fetch: f.fetch,
      retry: { attempts: 2 },
      timeoutMs: 5_000,
    });
    for (let i = 0; i < 3; i++) notifier.notify(ev());
    await flush();
    expect(f.to('http://good')).toHaveLength(3);
    expect(notifier.status().bySink.good).toMatchObject({ sent: 3, failed: 0 });
    await clock.advance(60_000);
    expect(notifier.status().bySink.bad).toMatchObject({
      sent: 0,
      failed: 3,
      lastError: 'no answer within 5000 ms',
    });
    expect(notifier.status()).toMatchObject({ sent: 3, failed: 3 });
  });
});

describe('notifier: close', () => {
  it('delivers what is queued, then resolves', async () => {
    const { f, notifier } = setup();
    notifier.notify(ev());
    notifier.notify(ev());
    await notifier.close(1_000);
    expect(f.calls).toHaveLength(2);
    expect(notifier.status()).toMatchObject({ sent: 2, dropped: 0 });
  });

  it('after the timeout drops what still waits and aborts the request in flight', async () => {
    const { clock, f, notifier } = setup((_c, n) => (n === 0 ? { status: 200 } : { hang: true }), {
      maxPerMinute: 2,
    });
    for (let i = 0; i < 4; i++) notifier.notify(ev());
    await flush();
    expect(f.calls).toHaveLength(2);
    let done = false;
    const closing = notifier.close(1_000).then(() => {
      done = true;
    });
    await clock.advance(999);
    expect(done).toBe(false);
    await clock.advance(1);
    await closing;
    expect(notifier.status()).toMatchObject({ sent: 1, dropped: 3, queued: 0 });
  });
});
