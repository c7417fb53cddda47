/**
 * Rate-limit benchmark: harpoon's scheduler against the sandbox's token-bucket server.
 *
 *   npm run bench -- ratelimit            # the real run: 60 s windows, 180 s of 3× demand
 *   npm run bench -- ratelimit --quick    # smoke run (or BENCH_QUICK=1): 1 s windows, 4 s
 *   npm run bench -- ratelimit --client fetch   # bypass the API transport
 *
 * Two runs, side by side, each on its own server and scheduler:
 *   (a) the server enforces exactly what the key response advertised;
 *   (b) the server enforces 25 % less than it advertised (the scheduler is sized from the
 *       advertised strings and must correct itself from the X-RateLimit-* headers).
 * Each group is offered 3× its refill rate for the whole run. Utilization = requests the server
 * served ÷ requests it would have allowed over the run (capacity + refill × duration, from the
 * server's real limit), counted by the server itself.
 *
 * Then the scheduler's own overhead per call: schedule() of a no-op job with ample tokens.
 *
 * Prints progress lines, then one JSON object as the last line.
 */
import { parseArgs } from 'node:util';
import { createTransport, type HttpTransport } from '../src/api/transport.ts';
import { Secret } from '../src/domain/secret.ts';
import { parseRateLimitHeaders } from '../src/ratelimit/headers.ts';
import { parseGroupRates } from '../src/ratelimit/rates.ts';
import { createScheduler } from '../src/ratelimit/scheduler.ts';
import { RATE_GROUPS, type RateGroup, type Scheduler } from '../src/ratelimit/types.ts';
import { createRateLimitServer } from '../src/sandbox/ratelimit/server.ts';
import type { BucketLimit } from '../src/sandbox/ratelimit/token-bucket.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    client: { type: 'string', default: 'transport' },
    'overhead-calls': { type: 'string', default: '100000' },
  },
  allowPositionals: true,
});
const quick = values.quick === true || process.env['BENCH_QUICK'] === '1';
const clientKind = values.client === 'fetch' ? 'fetch' : 'transport';
const overheadCalls = Math.max(1000, Number(values['overhead-calls']));

type Strings = Record<RateGroup, string>;
const PROFILE = quick
  ? {
      advertised: { read: '40/s', write: '8/s', fulfillment: '4/s' } as Strings,
      durationMs: 4_000,
      progressMs: 1_000,
    }
  : {
      advertised: { read: '600/m', write: '30/m', fulfillment: '20/m' } as Strings,
      durationMs: 180_000,
      progressMs: 15_000,
    };
const DEMAND_FACTOR = 3;
const MISADVERTISED_FACTOR = 0.75;

const PATHS: Record<RateGroup, { method: 'GET' | 'POST'; path: string }> = {
  read: { method: 'GET', path: '/api/v2/collections/bench' },
  write: { method: 'POST', path: '/api/v2/orders/ethereum/seaport/offers' },
  fulfillment: { method: 'POST', path: '/api/v2/listings/fulfillment_data' },
};

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] as number;
}

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

interface GroupResult {
  readonly advertised: string;
  readonly enforcedLimit: number;
  readonly windowMs: number;
  readonly offered: number;
  readonly served: number;
  readonly allowance: number;
  readonly utilization: number;
  readonly http429: number;
  readonly http429AfterFirstWindow: number;
  /** The limit the scheduler believed at the end (corrected from headers). */
  readonly schedulerLimit: number;
  readonly clientErrors: number;
}

interface Client {
  call(group: RateGroup): Promise<void>;
  close(): Promise<void>;
}

function fetchClient(baseUrl: string, apiKey: string, scheduler: Scheduler): Client {
  return {
    call(group) {
      const { method, path } = PATHS[group];
      return scheduler.schedule({ group }, async () => {
        const res = await fetch(`${baseUrl}${path}`, {
          method,
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          ...(method === 'GET' ? {} : { body: '{}' }),
        });
        await res.arrayBuffer();
        scheduler.observe(
          parseRateLimitHeaders(group, res.status, Object.fromEntries(res.headers.entries())),
        );
        if (res.status === 429) throw new Error('429');
      });
    },
    close: async () => {},
  };
}

