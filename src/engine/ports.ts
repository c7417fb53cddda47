// The ports the engine is wired to. Only the future src/daemon picks concrete adapters (the SQLite
// store, the live/paper executors, the calldata guard, the scheduler, the market view); tests and
// benchmarks use the in-memory implementations in ./memory.ts.
import type { OrderHash } from '../domain/ids.ts';
import type { OrderLedger } from '../ledger/index.ts';
import type { MarketSnapshot } from '../market/snapshot.ts';
import type { Priority } from '../ratelimit/types.ts';
import type { Balances, DropsView, HoldingsView, Intent, NftTraitsView, PricesView } from '../strategy.ts';

/** Epoch milliseconds. */
export interface EngineClock {
  now(): number;
}

export interface ExecutionContext {
  readonly intentId: string;
  /** The engine's order ledger: an executor records every order it posts (and what it learns of it) there. */
  readonly orders: OrderLedger;
  readonly strategyId: string;
  readonly now: number;
  readonly market: MarketSnapshot;
  /** Priority for the rate-limit scheduler's jobs of this intent (snipe > cancel > bid refresh > trade). */
  readonly priority: Priority;
  /** Coalescing key for the scheduler's jobs (strategy + target). */
  readonly coalesceKey: string;
  /**
   * ReplaceOffer: true when risk found that the old and the new order fit together under every
   * cap, so the new one may be posted while the old one still counts (its cancel not assured yet);
   * false: the old order must be really gone before the new one is posted.
   */
  readonly replaceOverlap?: boolean;
  /**
   * CancelOrder: the order must be really gone, not only cancelled off-chain while a fulfillment
   * signature may still be used (the kill switch): the executor cancels on chain if it has to.
   */
  readonly mustBeGone?: boolean;
}

/** What an executor reports for an intent it carried out. */
export interface ExecutionResult {
  /** New order (place/replace offer). */
  readonly orderHash?: OrderHash;
  /** What was actually paid (buy, mint, swap amountIn), in the intent's payment token. */
  readonly spent?: bigint;
  readonly txHash?: string;
}

/**
 * Carries out one intent, live or on paper. Throws:
 * - RejectedError: definitively not done (API 4xx, guard refusal, precondition failed);
 * - TransientError with maybeProcessed=false: definitively not done (retry is the strategy's call);
 * - TransientError with maybeProcessed=true (or any other error): outcome UNKNOWN, to reconcile.
 * ReplaceOffer: the old order is cancelled before the new one is posted; see replaceOverlap.
 * Orders go into the engine's ledger (`post` before the post, then news): the ledger, not the
 * result, is what risk counts.
 */
export interface Executor {
  readonly mode: string;
  execute(intent: Intent, ctx: ExecutionContext): Promise<ExecutionResult>;
}

/** Last check before execution (e.g. allowlists, simulation). Throws RejectedError to refuse. */
export interface IntentGuard {
  check(intent: Intent, ctx: ExecutionContext): void | Promise<void>;
}

export type IntentState = 'pending' | 'sent' | 'unknown' | 'done' | 'failed';

export interface JournalRecord {
  readonly id: string;
  readonly strategyId: string;
  readonly intent: Intent;
  readonly state: IntentState;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly orderHash?: OrderHash;
  readonly spent?: bigint;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface JournalPatch {
  readonly state: IntentState;
  readonly at: number;
  readonly orderHash?: OrderHash;
  readonly spent?: bigint;
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * Write-ahead journal of intents. `append` happens before anything is sent; a crash between
 * `sent` and `done` leaves the record `sent`, which start-up reconciliation resolves.
 * (The store keeps intents as text through store/json.ts, bigints intact.)
 */
export interface IntentJournal {
  append(record: JournalRecord): void | Promise<void>;
  update(id: string, patch: JournalPatch): void | Promise<void>;
  list(filter?: {
    readonly states?: readonly IntentState[];
  }): readonly JournalRecord[] | Promise<readonly JournalRecord[]>;
}

/**
 * Per-strategy persisted state: JSON values by key. `save` gets only the keys a hook touched, so
 * a strategy with a large state pays only for what it changed.
 */
export interface StrategyStateStore {
  load(
    strategyId: string,
  ): Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;
  /** Only what a hook changed: keys set (values as JSON text, serialized once) and keys deleted. */
  save(
    strategyId: string,
    changed: Readonly<Record<string, string>>,
    deleted: readonly string[],
  ): void | Promise<void>;
}

export interface SpendEntry {
  readonly at: number;
  readonly strategyId: string;
  readonly collection: string | null;
  /** Lower-case token address. */
  readonly token: string;
  /**
   * The budget the spend counts against: `eth-like` for ETH/WETH under the top-level ETH limits,
   * otherwise the token (see accountOf in risk/limits.ts).
   */
  readonly account: string;
  readonly amount: bigint;
  /** buy (listing bought), fill (own offer filled), mint, swap (counts only against the daily cap). */
  readonly kind: 'buy' | 'fill' | 'mint' | 'swap';
  /** Items received (buys, fills, mints), for per-collection item caps. */
  readonly items: bigint;
  readonly intentId: string | null;
}

/** Spend ledger (fills, buys, mints, swaps) for budgets and the daily cap. */
export interface SpendLedger {
  record(entry: SpendEntry): void | Promise<void>;
  /** Every entry (loaded once at start; the risk manager keeps its own running totals). */
  all(): readonly SpendEntry[] | Promise<readonly SpendEntry[]>;
}

/** How many write-group requests the rate-limit scheduler can serve now. */
export interface WriteBudget {
  writesAvailable(): number;
}

/** Where hook contexts come from (the market view). */
export interface MarketSource {
  snapshot(): MarketSnapshot;
  /** The market view's `changeStamp` (strategies that follow `changes` need it; absent: every event reaches them). */
  changeStamp?(slug: string, mask: number): number;
  /** The wallet's balances, as the strategy `strategyId` reads them (a backtest notes who asked). */
  balances?(strategyId: string): Balances | null;
  /** Drops, as the strategy `strategyId` reads them. */
  drops?(strategyId: string): DropsView;
  /** NFT traits as learned (market/nft-traits.ts; a backtest: as recorded by then); default none known. */
  nfts?(): NftTraitsView;
  /** NFTs we hold (cost basis, our listings on them); default none. */
  holdings?(): HoldingsView;
  /** Market prices of the payment tokens, as the strategy `strategyId` reads them; default none known. */
  prices?(strategyId: string): PricesView;
}

/**
 * Finds out what became of an intent left `sent`/`unknown` (API order by hash, chain receipts,
 * Seaport order status). `unknown` keeps it held: its worst case stays counted and its target
 * blocked.
 */
export interface Reconciler {
  reconcile(
    record: JournalRecord,
  ): Promise<{ status: 'done'; result: ExecutionResult } | { status: 'failed' } | { status: 'unknown' }>;
}

/** Cron: calls `fn` on `expression`; the handle stops it. */
export interface CronPort {
  validate(expression: string): boolean;
  schedule(expression: string, fn: () => void): { stop(): void };
}
