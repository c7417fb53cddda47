/**
 * Fidelity: a paper run of the daemon on the sandbox, recorded to a tape (market.record), then
 * backtested with the same config from the moment the daemon's engine started — the fills and the
 * profit and loss agree. Differences that remain are listed with their cause (see DIFFERENCES).
 * The sniper, both bidders, the seller, the drop-minter (the drop's status as recorded) and a
 * rebalancer between ETH and WETH trade, the last from the simulated wallet (`paper.balances`)
 * both runs start from.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseUnits } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/run.ts';
import { type BacktestSetup, backtestSetupOf, walletForTape } from '../../../src/backtest/setup.ts';
import { openTapeSource } from '../../../src/backtest/tape-source.ts';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon, type DaemonOptions } from '../../../src/daemon/index.ts';
import { paperBalancesOf } from '../../../src/daemon/options.ts';
import { ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits } from '../limits.ts';

const STRATEGIES = resolve(import.meta.dirname, '../../../strategies');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The backtest setup of what the daemon traded with: its options hold what a config says (the
 * demo's options are its config's), and, as a user's config holds the key and not the address,
 * no wallet (the tape's is taken: walletForTape).
 */
function setupOfOptions(o: DaemonOptions, balances: Readonly<Record<string, string>>): BacktestSetup {
  return backtestSetupOf({
    weth: o.chain.weth,
    balances,
    chain: o.chain.name,
    collections: o.collections,
    strategies: o.strategies,
    ...(o.baseDir !== undefined ? { baseDir: o.baseDir } : {}),
    ...(o.strategiesDir !== undefined ? { strategiesDir: o.strategiesDir } : {}),
    risk: o.risk,
    engine: o.engine,
    market: o.market,
    tokens: o.tokens,
    wallet: o.wallet.source === 'none' ? o.wallet.address : undefined,
    pollIntervalMs: o.pollIntervalMs,
  });
}

let sb: Sandbox;
let dir: string;
let daemon: Daemon | undefined;

beforeAll(async () => {
  sb = await createSandbox({
    seed: 5,
    activity: 6,
    limits: roomyLimits(),
  });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-fidelity-'));
}, 240_000);

