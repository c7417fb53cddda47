/**
 * Fidelity: a paper run of the daemon on the sandbox, recorded to a tape (market.record), then
 * backtested with the same config from the moment the daemon's engine started — the fills and the
 * profit and loss agree, as `harpoon backtest --compare` finds them (src/backtest/compare.ts): every
 * difference that remains is listed with its cause.
 * The sniper, both bidders, the seller, the drop-minter (the drop's status as recorded) and a
 * rebalancer between ETH and WETH trade, the last from the simulated wallet (`paper.balances`)
 * both runs start from.
 */
import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backtestSide, compareWithRun, readRun, strategyDifferences } from '../../../src/backtest/compare.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { walletForTape } from '../../../src/backtest/setup.ts';
import { openTapeSource } from '../../../src/backtest/tape-source.ts';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type DaemonOptions } from '../../../src/daemon/index.ts';
import { paperBalancesOf } from '../../../src/daemon/options.ts';
import { ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { fidelityStrategies, fidelityWorld, setupOfOptions } from './fidelity-setup.ts';

const STRATEGIES = resolve(import.meta.dirname, '../../../strategies');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const world = fidelityWorld('harpoon-fidelity-');

describe('paper run vs backtest of its tape', () => {
  it('the same fills and PnL', async () => {
    const { sb, dir } = world;
    const base = await demoDaemonOptions(sb, { paper: true, dir, wallet: 0 });
    const tapePath = join(dir, 'paper.tape');
    // the simulated wallet, the same in both: 5 ETH, which the rebalancer keeps half in WETH
    const balances = { ETH: '5' };
    const options: DaemonOptions = {
      ...base,
      strategies: fidelityStrategies(base, sb.weth),
      paperBalances: paperBalancesOf(balances, base.tokens),
      market: { ...base.market, record: tapePath },
    };
    const daemon = createDaemon(options, { logger: silentLogger() });
    world.daemon = daemon;
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
    const tape = openTapeSource(tapePath);
    expect(tape.torn).toBe(false);
    // the demo's HRP at the price the daemon read from the sandbox's swap router, as it read it
    const hrp = options.tokens.find((t) => t.symbol === 'HRP');
    expect(hrp).toBeDefined();
    expect(tape.counts.price ?? 0).toBeGreaterThan(0);
    const hrpPrice = tape.replay(() => tape.lastAt).price(hrp?.address ?? '');
    expect(hrpPrice?.value.source).toBe('quote');
    expect(hrpPrice?.value.priceIn ?? 0n).toBeGreaterThan(0n);
    expect(hrpPrice?.learnedAt ?? 0).toBeGreaterThanOrEqual(engineAt);
    // the daemon traded: its tape names its wallet, and the backtest trades as it (as a user's
    // would, whose config holds the key and not the address)
    expect(tape.header.meta?.wallet).toBe(wallet.toLowerCase());
    const chosen = walletForTape(setupOfOptions(options, balances), tape.survey);
    expect(chosen.setup.wallet).toBe(wallet.toLowerCase());
    expect(chosen.note).toMatch(/this backtest trades as it/);
    // the paper run as `harpoon backtest --compare` reads it: the report the daemon saved as it stopped
    const comparedRun = readRun(options.paperReportPath);
    expect(comparedRun.fills.length).toBe(paper?.fills.length);
    // its strategies began as its engine started (the backtest trades from then)
    expect(comparedRun.tradingFrom).toBeGreaterThan(comparedRun.startedAt);
    expect(comparedRun.tradingFrom).toBeLessThanOrEqual(engineAt);
    // what it traded with: the backtest's setup is the same config
    expect(comparedRun.strategies?.map((x) => x.id).sort()).toEqual(
      chosen.setup.strategies.map((x) => x.id).sort(),
    );
    expect(strategyDifferences(comparedRun.strategies ?? [], chosen.setup.strategies)).toEqual([]);
    // and its simulated wallet then: the config's start (a new store: no earlier run moved it)
    expect(comparedRun.walletAtStart?.map((b) => [b.token, b.amount])).toEqual([
      [ZERO_ADDRESS, 5n * 10n ** 18n],
    ]);
    const run = await runBacktest({
      tape,
      setup: chosen.setup,
      builtinStrategiesDir: STRATEGIES,
      from: comparedRun.tradingFrom,
    });
    // Every difference is printed with its cause (src/backtest/compare.ts: a fill's time, the gas
    // price the tape samples, a swap sized on the wallet after it, a sale decided within a moment
    // of the purchase); any other fails — an NFT sold twice by paper among them (the daemon reads
    // its holdings again after every fill, and risk refuses a second sale while one is under way).
    const c = compareWithRun(comparedRun, run.report);
    const line = (f: {
      at: number;
      strategy: string;
      kind: string;
      item: string | null;
      price: bigint;
      fees: bigint | null;
    }) => `${f.at} ${f.strategy} ${f.kind} ${f.item} ${f.price} fees ${f.fees}`;
    process.stdout.write(
      `${JSON.stringify(
        {
          fills: { paper: comparedRun.fills.map(line), backtest: backtestSide(run.report).fills.map(line) },
          comparison: c,
          refused: { paper: paper?.rejected, backtest: run.report.refused },
          intents: { paper: paper?.intents, backtest: run.report.intents },
          tape: tape.counts,
        },
        null,
        1,
      )}\n`,
    );
    const what = (kind: string) => (f: { strategy: string; kind: string }) =>
      `${f.strategy} ${f.kind}` === kind;
    expect(comparedRun.fills.length).toBeGreaterThan(1);
    // every fill of the run is in the window the backtest traded
    expect(c.run.fills).toBe(comparedRun.fills.length);
    // the rebalancer traded from the simulated wallet, in both
    expect(comparedRun.fills.filter(what('rebalancer swap')).length).toBeGreaterThan(0);
    // the drop-minter minted the demo's drop, from its status on the tape in the backtest
    const mints = (fills: readonly { at: number; strategy: string; kind: string }[]) =>
      fills.filter(what('drop-minter mint')).map((f) => f.at);
    expect(mints(comparedRun.fills).length).toBe(2);
    expect(tape.counts.drop ?? 0).toBeGreaterThan(0);
    // at the same ticks: the daemon writes the status it polled at once (recorder.views)
    const backMints = mints(backtestSide(run.report).fills);
    expect(backMints.length).toBe(2);
    for (const [i, at] of backMints.entries())
      expect(Math.abs(at - (mints(comparedRun.fills)[i] ?? 0))).toBeLessThan(1_000);
    expect(c.differences.filter((d) => d.cause === null)).toEqual([]);
    expect(run.report.fills.length).toBe(comparedRun.fills.length);
    // PnL: the same to the wei, unless a sale was taken differently (said, with its cause)
    expect(c.realized.length).toBeGreaterThan(0);
    expect(c.realized.filter((p) => p.differs !== null && p.differs.cause === null)).toEqual([]);
    expect(c.agree).toBe(true);
    // what paper bought stays held until paper sells it: the daemon never checks paper's holdings
    // against the chain (the wallet never had them; checked, they were let go within 30 s)
    // (each item's buys less its sales: one bought again after it was sold is held again)
    const units = new Map<string, number>();
    for (const f of comparedRun.fills)
      if (f.item !== null && ['buy', 'offer_filled', 'offer_accepted', 'listing_sold'].includes(f.kind))
        units.set(
          f.item,
          (units.get(f.item) ?? 0) + (f.kind === 'buy' || f.kind === 'offer_filled' ? 1 : -1),
        );
    const held = [...units.values()].filter((n) => n > 0).reduce((a, n) => a + n, 0);
    expect(
      comparedRun.fills.some((f) => f.kind === 'offer_filled' && f.at < comparedRun.endedAt - 35_000),
    ).toBe(true);
    expect((paper?.pnl?.byStrategy ?? []).reduce((n, r) => n + r.held, 0)).toBe(held);
  }, 600_000);
});