function transportClient(baseUrl: string, apiKey: string, scheduler: Scheduler): Client {
  const t: HttpTransport = createTransport({
    baseUrl,
    scheduler,
    credentials: { apiKey: new Secret(apiKey, 'api key') },
    // One scheduled job = one HTTP request: no transport-level waiting or retrying here.
    retry: { max429Waits: 0, maxAttempts: 1 },
  });
  return {
    async call(group) {
      const { method, path } = PATHS[group];
      await t.request({ method, path, group, ...(method === 'POST' ? { body: {} } : {}) });
    },
    close: () => t.close(),
  };
}

async function runScenario(label: string, advertised: Strings, enforcedFactor: number) {
  const advertisedRates = parseGroupRates(advertised, `${label}.advertised`);
  const limits = {} as Record<RateGroup, BucketLimit>;
  for (const g of RATE_GROUPS) {
    const r = advertisedRates[g];
    limits[g] = { capacity: Math.max(1, Math.floor(r.count * enforcedFactor)), windowMs: r.windowMs };
  }
  const server = createRateLimitServer({ limits, advertised });
  const baseUrl = await server.listen();

  // The key response is where the scheduler's sizes come from, as in the daemon.
  const keyRes = await fetch(`${baseUrl}/api/v2/auth/keys`, { method: 'POST' });
  const key = (await keyRes.json()) as { api_key: string; rate_limits: unknown };
  const scheduler = createScheduler({ rates: parseGroupRates(key.rate_limits) });
  const client =
    clientKind === 'fetch'
      ? fetchClient(baseUrl, key.api_key, scheduler)
      : transportClient(baseUrl, key.api_key, scheduler);

  const offered: Record<RateGroup, number> = { read: 0, write: 0, fulfillment: 0 };
  const clientErrors: Record<RateGroup, number> = { read: 0, write: 0, fulfillment: 0 };
  const pending = new Set<Promise<void>>();
  const intervals: NodeJS.Timeout[] = [];
  const tStart = performance.now();
  for (const g of RATE_GROUPS) {
    const perSecond = (advertisedRates[g].count / advertisedRates[g].windowMs) * 1000 * DEMAND_FACTOR;
    intervals.push(
      setInterval(() => {
        offered[g]++;
        const p = client.call(g).catch((e: unknown) => {
          const code = (e as { code?: string }).code;
          if (code !== 'scheduler_stopped') clientErrors[g]++;
        });
        pending.add(p);
        void p.finally(() => pending.delete(p));
      }, 1000 / perSecond),
    );
  }

  const progress = setInterval(() => {
    const c = server.counts();
    const elapsed = performance.now() - tStart;
    log(
      `[${label}] ${Math.round(elapsed / 1000)}s ` +
        RATE_GROUPS.map((g) => `${g} ${c[g].served} served/${c[g].throttled} 429`).join(', '),
    );
  }, PROFILE.progressMs);

  await new Promise((r) => setTimeout(r, PROFILE.durationMs));
  const tEnd = performance.now();
  for (const i of intervals) clearInterval(i);
  clearInterval(progress);
  const st = scheduler.status();
  await scheduler.stop();
  await Promise.all(pending);
  await client.close();
  await server.close();

  const records = server.records();
  const groups = {} as Record<RateGroup, GroupResult>;
  for (const g of RATE_GROUPS) {
    const mine = records.filter((r) => r.group === g && r.t <= tEnd);
    const t0 = mine[0]?.t ?? tStart;
    const served = mine.filter((r) => r.outcome === 'served').length;
    const throttled = mine.filter((r) => r.outcome === 'throttled');
    const allowance = server.allowance(g, t0, tEnd);
    groups[g] = {
      advertised: advertised[g],
      enforcedLimit: limits[g].capacity,
      windowMs: limits[g].windowMs,
      offered: offered[g],
      served,
      allowance: round(allowance, 1),
      utilization: round(served / allowance, 4),
      http429: throttled.length,
      http429AfterFirstWindow: throttled.filter((r) => r.t > t0 + limits[g].windowMs).length,
      schedulerLimit: st.groups.find((x) => x.group === g)?.limit ?? Number.NaN,
      clientErrors: clientErrors[g] - throttled.length,
    };
    log(
      `[${label}] ${g}: served ${served} of ${allowance.toFixed(1)} allowed ` +
        `(utilization ${(served / allowance).toFixed(4)}), 429 ${throttled.length}, ` +
        `scheduler limit ${groups[g].schedulerLimit} (enforced ${limits[g].capacity})`,
    );
  }
  return { durationMs: round(tEnd - tStart, 0), groups };
}

