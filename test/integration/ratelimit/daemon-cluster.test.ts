/**
 * Cluster mode end to end: TWO real daemons (createDaemon, each with its own store and wallet, the
 * same API key, `rateLimits.cluster.store: redis` set through the HARPOON_* environment of the
 * config) against ONE sandbox whose read bucket for the account is small (2 reads/s), sharing ONE
 * real redis-server (with a password). The sandbox drops every stream connection every 2.5 s, so
 * each daemon keeps backfilling and re-reading its collections: each one's read queue is never
 * empty (alone, one daemon uses the whole account budget). Together they must stay within the
 * account's limit: no 429 from the sandbox's rate limiter after the first window, both served, and
 * the shared bucket in Redis handed out exactly the reads the two sent. The Redis password appears
 * in no log line of either daemon.
 * Control: the same two daemons with `store: local` (a bucket each) are refused with 429s after the
 * first window — the zero above is the shared bucket's doing, not a lack of demand.
 *
 * Needs Debian's `redis-server`; set HARPOON_SKIP_REDIS=1 to leave it out on purpose (else a missing
 * redis-server fails this suite).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon } from '../../../src/daemon/index.ts';
import { createLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits } from '../limits.ts';
import { type RedisHandle, redisFor, startRedis } from './redis-helpers.ts';

const READ_PER_S = 2;
const WINDOW_MS = 1000;
const RUN_MS = 25_000;
/** Every this often the sandbox drops every stream connection: each daemon backfills and re-reads. */
const DROP_EVERY_MS = 2500;
const PASSWORD = 'canary-cluster-redis-pw-61';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PairRun {
  readonly seconds: number;
  /** Reads the sandbox served (not throttled) to the account during the run. */
  readonly served: number;
  readonly allowance: number;
  readonly http429: number;
  readonly late429: number;
  /** Per daemon: reads its scheduler sent, 429s it saw, share of samples with reads waiting. */
  readonly daemons: readonly { served: number; http429: number; busy: number; maxQueued: number }[];
  readonly logs: readonly string[];
}

const bin = redisFor('two daemons share one Redis bucket');

