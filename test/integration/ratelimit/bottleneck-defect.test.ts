/**
 * Why harpoon does not use Bottleneck (DESIGN "Rate limits" names it): evidence, not hearsay.
 *
 * Bottleneck 2.19.5 (last release 2019) issue #185: `updateSettings()` stops the reservoir refresh
 * for good. `_startHeartbeat()` runs again on every `updateSettings`; when the heartbeat interval
 * already exists it takes the `else` branch, which clears the interval but leaves the handle set,
 * so no later call ever starts it again. Changing the refresh amount is exactly what a client must
 * do when `X-RateLimit-Limit` says the bucket is not the size the key advertised.
 *
 * Both clients below talk to the sandbox's token-bucket server with real, short windows; the
 * server is the referee.
 */
import Bottleneck from 'bottleneck';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRateLimitHeaders } from '../../../src/ratelimit/headers.ts';
import { createScheduler } from '../../../src/ratelimit/scheduler.ts';
import type { Scheduler } from '../../../src/ratelimit/types.ts';
import { createRateLimitServer, type RateLimitServer } from '../../../src/sandbox/ratelimit/server.ts';

const WINDOW_MS = 300;
const CAPACITY = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: RateLimitServer | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await server?.close();
  server = undefined;
});

async function startServer(): Promise<{
  get: (scheduler?: Scheduler) => Promise<number>;
  srv: RateLimitServer;
}> {
  const srv = createRateLimitServer({
    limits: {
      read: { capacity: CAPACITY, windowMs: WINDOW_MS },
      write: { capacity: 1, windowMs: 60_000 },
      fulfillment: { capacity: 1, windowMs: 60_000 },
    },
    advertised: { read: `${CAPACITY}/s`, write: '1/m', fulfillment: '1/m' },
    keys: { k: 'acct' },
  });
  server = srv;
  const url = await srv.listen();
  const get = async (scheduler?: Scheduler) => {
    const res = await fetch(`${url}/api/v2/collections/x`, { headers: { 'x-api-key': 'k' } });
    await res.arrayBuffer();
    if (scheduler) {
      const headers = Object.fromEntries(res.headers.entries());
      scheduler.observe(parseRateLimitHeaders('read', res.status, headers));
    }
    return res.status;
  };
  return { get, srv };
}

function settledCount(ps: Promise<unknown>[]): () => number {
  let n = 0;
  for (const p of ps)
    p.then(
      () => n++,
      () => {},
    );
  return () => n;
}

describe('Bottleneck #185: reservoir refresh stops after updateSettings', () => {
  it('control: without updateSettings the reservoir refreshes and all requests get through', async () => {
    const { get, srv } = await startServer();
    const limiter = new Bottleneck({
      reservoir: CAPACITY,
      reservoirRefreshAmount: CAPACITY,
      reservoirRefreshInterval: WINDOW_MS,
    });
    cleanups.push(() => limiter.stop({ dropWaitingJobs: true }));
    const jobs = Array.from({ length: 9 }, () => limiter.schedule(() => get()));
    const done = settledCount(jobs);
    await sleep(2000);
    expect(done()).toBe(9);
    expect(srv.counts().read).toEqual({ served: 9, throttled: 0 });
  });

  it('after updateSettings({reservoirRefreshAmount}) the reservoir never refills: jobs hang while the server would serve them', async () => {
    const { get, srv } = await startServer();
    const limiter = new Bottleneck({
      reservoir: CAPACITY,
      reservoirRefreshAmount: CAPACITY,
      reservoirRefreshInterval: WINDOW_MS,
    });
    cleanups.push(() => limiter.stop({ dropWaitingJobs: true }));
    // Refresh works at first.
    await Promise.all(Array.from({ length: 6 }, () => limiter.schedule(() => get())));
    // The headers said the bucket holds 2, not 3: resize as the design says to.
    limiter.updateSettings({ reservoirRefreshAmount: 2 });
    await sleep(WINDOW_MS * 2);
    const left = (await limiter.currentReservoir()) ?? 0;
    expect(left).toBeLessThanOrEqual(CAPACITY);
    process.stdout.write(`bottleneck #185: reservoir left after updateSettings = ${left}\n`);

    srv.clearRecords();
    const t0 = performance.now();
    const jobs = Array.from({ length: 6 }, () => limiter.schedule(() => get()));
    const done = settledCount(jobs);
    await sleep(WINDOW_MS * 8);
    const elapsed = performance.now() - t0;

    // Only what was left in the reservoir ran; eight refresh intervals later nothing else has.
    expect(done()).toBe(left);
    expect(await limiter.currentReservoir()).toBe(0);
    expect(limiter.counts().QUEUED).toBe(6 - left);
    // The server would have allowed the whole burst (and more) over that time.
    const allowed = Math.floor(srv.allowance('read', 0, elapsed));
    expect(allowed).toBeGreaterThanOrEqual(6 + CAPACITY);
    expect(srv.counts().read.throttled).toBe(0);
    expect(srv.counts().read.served).toBe(left);
    // Calling updateSettings again does not revive it: the stale interval handle blocks a restart.
    limiter.updateSettings({ reservoirRefreshAmount: 3 });
    await sleep(WINDOW_MS * 3);
    expect(done()).toBe(left);
  });

  it("harpoon's scheduler resized the same way keeps serving at the server's rate", async () => {
    const { get, srv } = await startServer();
    const s = createScheduler({
      rates: {
        read: { count: CAPACITY, windowMs: WINDOW_MS },
        write: { count: 1, windowMs: 60_000 },
        fulfillment: { count: 1, windowMs: 60_000 },
      },
      safetyMargin: 0,
    });
    cleanups.push(() => s.stop());
    await Promise.all(Array.from({ length: 6 }, () => s.schedule({ group: 'read' }, () => get(s))));
    s.setRate('read', { count: 2, windowMs: WINDOW_MS });
    srv.clearRecords();
    const jobs = Array.from({ length: 6 }, () => s.schedule({ group: 'read' }, () => get(s)));
    const done = settledCount(jobs);
    await sleep(WINDOW_MS * 8);
    expect(done()).toBe(6);
    // The server's own headers (limit 3) corrected the resize back; nothing was throttled.
    expect(srv.counts().read).toEqual({ served: 6, throttled: 0 });
    expect(s.status().groups.find((g) => g.group === 'read')?.limit).toBe(CAPACITY);
  });
});