afterAll(async () => {
  await daemon?.stop().catch(() => undefined);
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('paper run vs backtest of its tape', () => {
  it('the same fills and PnL', async () => {
    const base = await demoDaemonOptions(sb, { paper: true, dir, wallet: 0 });
    const tapePath = join(dir, 'paper.tape');
    const keep = new Set(['sniper', 'collection-bidder', 'trait-bidder', 'seller', 'drop-minter']);
    // the simulated wallet, the same in both: 5 ETH, which a rebalancer keeps half in WETH (the
    // demo's rebalancer trades HRP: a backtest swaps it at the recorded price of one whole token,
    // without the pool's impact of the amount, which paper's quote has — not the same to the wei)
    const balances = { ETH: '5' };
    const options: DaemonOptions = {
      ...base,
      strategies: [
        ...base.strategies.filter((s) => keep.has(s.id)),
        {
          id: 'rebalancer',
          module: 'rebalancer',
          params: {
            schedule: '*/20 * * * * *',
            tokens: [
              { token: { address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 }, weight: 0.5 },
              { token: { address: sb.weth.toLowerCase(), symbol: 'WETH', decimals: 18 }, weight: 0.5 },
            ],
            toleranceBps: 1000,
            minTradeValue: '0.01',
            maxSwapsPerRun: 1,
          },
        },
      ],
      paperBalances: paperBalancesOf(balances, base.tokens),
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
    const run = await runBacktest({
      tape,
      setup: chosen.setup,
      builtinStrategiesDir: STRATEGIES,
      from: engineAt,
    });
    type F = { at: number; what: string; price: string; amount: bigint; gas: bigint; sale: boolean };
    const live: F[] = (paper?.fills ?? []).map((f) => ({
      at: f.at,
      what: `${f.strategyId} ${f.kind} ${f.item}`,
      price: `${f.price} fees ${f.fees}`,
      amount: f.price,
      gas: f.gas,
      sale: f.kind === 'offer_accepted' || f.kind === 'listing_sold',
    }));
    const back: F[] = run.report.fills.map((f) => ({
      at: f.at,
      what: `${f.strategy} ${f.kind} ${f.item}`,
      price: `${f.price} fees ${f.fees}`,
      amount: BigInt(f.price),
      gas: BigInt(f.gas),
      sale: f.kind === 'offer_accepted' || f.kind === 'listing_sold',
    }));
    // Every difference is printed with its cause. Allowed: a sale decided within a moment of the
    // NFT's purchase may come earlier in the backtest (it acts at the event's receive time, paper
    // tens of milliseconds later, once the store has the buy) and take a different best offer.
    // Gas may differ too: paper reads the RPC when it executes, the tape has the gas price every
    // 12 s. Anything else fails — an NFT sold twice by paper among them (the daemon reads its
    // holdings again after every fill, and risk refuses a second sale while one is under way).
    const explained: string[] = [];
    const unexplained: string[] = [];
    const boughtAt = (item: string, before: number) =>
      Math.max(
        ...live.filter((f) => !f.sale && f.what.endsWith(` ${item}`) && f.at <= before).map((f) => f.at),
      );
    const unmatched = [...back];
    let maxShiftMs = 0;
    /** How far apart the gas paid so far is (the simulated wallets' ETH differs by as much). */
    let gasApart = 0n;
    for (const f of live) {
      const i = unmatched.findIndex((b) => b.what === f.what && b.price === f.price);
      const same = i >= 0 ? unmatched.splice(i, 1)[0] : undefined;
      if (same !== undefined) {
        maxShiftMs = Math.max(maxShiftMs, Math.abs(same.at - f.at));
        if (same.gas !== f.gas) {
          gasApart += same.gas > f.gas ? same.gas - f.gas : f.gas - same.gas;
          explained.push(
            `gas of ${f.what}: paper ${f.gas}, backtest ${same.gas} (the tape samples gas every 12 s)`,
          );
        }
        continue;
      }
      // a swap sized on the wallet: it may differ by what the gas paid before it did
      const s = unmatched.findIndex(
        (b) =>
          b.what === f.what &&
          f.what.includes(' swap ') &&
          (b.amount > f.amount ? b.amount - f.amount : f.amount - b.amount) <= gasApart,
      );
      if (s >= 0) {
        const b = unmatched.splice(s, 1)[0] as F;
        maxShiftMs = Math.max(maxShiftMs, Math.abs(b.at - f.at));
        explained.push(
          `${f.what}: paper ${f.amount}, backtest ${b.amount} (the simulated wallets' ETH differed by the ${gasApart} wei the gas paid before it did)`,
        );
        continue;
      }
      const j = unmatched.findIndex((b) => b.what === f.what);
      const item = f.what.split(' ').pop() as string;
      if (j >= 0 && f.sale && f.at - boughtAt(item, f.at) < 1_500) {
        const b = unmatched.splice(j, 1)[0] as F;
        explained.push(
          `${f.what}: paper ${f.price} at +${f.at - boughtAt(item, f.at)} ms after the buy, backtest ${b.price} at +${b.at - boughtAt(item, f.at)} ms (decided within a moment of the buy)`,
        );
        continue;
      }
      unexplained.push(`only in the paper run: ${f.what} ${f.price} at ${f.at}`);
    }
    for (const b of unmatched) unexplained.push(`only in the backtest: ${b.what} ${b.price} at ${b.at}`);
    const wei = (v: string) => parseUnits(v, 18).toString();
    // realized PnL per strategy, lines with something realized (both list held-only lines as 0)
    const livePnl = Object.fromEntries(
      (paper?.pnl?.byStrategy ?? []).map((l) => [l.key, wei(l.realized)]).filter(([, v]) => v !== '0'),
    );
    const backPnl = Object.fromEntries(
      run.report.byStrategy.map((l) => [l.key, l.realized]).filter(([, v]) => v !== '0'),
    );
    process.stdout.write(
      `${JSON.stringify(
        {
          fills: {
            paper: live.map((f) => `${f.at} ${f.what} ${f.price}`),
            backtest: back.map((f) => `${f.at} ${f.what} ${f.price}`),
          },
          maxShiftMs,
          explained,
          unexplained,
          livePnl,
          backPnl,
          refused: { paper: paper?.rejected, backtest: run.report.refused },
          intents: { paper: paper?.intents, backtest: run.report.intents },
          tape: tape.counts,
        },
        null,
        1,
      )}\n`,
    );
    expect(live.length).toBeGreaterThan(1);
    // the rebalancer traded from the simulated wallet, in both
    expect(live.filter((f) => f.what.startsWith('rebalancer swap')).length).toBeGreaterThan(0);
    // the drop-minter minted the demo's drop, from its status on the tape in the backtest
    const mints = (fills: F[]) => fills.filter((f) => f.what.startsWith('drop-minter mint')).map((f) => f.at);
    expect(mints(live).length).toBe(2);
    expect(tape.counts.drop ?? 0).toBeGreaterThan(0);
    // at the same ticks: the daemon writes the status it polled at once (recorder.views)
    expect(mints(back).length).toBe(2);
    for (const [i, at] of mints(back).entries())
      expect(Math.abs(at - (mints(live)[i] ?? 0))).toBeLessThan(1_000);
    expect(unexplained).toEqual([]);
    expect(back.length).toBe(live.length);
    // PnL: the same to the wei, unless a sale was explained above (then it differs by its price)
    if (!explained.some((e) => e.includes('within a moment of the buy'))) expect(backPnl).toEqual(livePnl);
    else expect(Object.keys(backPnl).sort()).toEqual(Object.keys(livePnl).sort());
  }, 600_000);
});