async function measureOverhead(calls: number) {
  const huge = { count: 1_000_000_000, windowMs: 1000 };
  const s = createScheduler({ rates: { read: huge, write: huge, fulfillment: huge }, probeFirst: false });
  const noop = async () => {};
  const warmup = Math.min(10_000, calls);
  for (let i = 0; i < warmup; i++) await s.schedule({ group: 'read' }, noop);
  const total = new Float64Array(calls);
  const start = new Float64Array(calls);
  for (let i = 0; i < calls; i++) {
    let startedAt = 0;
    const t0 = performance.now();
    await s.schedule({ group: 'read' }, async () => {
      startedAt = performance.now();
    });
    const t1 = performance.now();
    total[i] = (t1 - t0) * 1000;
    start[i] = (startedAt - t0) * 1000;
  }
  await s.stop();
  total.sort();
  start.sort();
  const mean = total.reduce((a, b) => a + b, 0) / calls;
  return {
    calls,
    totalUsP50: round(quantile(total, 0.5)),
    totalUsP99: round(quantile(total, 0.99)),
    startUsP50: round(quantile(start, 0.5)),
    startUsP99: round(quantile(start, 0.99)),
    meanUs: round(mean),
  };
}

async function main(): Promise<void> {
  log(
    `ratelimit benchmark (${quick ? 'quick' : 'full'}): client ${clientKind}, ` +
      `${PROFILE.durationMs / 1000}s per run, demand ${DEMAND_FACTOR}× the refill rate, ` +
      `advertised ${JSON.stringify(PROFILE.advertised)}`,
  );
  const overhead = await measureOverhead(quick ? Math.min(overheadCalls, 20_000) : overheadCalls);
  log(`overhead: ${JSON.stringify(overhead)}`);

  const [a, b] = await Promise.all([
    runScenario('a', PROFILE.advertised, 1),
    runScenario('b', PROFILE.advertised, MISADVERTISED_FACTOR),
  ]);
  const min = (r: typeof a, k: 'utilization') => Math.min(...RATE_GROUPS.map((g) => r.groups[g][k]));
  const sum = (r: typeof a, k: 'http429AfterFirstWindow' | 'http429') =>
    RATE_GROUPS.reduce((acc, g) => acc + r.groups[g][k], 0);

  const result = {
    benchmark: 'ratelimit',
    mode: quick ? 'quick' : 'full',
    client: clientKind,
    demandFactor: DEMAND_FACTOR,
    durationMs: a.durationMs,
    utilization: min(a, 'utilization'),
    http429AfterFirstWindow: sum(a, 'http429AfterFirstWindow'),
    http429: sum(a, 'http429'),
    misadvertised: {
      enforcedFactor: MISADVERTISED_FACTOR,
      utilization: min(b, 'utilization'),
      maxHttp429PerGroup: Math.max(...RATE_GROUPS.map((g) => b.groups[g].http429)),
      http429AfterFirstWindow: sum(b, 'http429AfterFirstWindow'),
    },
    overheadUsP50: overhead.totalUsP50,
    overheadUsP99: overhead.totalUsP99,
    overhead,
    groups: { advertisedEqualsReal: a.groups, misadvertised: b.groups },
  };
  log(JSON.stringify(result));
}

await main();
