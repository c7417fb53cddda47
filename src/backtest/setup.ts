/**
 * What a backtest takes from a harpoon config: the strategies and their params, risk, engine
 * timing, the market view's settings and the payment tokens — the same keys the daemon reads — and
 * parameter overrides (a sweep's combination: `sniper.discountBps=2000`).
 */
import { dirname } from 'node:path';
import type { Config } from '../config/types.ts';
import { collectionsOf, type DaemonOptions, tokensOfStrategies } from '../daemon/options.ts';
import type { PaymentToken } from '../domain/events.ts';
import type { Address } from '../domain/ids.ts';
import { engineTimingFromConfig, riskLimitsFromConfig } from '../engine/config.ts';
import type { RiskLimits } from '../engine/risk/limits.ts';

export interface BacktestSetup {
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
}

/** The wallet of a backtest when the config names none (never a real one). */
export const BACKTEST_WALLET = '0x00000000000000000000000000000000000b7e57' as Address;

export function backtestSetupFromConfig(config: Config, configPath?: string): BacktestSetup {
  return setupOf({
    collections: collectionsOf(config),
    strategies: config.strategies,
    ...(configPath !== undefined ? { baseDir: dirname(configPath) } : {}),
    risk: config.risk,
    engine: config.engine,
    market: config.market,
    tokens: tokensOfStrategies(config.strategies),
    wallet: config.wallet.address,
    pollIntervalMs: config.daemon.pollIntervalMs,
  });
}

/**
 * The setup of a daemon's options (what `harpoon run` would trade with); the wallet is the
 * daemon's when it is known (`wallet.address`, or the key's address passed as `wallet`).
 */
export function backtestSetupFromOptions(o: DaemonOptions, wallet?: string): BacktestSetup {
  return setupOf({
    collections: o.collections,
    strategies: o.strategies,
    ...(o.baseDir !== undefined ? { baseDir: o.baseDir } : {}),
    ...(o.strategiesDir !== undefined ? { strategiesDir: o.strategiesDir } : {}),
    risk: o.risk,
    engine: o.engine,
    market: o.market,
    tokens: o.tokens,
    wallet: wallet ?? (o.wallet.source === 'none' ? o.wallet.address : undefined),
    pollIntervalMs: o.pollIntervalMs,
  });
}

/** One path from the sections a config and a daemon's options share. */
function setupOf(s: {
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
}): BacktestSetup {
  return {
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
