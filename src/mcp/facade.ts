// What the agent tools see of a running daemon (the facade), and how the daemon's composition
// root builds it from its parts. Reading only, except the switches; `simulate` runs a proposed
// intent through the config's intent guard, risk (its preview: nothing reserved, nothing counted)
// and, for fills, the calldata guard over the API's fulfillment data — and executes nothing.
import type { DecisionRow } from '../daemon/console.ts';
import type { DaemonStatus } from '../daemon/status.ts';
import type { PaymentToken } from '../domain/events.ts';
import type { ExecutionContext, IntentGuard } from '../engine/ports.ts';
import type { RiskManager } from '../engine/risk/manager.ts';
import { BaseError } from '../errors/index.ts';
import type { OrderLedger } from '../ledger/index.ts';
import type { CollectionSnapshot, MarketSnapshot } from '../market/snapshot.ts';
import { Priority } from '../ratelimit/types.ts';
import type { Holding, HoldingsView, Intent } from '../strategy.ts';

/** One decision of the engine: an intent's outcome and why (as the operator's console keeps them). */
export type Decision = DecisionRow;

/** One stage of a simulation: passed, refused (with the code and text the daemon would log), or not run. */
export interface SimulationStage {
  readonly stage: 'intent_guard' | 'risk' | 'calldata_guard';
  readonly result: 'pass' | 'refused' | 'not_applicable';
  readonly code?: string;
  readonly message?: string;
}

export interface Simulation {
  /** `would_proceed`: every stage passed (the executor would now sign and send); nothing was executed. */
  readonly verdict: 'would_proceed' | 'refused';
  readonly executed: false;
  readonly strategy: string;
  readonly intent: Intent;
  readonly stages: readonly SimulationStage[];
}

/** What the marketplace says a collection is: free text its owner wrote. */
export interface CollectionAbout {
  readonly name: string;
  readonly description: string | null;
}

/** A running daemon as the agent tools see it. */
export interface DaemonFacade {
  status(): DaemonStatus;
  /** What we hold, with cost basis and our listing on it. */
  holdings(): readonly Holding[];
  /** Newest first, at most `limit`. */
  decisions(limit: number): readonly Decision[];
  /** The configured collections. */
  collections(): readonly string[];
  /** The market view of one collection (undefined: not watched). */
  market(slug: string): CollectionSnapshot | undefined;
  /** The collection's name and description as the marketplace gives them (text from the market). */
  about(slug: string): Promise<CollectionAbout | undefined>;
  /** The chain the daemon trades on (`ethereum`). */
  chain(): string;
  /** A payment token by address (the config's tokens; the zero address is ETH). */
  tokenOf(address: string): PaymentToken;
  simulate(strategy: string, intent: Intent): Promise<Simulation>;
  /** The configuration in force, every secret redacted (safe to show). */
  config(): Readonly<Record<string, unknown>>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  kill(reason: string): Promise<void>;
}

/** The daemon's parts the facade reads (each may be absent while it starts or stops). */
export interface DaemonFacadeParts {
  readonly status: () => DaemonStatus;
  readonly config: () => Readonly<Record<string, unknown>>;
  readonly collections: readonly string[];
  readonly chain: string;
  readonly tokenOf: (address: string) => PaymentToken;
  readonly now: () => number;
  readonly market: () => MarketSnapshot | undefined;
  /** The collection's name and description from the API (one read); absent: not shown. */
  readonly about?: (slug: string) => Promise<CollectionAbout>;
  readonly holdings: () => HoldingsView | undefined;
  readonly risk: () => RiskManager | undefined;
  readonly orders: () => OrderLedger | undefined;
  /** The config's intent guard (collections and tokens). */
  readonly intentGuard: IntentGuard;
  /** The engine's recent decisions, newest first. */
  readonly decisions: () => readonly Decision[];
  /**
   * The calldata guard over a fill's fulfillment data (buy_listing, accept_offer): asks the API for
   * the transaction and checks it against the intent, signing and sending nothing; throws the
   * guard's refusal. Absent: that stage is not run (paper mode has no transaction to check).
   */
  readonly calldata?: (intent: Intent) => Promise<void>;
  readonly pause: () => Promise<void>;
  readonly resume: () => Promise<void>;
  readonly kill: (reason: string) => Promise<void>;
}

