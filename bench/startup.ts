/**
 * Daemon start-up benchmark: createDaemon(...).start() to ready — store open, signer, chain id
 * checked, tx sender and execution reconciled, market loaded, balances and drops read, stream
 * subscribed (every channel joined), engine started with all five strategies, control endpoint
 * serving — against an already-running sandbox with market activity, with warm caches (a first
 * start/stop warms module imports, the store's migrations and the strategies; it is not measured).
 *
 *   npm run bench -- startup            # 5 measured starts
 *   npm run bench -- startup --quick    # 2 measured starts (or BENCH_QUICK=1)
 *
 * Prints progress lines, then one JSON object as the last line: {"readyMs": <median>, ...}.
 * Goal: readyMs <= 2000.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { demoDaemonOptions, wrapEth } from '../src/cli/commands/demo.ts';
import { createDaemon } from '../src/daemon/index.ts';
import { silentLogger } from '../src/observability/index.ts';
import { createSandbox } from '../src/sandbox/index.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const quick = values.quick === true || process.env.BENCH_QUICK === '1';
const RUNS = quick ? 2 : 5;
const HOUR = 3_600_000;
const ROOMY = { capacity: 1_000_000, windowMs: HOUR };
const log = (msg: string) => process.stderr.write(`${msg}\n`);

const sandbox = await createSandbox({
  seed: 3,
  activity: 3,
  limits: { read: ROOMY, write: ROOMY, fulfillment: ROOMY },
  onProgress: log,
});
const dir = mkdtempSync(join(tmpdir(), 'harpoon-bench-startup-'));
try {
  const w = sandbox.wallets[0] as { privateKey: string };
  await wrapEth(sandbox, w.privateKey, 10n ** 18n);
  const base = await demoDaemonOptions(sandbox, { paper: false, dir });
  const rate = { count: 1_000_000, windowMs: HOUR };
  const options = { ...base, rates: { read: rate, write: rate, fulfillment: rate } };

  async function once(): Promise<number> {
    const daemon = createDaemon(options, { logger: silentLogger() });
    const t0 = performance.now();
    await daemon.start();
    const ms = performance.now() - t0;
    const s = daemon.status();
    if (s.state !== 'running' || s.stream.channels.some((c) => !c.joined))
      throw new Error(`not ready: ${s.state}, stream ${s.stream.state}`);
    await daemon.stop();
    return ms;
  }

  log('warm-up start (not measured)');
  const warm = await once();
  log(`  warm-up: ${warm.toFixed(0)} ms`);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const ms = await once();
    times.push(ms);
    log(`  start ${i + 1}/${RUNS}: ready in ${ms.toFixed(0)} ms`);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const out = {
    readyMs: Math.round(median),
    readyMinMs: Math.round(times[0] as number),
    readyMaxMs: Math.round(times[times.length - 1] as number),
    runs: RUNS,
    strategies: options.strategies.length,
    collections: options.collections.length,
    goalMs: 2000,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
