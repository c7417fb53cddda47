/**
 * Fidelity: a paper run of the daemon on the sandbox, recorded to a tape (market.record), then
 * backtested with the same config from the moment the daemon's engine started — the fills and the
 * profit and loss agree. Differences that remain are listed with their cause (see DIFFERENCES).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseUnits } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/run.ts';
import { backtestSetupFromOptions } from '../../../src/backtest/setup.ts';
import { loadTape } from '../../../src/backtest/tape-data.ts';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon, type DaemonOptions } from '../../../src/daemon/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';

const HOUR = 3_600_000;
const ROOMY = { capacity: 100_000, windowMs: HOUR };
const STRATEGIES = resolve(import.meta.dirname, '../../../strategies');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
let dir: string;
let daemon: Daemon | undefined;

beforeAll(async () => {
  sb = await createSandbox({
    seed: 5,
    activity: 6,
    limits: { read: ROOMY, write: ROOMY, fulfillment: ROOMY },
  });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-fidelity-'));
}, 240_000);

afterAll(async () => {
  await daemon?.stop().catch(() => undefined);
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

interface FillKey {
  readonly strategy: string;
  readonly kind: string;
  readonly item: string | null;
  readonly price: string;
}

describe('paper run vs backtest of its tape', () => {
  it('the same fills and PnL', async () => {
    const base = await demoDaemonOptions(sb, { paper: true, dir, wallet: 0 });
    const tapePath = join(dir, 'paper.tape');
    const keep = new Set(['sniper', 'collection-bidder', 'trait-bidder', 'seller']);
    const options: DaemonOptions = {
      ...base,
      strategies: base.strategies.filter((s) => keep.has(s.id)),
      market: { ...base.market, record: tapePath },
    };
    daemon = createDaemon(options, { logger: silentLogger() });
    await daemon.start();
    const engineAt = Date.now();
    await sleep(Number(process.env.HARPOON_FIDELITY_SECONDS ?? 120) * 1000);
    await daemon.stop();
    const paper = daemon.paperReport();
    expect(paper).toBeDefined();
    const wallet = daemon.status().wallet;

    // HARPOON_FIDELITY_KEEP=DIR keeps the tape there for a closer look
    if (process.env.HARPOON_FIDELITY_KEEP)
      copyFileSync(tapePath, join(process.env.HARPOON_FIDELITY_KEEP, 'fidelity.tape'));
    const tape = loadTape(tapePath);
    expect(tape.torn).toBe(false);
    const run = await runBacktest({
      tape,
      setup: backtestSetupFromOptions(options, wallet),
      builtinStrategiesDir: STRATEGIES,
      from: engineAt,
    });
    const live = (paper?.fills ?? []).map((f) => ({
      at: f.at,
      id: `${f.strategyId} ${f.kind} ${f.item} ${f.price} fees ${f.fees}`,
      gas: f.gas,
    }));
    const back = run.report.fills.map((f) => ({
      at: f.at,
      id: `${f.strategy} ${f.kind} ${f.item} ${f.price} fees ${f.fees}`,
      gas: BigInt(f.gas),
    }));
    // every difference, with its cause, is printed (and the test fails on any but timing)
    const differences: string[] = [];
    const backIds = back.map((f) => f.id);
    const liveIds = live.map((f) => f.id);
    for (const f of live) if (!backIds.includes(f.id)) differences.push(`only in the paper run: ${f.id}`);
    for (const f of back) if (!liveIds.includes(f.id)) differences.push(`only in the backtest: ${f.id}`);
    let maxShiftMs = 0;
    for (const f of live) {
      const b = back.find((x) => x.id === f.id);
      if (b === undefined) continue;
      maxShiftMs = Math.max(maxShiftMs, Math.abs(b.at - f.at));
      // gas: paper reads the RPC when it executes, the tape has the gas price every 12 s
      if (b.gas !== f.gas)
        differences.push(`gas of ${f.id}: paper ${f.gas}, backtest ${b.gas} (sampled every 12 s)`);
    }
    const wei = (v: string) => parseUnits(v, 18).toString();
    const livePnl = Object.fromEntries((paper?.pnl?.byStrategy ?? []).map((l) => [l.key, wei(l.realized)]));
    const backPnl = Object.fromEntries(
      run.report.byStrategy.filter((l) => l.sales > 0 || l.realized !== '0').map((l) => [l.key, l.realized]),
    );
    console.log(
      JSON.stringify(
        {
          fills: { paper: live.map((f) => `${f.at} ${f.id}`), backtest: back.map((f) => `${f.at} ${f.id}`) },
          maxShiftMs,
          differences,
          livePnl,
          backPnl,
          tape: tape.counts,
        },
        null,
        1,
      ),
    );
    expect(live.length).toBeGreaterThan(1);
    expect(differences.filter((d) => !d.startsWith('gas of '))).toEqual([]);
    expect(back.length).toBe(live.length);
    expect(backPnl).toEqual(livePnl);
  }, 600_000);
});
