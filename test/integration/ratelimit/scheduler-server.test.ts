/**
 * The scheduler against the sandbox's token-bucket server over real HTTP with real short
 * windows: 3× demand for four windows, once with a server that enforces what it advertised and
 * once with one that enforces 25 % less (the scheduler is sized from the advertised strings).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseRateLimitHeaders } from '../../../src/ratelimit/headers.ts';
import { parseGroupRates } from '../../../src/ratelimit/rates.ts';
import { createScheduler } from '../../../src/ratelimit/scheduler.ts';
import { RATE_GROUPS, type RateGroup, type Scheduler } from '../../../src/ratelimit/types.ts';
import { createRateLimitServer, type RateLimitServer } from '../../../src/sandbox/ratelimit/server.ts';

const WINDOW_MS = 1000;
const ADVERTISED = { read: '40/s', write: '12/s', fulfillment: '8/s' };
const RUN_MS = WINDOW_MS * 4;

let server: RateLimitServer | undefined;
let scheduler: Scheduler | undefined;
afterEach(async () => {
  await scheduler?.stop();
  await server?.close();
});

async function run(enforced: Record<RateGroup, number>) {
  const srv = createRateLimitServer({
    limits: {
      read: { capacity: enforced.read, windowMs: WINDOW_MS },
      write: { capacity: enforced.write, windowMs: WINDOW_MS },
      fulfillment: { capacity: enforced.fulfillment, windowMs: WINDOW_MS },
    },
    advertised: ADVERTISED,
  });
  server = srv;
  const url = await srv.listen();
  const key = (await (await fetch(`${url}/api/v2/auth/keys`, { method: 'POST' })).json()) as {
    api_key: string;
    rate_limits: unknown;
  };
  const s = createScheduler({ rates: parseGroupRates(key.rate_limits) });
  scheduler = s;
  const paths: Record<RateGroup, [string, string]> = {
    read: ['GET', '/api/v2/collections/x'],
    write: ['POST', '/api/v2/orders/ethereum/seaport/listings'],
    fulfillment: ['POST', '/api/v2/offers/fulfillment_data'],
  };
  const job = (g: RateGroup) => async () => {
    const [method, path] = paths[g];
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': key.api_key },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    await res.arrayBuffer();
    s.observe(parseRateLimitHeaders(g, res.status, Object.fromEntries(res.headers.entries())));
  };
  const pending: Promise<unknown>[] = [];
  const timers = RATE_GROUPS.map((g) => {
    // 3× the advertised refill rate
    const perSecond = (parseGroupRates(ADVERTISED)[g].count * 3 * 1000) / WINDOW_MS;
    return setInterval(
      () => pending.push(s.schedule({ group: g }, job(g)).catch(() => {})),
      1000 / perSecond,
    );
  });
  await new Promise((r) => setTimeout(r, RUN_MS));
  const tEnd = performance.now();
  for (const t of timers) clearInterval(t);
  const status = s.status();
  await s.stop();
  await Promise.all(pending);
  const out = {} as Record<
    RateGroup,
    { utilization: number; http429: number; late429: number; limit: number }
  >;
  for (const g of RATE_GROUPS) {
    const mine = srv.records().filter((r) => r.group === g && r.t <= tEnd);
    const t0 = mine[0]?.t ?? 0;
    const served = mine.filter((r) => r.outcome === 'served').length;
    const throttled = mine.filter((r) => r.outcome === 'throttled');
    out[g] = {
      utilization: served / srv.allowance(g, t0, tEnd),
      http429: throttled.length,
      late429: throttled.filter((r) => r.t > t0 + WINDOW_MS).length,
      limit: status.groups.find((x) => x.group === g)?.limit ?? 0,
    };
  }
  return out;
}

describe('scheduler vs the token-bucket server (real HTTP, 1 s windows)', () => {
  it('advertised = enforced: no 429 after the first window, ≥ 90 % of the allowance served', async () => {
    const r = await run({ read: 40, write: 12, fulfillment: 8 });
    for (const g of RATE_GROUPS) {
      expect(r[g].late429, g).toBe(0);
      expect(r[g].utilization, g).toBeLessThanOrEqual(1);
      expect(r[g].utilization, g).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('enforced 25 % below advertised: corrected from headers, at most one 429 per group', async () => {
    const r = await run({ read: 30, write: 9, fulfillment: 6 });
    for (const g of RATE_GROUPS) {
      expect(r[g].limit, g).toBe({ read: 30, write: 9, fulfillment: 6 }[g]);
      expect(r[g].http429, g).toBeLessThanOrEqual(1);
      expect(r[g].late429, g).toBe(0);
      expect(r[g].utilization, g).toBeGreaterThanOrEqual(0.9);
    }
  });
});
