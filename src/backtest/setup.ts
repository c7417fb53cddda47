/**
 * What a backtest takes from a harpoon config: the strategies and their params, risk, engine
 * timing, the market view's settings and the payment tokens — the same keys the daemon reads — and
 * parameter overrides (a sweep's combination: `sniper.discountBps=2000`).
 */
import { dirname } from 'node:path';
import type { Config } from '../config/types.ts';
import { collectionsOf, paperBalancesOf, tokensOfStrategies, wethOfConfig } from '../daemon/options.ts';
import type { PaymentToken } from '../domain/events.ts';
import type { Address } from '../domain/ids.ts';
import { engineTimingFromConfig, riskLimitsFromConfig } from '../engine/config.ts';
import type { RiskLimits } from '../engine/risk/limits.ts';
import type { TapeHeader } from '../tape/format.ts';
import type { TapeSurvey } from '../tape/reader.ts';

export interface BacktestSetup {
  /** The chain the config trades on (the replay runs on the tape's; see checkSetupAgainstTape). */
  readonly chain?: string;
  readonly collections: readonly string[];
  readonly strategies: readonly { readonly id: string; readonly module: string; readonly params: unknown }[];
  /** Where relative strategy modules are found (the config file's folder). */
  readonly baseDir?: string;
  readonly strategiesDir?: string;
  readonly risk: RiskLimits;
  readonly timing: ReturnType<typeof engineTimingFromConfig>;
  readonly market: { readonly staleAfterMs: number; readonly readsPerHour: number };
  readonly tokens: readonly PaymentToken[];
  /** The simulated wallet (config wallet.address, else a fixed one). */
  readonly wallet: Address;
  /** How often the ledger settles expiries and holdings are read again (daemon.pollIntervalMs). */
  readonly pollIntervalMs: number;
  /** The chain's WETH (ETH wrapped: a swap between them is 1:1), when known. */
  readonly weth?: string;
  /**
   * The simulated wallet's balances at the start (`paper.balances`: lower-case token address →
   * smallest units); absent: strategies read no balances (a tape holds none).
   */
  readonly balances?: ReadonlyMap<string, bigint>;
}

/** The wallet of a backtest when the config names none (never a real one). */
export const BACKTEST_WALLET = '0x00000000000000000000000000000000000b7e57' as Address;

export function backtestSetupFromConfig(config: Config, configPath?: string): BacktestSetup {
  return backtestSetupOf({
    chain: config.chain.name,
    collections: collectionsOf(config),
    strategies: config.strategies,
    ...(configPath !== undefined ? { baseDir: dirname(configPath) } : {}),
    risk: config.risk,
    engine: config.engine,
    market: config.market,
    tokens: tokensOfStrategies(config.strategies),
    wallet: config.wallet.address,
    pollIntervalMs: config.daemon.pollIntervalMs,
    weth: wethOfConfig(config),
    ...(config.paper.balances !== undefined ? { balances: config.paper.balances } : {}),
  });
}

/**
 * A backtest's setup from the sections a config and a daemon's options share (`wallet`: the
 * address traded as, else the placeholder BACKTEST_WALLET; see walletForTape).
 */
export function backtestSetupOf(s: {
  readonly chain: string;
  readonly collections: readonly string[];
  readonly strategies: readonly { readonly id: string; readonly module: string; readonly params?: unknown }[];
  readonly baseDir?: string;
  readonly strategiesDir?: string;
  readonly risk: Parameters<typeof riskLimitsFromConfig>[0];
  readonly engine: Parameters<typeof engineTimingFromConfig>[0];
  readonly market: { readonly staleAfterMs: number; readonly readsPerHour: number };
  readonly tokens: readonly PaymentToken[];
  readonly wallet: string | undefined;
  readonly pollIntervalMs: number;
  readonly weth?: string | undefined;
  /** `paper.balances` as written (checked against `tokens` and WETH here: a ConfigError). */
  readonly balances?: Readonly<Record<string, string>>;
}): BacktestSetup {
  const weth = s.weth?.toLowerCase();
  const known: PaymentToken[] = [
    ...(weth !== undefined ? [{ address: weth as Address, symbol: 'WETH', decimals: 18 }] : []),
    ...s.tokens.filter((t) => t.address.toLowerCase() !== weth),
  ];
  return {
    chain: s.chain,
    collections: [...s.collections],
    strategies: s.strategies.map((x) => ({ id: x.id, module: x.module, params: x.params })),
    ...(s.baseDir !== undefined ? { baseDir: s.baseDir } : {}),
    ...(s.strategiesDir !== undefined ? { strategiesDir: s.strategiesDir } : {}),
    risk: riskLimitsFromConfig(s.risk),
    timing: engineTimingFromConfig(s.engine),
    market: { staleAfterMs: s.market.staleAfterMs, readsPerHour: s.market.readsPerHour },
    tokens: [...s.tokens],
    wallet: (s.wallet?.toLowerCase() as Address | undefined) ?? BACKTEST_WALLET,
    pollIntervalMs: s.pollIntervalMs,
    ...(weth !== undefined ? { weth } : {}),
    ...(s.balances !== undefined ? { balances: paperBalancesOf(s.balances, known) } : {}),
  };
}