if (bin !== undefined) {
  describe('two daemons share one Redis bucket', () => {
    let redis: RedisHandle | undefined;
    let sb: Sandbox | undefined;
    const dirs: string[] = [];
    const daemons: Daemon[] = [];

    beforeAll(async () => {
      redis = await startRedis(bin as string, { password: PASSWORD });
      sb = await createSandbox({
        seed: 23,
        activity: 2,
        limits: { ...roomyLimits(1_000_000), read: { capacity: READ_PER_S, windowMs: WINDOW_MS } },
      });
    }, 240_000);

    afterAll(async () => {
      for (const d of daemons) await d.stop().catch(() => undefined);
      await sb?.close();
      redis?.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    /** Two daemons of one account, started together, reading for RUN_MS; then stopped. */
    async function runPair(store: 'redis' | 'local', account: string): Promise<PairRun> {
      const s = sb as Sandbox;
      const env = {
        HARPOON_RATE_LIMITS_STORE: store,
        HARPOON_REDIS_URL: (redis as RedisHandle).url,
        HARPOON_RATE_LIMITS_ACCOUNT: account,
        HARPOON_RATE_LIMITS_READ: `${READ_PER_S}/s`,
        HARPOON_RATE_LIMITS_WRITE: '1000000/h',
        HARPOON_RATE_LIMITS_FULFILLMENT: '1000000/h',
      };
      const logs: string[][] = [[], []];
      const pair: Daemon[] = [];
      for (const i of [0, 1]) {
        const dir = mkdtempSync(join(tmpdir(), `harpoon-cluster-${store}-${i}-`));
        dirs.push(dir);
        // the path a user's config takes: demo.yaml + HARPOON_* environment -> daemon options
        const options = await demoDaemonOptions(s, { paper: true, dir, wallet: i, env });
        expect(options.cluster?.store).toBe(store);
        const sink = logs[i] as string[];
        const destination = new Writable({
          write(chunk: Buffer, _enc, done) {
            sink.push(chunk.toString());
            done();
          },
        });
        const d = createDaemon(options, { logger: createLogger({ level: 'info', destination }) });
        daemons.push(d);
        pair.push(d);
      }
      const read = (d: Daemon) => d.status().rateBudget.find((g) => g.group === 'read');
      const base = s.server.stats().requests.read;
      const samples: { t: number; requests: number; throttled: number }[] = [];
      const queued: number[][] = [[], []];
      const sample = () => {
        const r = s.server.stats().requests.read;
        samples.push({
          t: Date.now(),
          requests: r.requests - base.requests,
          throttled: r.throttled - base.throttled,
        });
        for (const [i, d] of pair.entries()) queued[i]?.push(read(d)?.queued ?? 0);
      };
      const drop = () =>
        void fetch(`${s.apiUrl}/_sandbox/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ stream: { drop: true } }),
        }).then((r) => r.arrayBuffer());
      const sampler = setInterval(sample, 100);
      let dropper: ReturnType<typeof setInterval> | undefined;
      let t0 = 0;
      try {
        await Promise.all(pair.map((d) => d.start()));
        const end = Date.now() + 60_000;
        while (!samples.some((x) => x.requests > 0) && Date.now() < end) await sleep(100);
        t0 = (samples.find((x) => x.requests > 0) as { t: number }).t;
        dropper = setInterval(drop, DROP_EVERY_MS);
        await sleep(Math.max(0, t0 + RUN_MS - Date.now()));
        sample();
      } finally {
        clearInterval(sampler);
        if (dropper !== undefined) clearInterval(dropper);
      }
      const perDaemon = pair.map((d, i) => {
        const q = queued[i] as number[];
        return {
          served: read(d)?.served ?? 0,
          http429: read(d)?.http429 ?? 0,
          busy: q.filter((n) => n > 0).length / Math.max(1, q.length),
          maxQueued: Math.max(...q),
        };
      });
      for (const d of pair) await d.stop();
      const last = samples.at(-1) as { t: number; requests: number; throttled: number };
      // the first sample a full window (plus one sampling period) after the first read
      const afterFirstWindow = samples.find((x) => x.t >= t0 + WINDOW_MS + 100) as { throttled: number };
      const seconds = (last.t - t0) / 1000;
      const run: PairRun = {
        seconds,
        served: last.requests - last.throttled,
        allowance: READ_PER_S + READ_PER_S * seconds,
        http429: last.throttled,
        late429: last.throttled - afterFirstWindow.throttled,
        daemons: perDaemon,
        logs: logs.map((l) => l.join('')),
      };
      const [a, b] = perDaemon as [PairRun['daemons'][0], PairRun['daemons'][0]];
      const pct = (x: number) => `${Math.round(x * 100)} %`;
      process.stdout.write(
        `store ${store}, account limit read ${READ_PER_S}/s: over ${seconds.toFixed(1)} s the sandbox served ${run.served} reads ` +
          `(allowance ${run.allowance.toFixed(1)}, ${pct(run.served / run.allowance)}); 429: ${run.http429} in all, ` +
          `${run.late429} after the first window; daemon A sent ${a.served} (429s ${a.http429}, reads waiting ${pct(a.busy)} ` +
          `of the time, max ${a.maxQueued}), daemon B sent ${b.served} (429s ${b.http429}, waiting ${pct(b.busy)}, max ${b.maxQueued})\n`,
      );
      return run;
    }

    it('store redis: together within the account limit — no 429 after the first window, both served', async () => {
      const account = 'acct-two-daemons';
      const run = await runPair('redis', account);
      const admin = new Redis((redis as RedisHandle).url);
      const ticket = Number(await admin.hget(`harpoon:rl:{${account}}:read`, 'ticket'));
      admin.disconnect();
      process.stdout.write(`store redis: tickets handed out by the shared bucket in Redis: ${ticket}\n`);
      const [a, b] = run.daemons as [PairRun['daemons'][0], PairRun['daemons'][0]];
      // each daemon wanted more than it got all along (reads waiting in its queue)
      expect(a.busy).toBeGreaterThan(0.9);
      expect(b.busy).toBeGreaterThan(0.9);
      // both were served, from the one bucket
      expect(a.served).toBeGreaterThan(run.allowance / 4);
      expect(b.served).toBeGreaterThan(run.allowance / 4);
      // together within the account's limit, and using most of it
      expect(run.late429).toBe(0);
      expect(run.served).toBeLessThanOrEqual(run.allowance + 1);
      expect(run.served / run.allowance).toBeGreaterThan(0.8);
      // every read either daemon sent took a ticket from the bucket in Redis
      expect(ticket).toBeGreaterThanOrEqual(a.served + b.served);
      expect(ticket).toBeLessThanOrEqual(a.served + b.served + 4);
      // the Redis password is in no log line (and the daemons did log)
      for (const text of run.logs) {
        expect(text.length).toBeGreaterThan(0);
        expect(text).not.toContain(PASSWORD);
      }
    }, 180_000);

    it('control, store local (a bucket each): the same two daemons are refused with 429s', async () => {
      await sleep(2 * WINDOW_MS); // the account's bucket refills
      const run = await runPair('local', 'acct-control');
      expect(run.late429).toBeGreaterThan(0);
    }, 180_000);
  });
}
