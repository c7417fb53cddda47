// What the fidelity tests (a paper run, a live run) trade with and backtest with: one setup.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type BacktestSetup, backtestSetupOf } from '../../../src/backtest/setup.ts';
import type { Daemon, DaemonOptions } from '../../../src/daemon/index.ts';
import { ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits } from '../limits.ts';

/**
 * The demo's sniper, both bidders, the seller and the drop-minter, and a rebalancer between ETH and
 * WETH every 20 s (the demo's trades HRP: a backtest swaps it at the recorded price of one whole
 * token, without the pool's impact of the amount, which paper's quote and a live swap have).
 */
export function fidelityStrategies(base: DaemonOptions, weth: string): DaemonOptions['strategies'] {
  const keep = new Set(['sniper', 'collection-bidder', 'trait-bidder', 'seller', 'drop-minter']);
  return [
    ...base.strategies.filter((s) => keep.has(s.id)),
    {
      id: 'rebalancer',
      module: 'rebalancer',
      params: {
        schedule: '*/20 * * * * *',
        tokens: [
          { token: { address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 }, weight: 0.5 },
          { token: { address: weth.toLowerCase(), symbol: 'WETH', decimals: 18 }, weight: 0.5 },
        ],
        toleranceBps: 1000,
        minTradeValue: '0.01',
        maxSwapsPerRun: 1,
      },
    },
  ];
}

/**
 * The backtest setup of what the daemon traded with: its options hold what a config says (the
 * demo's options are its config's), and, as a user's config holds the key and not the address,
 * no wallet (the tape's is taken: walletForTape). `balances`: the config's paper.balances.
 */
export function setupOfOptions(o: DaemonOptions, balances?: Readonly<Record<string, string>>): BacktestSetup {
  return backtestSetupOf({
    weth: o.chain.weth,
    ...(balances !== undefined ? { balances } : {}),
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

/** The sandbox, the folder and the daemon of a fidelity test: made before its tests, closed after. */
export interface FidelityWorld {
  readonly sb: Sandbox;
  readonly dir: string;
  /** The daemon the test runs (stopped after the tests if it is still running). */
  daemon: Daemon | undefined;
}

/**
 * Registers the test file's hooks: a sandbox (seed 5, six simulated actions a second) and a
 * temporary folder before its tests; the daemon stopped, the sandbox closed and the folder removed
 * after. Read the fields inside a test (they are set by then).
 */
export function fidelityWorld(prefix: string): FidelityWorld {
  const w = { daemon: undefined } as { sb: Sandbox; dir: string; daemon: Daemon | undefined };
  beforeAll(async () => {
    w.sb = await createSandbox({ seed: 5, activity: 6, limits: roomyLimits() });
    w.dir = mkdtempSync(join(tmpdir(), prefix));
  }, 240_000);
  afterAll(async () => {
    await w.daemon?.stop().catch(() => undefined);
    await w.sb?.close();
    if (w.dir !== undefined) rmSync(w.dir, { recursive: true, force: true });
  });
  return w;
}