/** What a backtest's setup and a tape say to each other before the replay (see checkSetupAgainstTape). */
export interface SetupCheck {
  /** Each makes the backtest pointless: refuse it (`hint` says what to do). */
  readonly errors: readonly { readonly message: string; readonly hint: string }[];
  /** Each is said, and the backtest runs. */
  readonly warnings: readonly string[];
}

/**
 * The setup's chain and collections against the tape's header: none of the collections on the tape
 * is an error, some missing a warning (strategies trading them see nothing of them), another chain
 * a warning (the replay runs on the tape's: its payment tokens and addresses).
 */
export function checkSetupAgainstTape(
  setup: Pick<BacktestSetup, 'chain' | 'collections'>,
  tape: Pick<TapeHeader, 'chain' | 'collections'>,
): SetupCheck {
  const errors: { message: string; hint: string }[] = [];
  const warnings: string[] = [];
  if (setup.chain !== undefined && tape.chain !== setup.chain)
    warnings.push(
      `the tape is of ${tape.chain} and the config's chain is ${setup.chain}: the replay runs on the tape's (its payment tokens and addresses)`,
    );
  const onTape = new Set(tape.collections);
  const missing = setup.collections.filter((c) => !onTape.has(c));
  const recorded = tape.collections.join(', ');
  if (missing.length > 0 && missing.length === setup.collections.length)
    errors.push({
      message: `the tape holds none of the config's collections (${missing.join(', ')}); it recorded ${recorded}`,
      hint: 'backtest a config that trades what the tape recorded, or record those collections: harpoon record --config C --out T',
    });
  else if (missing.length > 0) {
    const them = missing.length === 1 ? 'it' : 'them';
    warnings.push(
      `the tape holds no market of ${missing.join(', ')} (it recorded ${recorded}): strategies trading ${them} see nothing of ${them} in this backtest`,
    );
  }
  return { errors, warnings };
}

/**
 * The wallet a backtest trades as, against the one the tape names (a trading daemon's
 * `market.record`: the survey's wallet, its first header's or a later one's): that wallet's orders
 * on the tape were the daemon's own, so a config that names no `wallet.address` trades as it (said
 * in `note`: strategies then leave those orders alone, as they did live, instead of bidding against
 * them); a config that names another is kept, with a `warning` (that wallet's orders are another
 * trader's in this backtest).
 */
export function walletForTape(
  setup: BacktestSetup,
  tape: Pick<TapeSurvey, 'wallet'>,
): { readonly setup: BacktestSetup; readonly note?: string; readonly warning?: string } {
  const recorded = tape.wallet;
  if (recorded === undefined || recorded === setup.wallet) return { setup };
  if (setup.wallet === BACKTEST_WALLET)
    return {
      setup: { ...setup, wallet: recorded as Address },
      note: `the tape was recorded by a daemon trading as ${recorded}: this backtest trades as it (the config names no wallet.address of its own), so that wallet's orders on the tape are ours`,
    };
  return {
    setup,
    warning: `the tape was recorded by a daemon trading as ${recorded} and this backtest trades as ${setup.wallet} (wallet.address): ${recorded}'s orders on the tape are another trader's here`,
  };
}

/** One parameter override: `strategyId.param.path` = value. */
export interface ParamOverride {
  readonly strategy: string;
  readonly path: readonly string[];
  readonly value: unknown;
}

/** The setup with `overrides` applied to the strategies' params (unknown strategy ids refused). */
export function withOverrides(setup: BacktestSetup, overrides: readonly ParamOverride[]): BacktestSetup {
  if (overrides.length === 0) return setup;
  const strategies = setup.strategies.map((s) => ({ ...s, params: structuredClone(s.params) }));
  for (const o of overrides) {
    const s = strategies.find((x) => x.id === o.strategy);
    if (s === undefined)
      throw new RangeError(
        `no strategy '${o.strategy}' in the config (strategies: ${strategies.map((x) => x.id).join(', ')})`,
      );
    let target = (s.params ?? {}) as Record<string, unknown>;
    s.params = target;
    for (const k of o.path.slice(0, -1)) {
      const next = target[k];
      if (next === null || typeof next !== 'object') target[k] = {};
      target = target[k] as Record<string, unknown>;
    }
    const last = o.path[o.path.length - 1] as string;
    // a number where the config has text (an amount such as maxPrice: "0.05") is given as text
    target[last] =
      typeof o.value === 'number' && typeof target[last] === 'string' ? String(o.value) : o.value;
  }
  return { ...setup, strategies };
}