const refusedBy = (stage: SimulationStage['stage'], e: unknown): SimulationStage => {
  if (e instanceof BaseError) return { stage, result: 'refused', code: e.code, message: e.shortMessage };
  return { stage, result: 'refused', code: 'error', message: e instanceof Error ? e.message : String(e) };
};

/** Runs a proposed intent through the intent guard, risk and (fills) the calldata guard; executes nothing. */
export async function simulateIntent(
  p: DaemonFacadeParts,
  strategy: string,
  intent: Intent,
): Promise<Simulation> {
  const stages: SimulationStage[] = [];
  const done = (): Simulation => ({
    verdict: stages.some((s) => s.result === 'refused') ? 'refused' : 'would_proceed',
    executed: false,
    strategy,
    intent,
    stages,
  });
  const market = p.market();
  const orders = p.orders();
  const risk = p.risk();
  if (market === undefined || orders === undefined || risk === undefined) {
    throw new BaseError('daemon_not_running', 'the daemon is not running yet: nothing to simulate against');
  }
  const now = p.now();
  const ctx: ExecutionContext = {
    intentId: 'simulation',
    orders,
    strategyId: strategy,
    now,
    market,
    priority: Priority.analytics,
    coalesceKey: `${strategy}|${intent.target}`,
  };
  try {
    await p.intentGuard.check(intent, ctx);
    stages.push({ stage: 'intent_guard', result: 'pass' });
  } catch (e) {
    stages.push(refusedBy('intent_guard', e));
    return done();
  }
  const holdings = p.holdings();
  const refusal = risk.preview(intent, {
    strategyId: strategy,
    market,
    now,
    ...(holdings !== undefined ? { holdings } : {}),
  });
  if (refusal !== null) {
    stages.push({ stage: 'risk', result: 'refused', code: refusal.code, message: refusal.message });
    return done();
  }
  stages.push({ stage: 'risk', result: 'pass' });
  if ((intent.kind === 'buy_listing' || intent.kind === 'accept_offer') && p.calldata !== undefined) {
    try {
      await p.calldata(intent);
      stages.push({ stage: 'calldata_guard', result: 'pass' });
    } catch (e) {
      stages.push(refusedBy('calldata_guard', e));
    }
  } else {
    stages.push({
      stage: 'calldata_guard',
      result: 'not_applicable',
      message:
        intent.kind === 'buy_listing' || intent.kind === 'accept_offer'
          ? 'paper mode: no transaction to check'
          : intent.kind === 'swap' || intent.kind === 'mint'
            ? 'the transaction is built at execution time (quote or mint data), checked by the guard then'
            : 'no transaction: orders are EIP-712 typed data built and signed locally',
    });
  }
  return done();
}

/** The facade over the daemon's parts (built by the composition root). */
export function createDaemonFacade(p: DaemonFacadeParts): DaemonFacade {
  return {
    status: () => p.status(),
    holdings: () => p.holdings()?.all() ?? [],
    decisions: (limit) => p.decisions().slice(0, limit),
    collections: () => p.collections,
    market: (slug) => (p.collections.includes(slug) ? p.market()?.collection(slug) : undefined),
    about: async (slug) =>
      p.about !== undefined && p.collections.includes(slug) ? p.about(slug) : undefined,
    chain: () => p.chain,
    tokenOf: (address) => p.tokenOf(address),
    simulate: (strategy, intent) => simulateIntent(p, strategy, intent),
    config: () => p.config(),
    pause: () => p.pause(),
    resume: () => p.resume(),
    kill: (reason) => p.kill(reason),
  };
}
