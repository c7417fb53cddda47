/**
 * A live run of the daemon on the sandbox (real anvil, real Seaport: every buy, sale, mint and swap
 * a transaction), recorded to a tape (market.record), then backtested from the moment its engine
 * started and compared with the report it saved as it stopped (run-report.json next to its store),
 * as `harpoon backtest --compare` does: every fill of the run is in the report with the gas its
 * transaction paid, and every difference is listed with its cause — the gas a transaction paid
 * against paper's estimate, a swap sized on a wallet that paid other gas, offers (a seller accepts
 * an offer live; the fill model fills ours on a listing or sale at or below it).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backtestSide, compareWithRun, readRun, strategyDifferences } from '../../../src/backtest/compare.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { type BacktestSetup, walletForTape } from '../../../src/backtest/setup.ts';
import { openTapeSource } from '../../../src/backtest/tape-source.ts';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type DaemonOptions } from '../../../src/daemon/index.ts';
import { ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { fidelityStrategies, fidelityWorld, setupOfOptions } from './fidelity-setup.ts';

const STRATEGIES = resolve(import.meta.dirname, '../../../strategies');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const world = fidelityWorld('harpoon-fidelity-live-');

describe('live run vs backtest of its tape', () => {
  it('every fill of the run in its report, every difference with its cause', async () => {
    const { sb, dir } = world;
    const base = await demoDaemonOptions(sb, { paper: false, dir, wallet: 0 });
    const tapePath = join(dir, 'live.tape');
    const options: DaemonOptions = {
      ...base,
      strategies: fidelityStrategies(base, sb.weth),
      market: { ...base.market, record: tapePath },
    };
    expect(options.mode).toBe('live');
    expect(options.runReportPath).toBe(join(dir, 'run-report.json'));
    const daemon = createDaemon(options, { logger: silentLogger() });
    world.daemon = daemon;
    await daemon.start();
    await sleep(Number(process.env.HARPOON_FIDELITY_SECONDS ?? 75) * 1000);
    // saved while it runs too (every minute): a run killed outright leaves its last minute's
    const path = options.runReportPath as string;
    const running = readRun(path);
    expect(running.mode).toBe('live');
    await daemon.stop();
    expect(daemon.paperReport()).toBeUndefined();
    const saved = daemon.runReport();
    expect(saved?.mode).toBe('live');

    // the report as saved (owner only) and as --compare reads it
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const run = readRun(path);
    expect(run.tradingFrom).toBe(running.tradingFrom);
    expect(run.fills.length).toBeGreaterThanOrEqual(running.fills.length);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(run.mode).toBe('live');
    expect(run.fills.length).toBe(saved?.fills.length);
    expect(run.tradingFrom).toBeGreaterThan(run.startedAt);
    expect(strategyDifferences(run.strategies ?? [], options.strategies)).toEqual([]);
    // the wallet as read when the engine started: the sandbox's funded wallet, in ETH
    expect(run.walletAtStart?.find((b) => b.token === ZERO_ADDRESS)?.amount ?? 0n).toBeGreaterThan(
      10n ** 18n,
    );
    // what ran on schedule: the drop-minter's mints and the rebalancer's swap, each a transaction
    // whose gas the report holds as paid
    const of = (kind: string) => run.fills.filter((f) => f.kind === kind);
    expect(of('mint').length).toBeGreaterThan(0);
    expect(of('swap').length).toBe(1);
    for (const f of [...of('mint'), ...of('swap'), ...of('buy'), ...of('offer_accepted')])
      expect(f.gas).toBeGreaterThan(0n);
    for (const f of [...of('offer_filled'), ...of('listing_sold')]) expect(f.gas).toBe(0n);
    // what it bought: fees not known (the seller paid them out of the price); what it sold: known
    for (const f of of('buy')) expect(f.fees).toBeNull();
    for (const f of of('offer_accepted')) expect(f.fees).not.toBeNull();
    // what it tried and did not get, each with why (read from the journal's failed records)
    expect(run.tried.length).toBe(saved?.tried?.length);
    for (const t of run.tried) expect(t.error.length).toBeGreaterThan(0);

    const tape = openTapeSource(tapePath);
    expect(tape.torn).toBe(false);
    const chosen = walletForTape(setupOfOptions(options), tape.survey);
    expect(chosen.setup.wallet).toBe(run.wallet);
    const setup: BacktestSetup = {
      ...chosen.setup,
      balances: new Map((run.walletAtStart ?? []).map((b) => [b.token, b.amount])),
    };
    const bt = await runBacktest({ tape, setup, builtinStrategiesDir: STRATEGIES, from: run.tradingFrom });
    const c = compareWithRun(run, bt.report);
    process.stdout.write(
      `${JSON.stringify(
        {
          live: run.fills.map((f) => `${f.at} ${f.strategy} ${f.kind} ${f.item} ${f.price} gas ${f.gas}`),
          backtest: backtestSide(bt.report).fills.map(
            (f) => `${f.at} ${f.strategy} ${f.kind} ${f.item} ${f.price} gas ${f.gas}`,
          ),
          tried: run.tried,
          comparison: c,
        },
        (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
        1,
      )}\n`,
    );
    expect(c.run.mode).toBe('live');
    expect(c.run.fills).toBe(run.fills.length);
    // the mints: the same price at the same ticks, their gas the transaction's against paper's estimate
    const mints = (fills: readonly { kind: string; at: number }[]) =>
      fills.filter((f) => f.kind === 'mint').map((f) => f.at);
    expect(mints(backtestSide(bt.report).fills).length).toBe(mints(run.fills).length);
    const gasCauses = c.differences.filter((d) => d.what.startsWith('gas of '));
    expect(gasCauses.length).toBeGreaterThanOrEqual(mints(run.fills).length);
    for (const d of gasCauses) expect(d.cause).toMatch(/^the run's transaction paid its gas used/);
    // every difference has its cause; so does every realized PnL apart
    expect(c.differences.filter((d) => d.cause === null)).toEqual([]);
    expect(c.realized.filter((p) => p.differs !== null && p.differs.cause === null)).toEqual([]);
    expect(c.agree).toBe(true);
  }, 600_000);
});
