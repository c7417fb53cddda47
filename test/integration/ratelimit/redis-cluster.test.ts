/**
 * Cluster mode: two real processes of one account share one bucket per group through a real
 * redis-server (started here on a free port), against the sandbox's token-bucket server with
 * real short windows. Together they must stay within the bucket (no 429 after the first window)
 * and together be served about what the bucket allows.
 *
 * Needs Debian's `redis-server` (`apt-get install redis-server`). Set HARPOON_SKIP_REDIS=1 to
 * leave it out on purpose (see redisFor); otherwise a missing redis-server fails this suite.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduler } from '../../../src/ratelimit/scheduler.ts';
import type { GroupRates, RateGroup } from '../../../src/ratelimit/types.ts';
import { createRateLimitServer, type RateLimitServer } from '../../../src/sandbox/ratelimit/server.ts';
import { type RedisHandle, redisFor, startRedis } from './redis-helpers.ts';

const WORKER = fileURLToPath(new URL('./fixtures/cluster-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface WorkerReport {
  readonly pid: number;
  readonly seen: Record<RateGroup, { ok: number; http429: number; failed: number }>;
}

function runWorker(env: Record<string, string>): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) {
        reject(new Error(`worker exited with ${code}: ${err || out}`));
        return;
      }
      try {
        resolve(JSON.parse(last) as WorkerReport);
      } catch {
        reject(new Error(`worker printed no JSON: ${out} ${err}`));
      }
    });
  });
}

const WINDOW_MS = 2000;
const RATES: GroupRates = {
  read: { count: 20, windowMs: WINDOW_MS },
  write: { count: 6, windowMs: WINDOW_MS },
  fulfillment: { count: 3, windowMs: WINDOW_MS },
};
const GROUPS: readonly RateGroup[] = ['read', 'write', 'fulfillment'];

const bin = redisFor('ratelimit cluster mode (Redis)');

if (bin !== undefined) {
  describe('ratelimit cluster mode (Redis)', () => {
    let redis: RedisHandle | undefined;
    let server: RateLimitServer | undefined;

    beforeAll(async () => {
      redis = await startRedis(bin as string);
      server = createRateLimitServer({
        limits: {
          read: { capacity: RATES.read.count, windowMs: WINDOW_MS },
          write: { capacity: RATES.write.count, windowMs: WINDOW_MS },
          fulfillment: { capacity: RATES.fulfillment.count, windowMs: WINDOW_MS },
        },
        advertised: { read: '20/m', write: '6/m', fulfillment: '3/m' },
        keys: { 'key-a': 'acct-1', 'key-b': 'acct-1' },
      });
      await server.listen();
    });

    afterAll(async () => {
      await server?.close();
      redis?.stop();
    });

    it('a 429 seen by one scheduler pauses the group for every scheduler of the account', async () => {
      const make = () =>
        createScheduler({
          rates: RATES,
          store: { kind: 'redis', url: redis?.url ?? '', account: 'acct-pause', keyPrefix: 'harpoon:test2:' },
          probeFirst: false,
        });
      const s1 = make();
      const s2 = make();
      try {
        await s1.schedule({ group: 'write' }, async () => {
          s1.observe({ group: 'write', status: 429, remaining: 0, retryAfterMs: 1500 });
        });
        // let the pause script land
        await new Promise((r) => setTimeout(r, 50));
        const t0 = performance.now();
        await s2.schedule({ group: 'write' }, async () => {});
        expect(performance.now() - t0).toBeGreaterThanOrEqual(1400);
        // and the other groups were not paused
        const t1 = performance.now();
        await s2.schedule({ group: 'read' }, async () => {});
        expect(performance.now() - t1).toBeLessThan(500);
      } finally {
        await s1.stop();
        await s2.stop();
      }
    });

    it('two processes with two keys of one account share one bucket per group', async () => {
      const srv = server as RateLimitServer;
      const common = {
        HARPOON_URL: srv.url,
        REDIS_URL: redis?.url ?? '',
        ACCOUNT: 'acct-1',
        RATES: JSON.stringify(RATES),
        DURATION_MS: String(WINDOW_MS * 5),
        DEMAND_FACTOR: '3',
      };
      const admin = new Redis(redis?.url ?? '');
      // Half-way, drop every cached script: the workers must reload them (EVALSHA → NOSCRIPT → EVAL).
      const flush = setTimeout(() => void admin.script('FLUSH'), WINDOW_MS * 2.5);
      const [a, b] = await Promise.all([
        runWorker({ ...common, API_KEY: 'key-a' }),
        runWorker({ ...common, API_KEY: 'key-b' }),
      ]);
      clearTimeout(flush);
      const keys = await admin.keys('harpoon:test:*');
      admin.disconnect();
      expect(keys.sort()).toEqual([
        'harpoon:test:{acct-1}:fulfillment',
        'harpoon:test:{acct-1}:read',
        'harpoon:test:{acct-1}:write',
      ]);

      const recs = srv.records();
      for (const g of GROUPS) {
        const mine = recs.filter((r) => r.group === g);
        const t0 = mine[0]?.t ?? 0;
        const tEnd = mine.at(-1)?.t ?? 0;
        const served = mine.filter((r) => r.outcome === 'served').length;
        const lateThrottled = mine.filter((r) => r.outcome === 'throttled' && r.t > t0 + WINDOW_MS).length;
        const allowance = srv.allowance(g, t0, tEnd);
        const utilization = served / allowance;
        process.stdout.write(
          `${g}: served ${served} of ${allowance.toFixed(1)} allowed (${utilization.toFixed(3)}), ` +
            `429 after first window ${lateThrottled}; a ok ${a.seen[g].ok}, b ok ${b.seen[g].ok}\n`,
        );
        expect(lateThrottled).toBe(0);
        expect(utilization).toBeLessThanOrEqual(1);
        expect(utilization).toBeGreaterThanOrEqual(0.85);
        // both processes were served: one bucket, two consumers
        expect(a.seen[g].ok).toBeGreaterThan(0);
        expect(b.seen[g].ok).toBeGreaterThan(0);
        expect(a.seen[g].failed + b.seen[g].failed).toBe(0);
      }
      // served after the script flush: the scripts were reloaded
      const lastT = recs.at(-1)?.t ?? 0;
      const firstT = recs[0]?.t ?? 0;
      const lateServed = recs.filter((r) => r.outcome === 'served' && r.t > firstT + WINDOW_MS * 3.5).length;
      expect(lastT - firstT).toBeGreaterThan(WINDOW_MS * 4);
      expect(lateServed).toBeGreaterThan(0);
    });
  });
}
