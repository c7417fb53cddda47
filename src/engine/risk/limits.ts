// Risk limits as plain values (no config import here; see ../config.ts for the mapping).
import type { PaymentToken } from '../../domain/events.ts';

/** Limits for one payment token. Amounts are in the token's smallest unit. */
export interface TokenLimits {
  /**
   * Total the daemon may commit in this token: everything spent so far (ledger) + worst case of
   * all open offers filling at once + intents in flight. null = no overall budget (caps only).
   */
  readonly budget: bigint | null;
  /** Worst case of all open offers filling at once. */
  readonly maxExposure: bigint;
  /** Rolling 24 h: spend + worst-case open exposure + in flight may not exceed this. */
  readonly maxSpendPerDay: bigint;
  /** Highest price per item (offer per unit, buy per unit, mint per token). */
  readonly maxPricePerItem: bigint;
}

export interface CollectionLimits {
  /** Worst-case exposure of open offers in this collection. */
  readonly maxExposure?: bigint;
  /** Rolling 24 h spend in this collection (buys, fills, mints). */
  readonly maxSpendPerDay?: bigint;
  /** Items bought (buys + filled offers) in this collection per rolling 24 h. */
  readonly maxItemsPerDay?: number;
}

export interface StrategyLimits {
  /** Budget per token (key: lower-case address or upper-case symbol), same meaning as TokenLimits.budget. */
  readonly budgets: ReadonlyMap<string, bigint>;
}

export interface RiskLimits {
  /** Keyed by lower-case address or upper-case symbol. */
  readonly tokens: ReadonlyMap<string, TokenLimits>;
  /** Used for 18-decimal tokens named ETH or WETH that have no entry in `tokens`. */
  readonly ethLike?: TokenLimits;
  readonly strategies: ReadonlyMap<string, StrategyLimits>;
  readonly collectionDefaults: CollectionLimits;
  readonly collections: ReadonlyMap<string, CollectionLimits>;
  /** Offers and buys at most this many bps of the (trait) floor; 10000 = at the floor. */
  readonly maxPriceVsFloorBps: number;
  /** A floor older than this is not a reference (ms). */
  readonly floorMaxAgeMs: number;
  /** No trading on a collection whose newest information is older than this (ms). */
  readonly staleAfterMs: number;
  /** Window of the daily cap (ms); 24 h. */
  readonly dayMs: number;
  /** Never sell below the cost basis by more than this (bps) without a stop-loss rule; default 2000. */
  readonly maxLossBps?: number;
  /** Never list or accept below the fresh floor by more than this (bps); default 1500. */
  readonly maxUnderFloorBps?: number;
}

export const DEFAULT_RISK_TIMING = Object.freeze({
  maxPriceVsFloorBps: 10_000,
  floorMaxAgeMs: 15 * 60_000,
  staleAfterMs: 5 * 60_000,
  dayMs: 86_400_000,
});

/** The limits that apply to `token`, or undefined when none are configured (risk refuses it). */
export function limitsFor(limits: RiskLimits, token: PaymentToken): TokenLimits | undefined {
  return (
    limits.tokens.get(token.address.toLowerCase()) ??
    limits.tokens.get(token.symbol.toUpperCase()) ??
    (token.decimals === 18 && /^W?ETH$/i.test(token.symbol) ? limits.ethLike : undefined)
  );
}

export function strategyBudget(limits: RiskLimits, strategyId: string, token: PaymentToken): bigint | null {
  const s = limits.strategies.get(strategyId);
  if (s === undefined) return null;
  return s.budgets.get(token.address.toLowerCase()) ?? s.budgets.get(token.symbol.toUpperCase()) ?? null;
}

export function collectionLimits(limits: RiskLimits, collection: string): CollectionLimits {
  const own = limits.collections.get(collection);
  return own === undefined ? limits.collectionDefaults : { ...limits.collectionDefaults, ...own };
}

/**
 * Which budget a token's amounts count against: ETH and WETH share the top-level ETH limits
 * (`eth-like`: an offer filled in WETH and a listing bought in ETH both spend the same money);
 * a token with its own entry in `tokens` has its own account.
 */
export function accountOf(limits: RiskLimits, token: PaymentToken): string {
  if (limits.tokens.has(token.address.toLowerCase())) return token.address.toLowerCase();
  if (limits.tokens.has(token.symbol.toUpperCase())) return `symbol:${token.symbol.toUpperCase()}`;
  if (limits.ethLike !== undefined && token.decimals === 18 && /^W?ETH$/i.test(token.symbol))
    return 'eth-like';
  return token.address.toLowerCase();
}
