// The strategy host: runs hooks (events, cron, order updates) through the safe runner, and pushes
// the intents they return through the pipeline: coalesce -> risk -> journal (write-ahead) -> guard
// -> executor. Under a short write budget it spends writes on the highest-value intents first and
// counts what it skipped, with reasons.
import { type MarketEvent, type NftRef, nftKey, type PaymentToken } from '../domain/events.ts';
import { type Address, isAddress, type OrderHash } from '../domain/ids.ts';
import {
  BaseError,
  ConfigError,
  RejectedError,
  type StrategyError,
  TransientError,
} from '../errors/index.ts';
import { createOrderLedger, type LedgerChange, type OrderLedger } from '../ledger/index.ts';
import type { MarketSnapshot, OwnOrder } from '../market/snapshot.ts';
import { createLogger, type Logger } from '../observability/index.ts';
import { Priority } from '../ratelimit/types.ts';
import {
  type Balances,
  type BudgetView,
  cancelOrder,
  type DropsView,
  type HoldingsView,
  type Intent,
  type NftTraitsView,
  type OrderUpdate,
  type PricesView,
  type StrategyContext,
} from '../strategy.ts';
import { plain } from './codec.ts';
import { nodeCron } from './cron.ts';
import type { LoadedStrategy } from './loader.ts';
import type {
  CronPort,
  EngineClock,
  ExecutionContext,
  ExecutionResult,
  Executor,
  IntentGuard,
  IntentJournal,
  MarketSource,
  Reconciler,
  SpendLedger,
  StrategyStateStore,
  WriteBudget,
} from './ports.ts';
import type { RiskLimits } from './risk/limits.ts';
import { RiskManager, type RiskStatus } from './risk/manager.ts';
import { type HookName, MemoryStrategyState, type RunnerStatus, StrategyRunner } from './runner.ts';

export interface EngineOptions {
  readonly strategies: readonly LoadedStrategy[];
  readonly market: MarketSource;
  readonly executor: Executor;
  /**
   * The one ledger of our orders (risk counts from it; strategies see their orders in it; its
   * changes reach their onOrderUpdate hooks). The owner feeds it market events. Default: an
   * in-memory ledger.
   */
  readonly orders?: OrderLedger;
  readonly journal: IntentJournal;
  readonly stateStore: StrategyStateStore;
  /** A RiskManager, or the limits to build one. */
  readonly risk: RiskManager | RiskLimits;
  readonly guard?: IntentGuard;
  readonly spendLedger?: SpendLedger;
  /** Default: unlimited. */
  readonly writeBudget?: WriteBudget;
  readonly clock?: EngineClock;
  readonly cron?: CronPort;
  readonly logger?: Logger;
  readonly wallet?: Address | null;
  /** Per-hook timeout; default 2000 ms. */
  readonly hookTimeoutMs?: number;
  /** Errors within errorWindowMs that disable a strategy; default 5 in 60 s. */
  readonly maxErrors?: number;
  readonly errorWindowMs?: number;
  /** Executions at once; default 8. */
  readonly maxInFlight?: number;
  /** An intent waiting (write budget, in-flight slots) longer than this is skipped; default 30 s. */
  readonly queueTtlMs?: number;
  /** While intents wait for write budget, drain again this often (ms); 0 = only on activity. Default 1000. */
  readonly retryIntervalMs?: number;
  /** Settles intents left `sent`/`unknown` by a previous run, at start, before any hook runs. */
  readonly reconciler?: Reconciler;
  /** Write-group requests an intent costs. */
  readonly writeCost?: (intent: Intent) => number;
  /** Cancel a strategy's open offers when it gets disabled; default true. */
  readonly cancelOnDisable?: boolean;
  /**
   * Every intent's outcome as the strategy is told it (done, failed, unknown, refused by risk or
   * the guard, skipped), with the reason: the operator's console shows them. Must not throw.
   */
  readonly onOutcome?: (o: IntentOutcome) => void;
}

/** What became of one intent, and why (see EngineOptions.onOutcome). */
export interface IntentOutcome {
  readonly at: number;
  readonly intentId: string;
  readonly strategyId: string;
  readonly kind: Intent['kind'];
  readonly target: string;
  readonly status: 'done' | 'failed' | 'unknown' | 'rejected' | 'skipped';
  /** The refusal's or failure's code (e.g. `risk_max_exposure`, `write_budget`); null when done. */
  readonly code: string | null;
  readonly message: string | null;
}

/** Writes an intent costs by default: build + post for criteria offers, +1 cancel for a replace. */
export function defaultWriteCost(intent: Intent): number {
  switch (intent.kind) {
    case 'place_offer':
      return intent.offer.type === 'item' ? 1 : 2;
    case 'replace_offer':
      return intent.target.startsWith('offer:item:') ? 2 : 3;
    case 'cancel_order':
    case 'mint':
    case 'place_listing':
      return 1;
    case 'replace_listing':
      return 2;
    case 'buy_listing':
    case 'swap':
    case 'accept_offer':
      return 0;
  }
}

interface Queued {
  readonly id: string;
  readonly key: string;
  readonly strategyId: string;
  readonly intent: Intent;
  readonly createdAt: number;
  readonly seq: number;
  waitingFor: 'write_budget' | 'slot' | null;
}

export interface SkipRecord {
  readonly at: number;
  readonly strategyId: string;
  readonly target: string;
  readonly kind: Intent['kind'];
  readonly reason: string;
}

export interface EngineStatus {
  readonly mode: string;
  readonly paused: boolean;
  readonly killed: boolean;
  readonly strategies: readonly (RunnerStatus & { readonly module: string; readonly version: string })[];
  readonly events: number;
  readonly intents: {
    readonly emitted: number;
    readonly accepted: number;
    readonly done: number;
    readonly failed: number;
    readonly unknown: number;
    readonly rejected: number;
    readonly queued: number;
    readonly inFlight: number;
  };
  readonly skipped: {
    readonly total: number;
    readonly byReason: Readonly<Record<string, number>>;
    readonly recent: readonly SkipRecord[];
  };
  readonly writesAvailable: number;
  readonly unresolved: readonly string[];
  readonly risk: RiskStatus;
}

/** State-store id of the engine's own switches (a strategy id cannot start with '_'). */
const SWITCH_ID = '_engine';
const RISK_SWEEP_CRON = '* * * * *';
/**
 * A hook's context. What the hook reads is read when it first asks (most hooks look at a few of
 * these), then kept: one hook sees one market snapshot, one set of holdings. A class (getters on
 * its prototype) because one is made for every hook that runs.
 */
class HookContext implements StrategyContext<unknown> {
  readonly id: string;
  readonly now: number;
  readonly clock: EngineClock;
  readonly state: MemoryStrategyState;
  readonly params: unknown;
  readonly log: Logger;
  readonly wallet: Address | null;
  readonly #engine: Engine;
  readonly #m: MarketSource;
  #market: MarketSnapshot | undefined;
  #ownOrders: readonly OwnOrder[] | undefined;
  #balances: Balances | null | undefined;
  #drops: DropsView | undefined;
  #nfts: NftTraitsView | undefined;
  #holdings: HoldingsView | undefined;
  #prices: PricesView | undefined;
  #budget: BudgetView | undefined;

  constructor(
    engine: Engine,
    market: MarketSource,
    clock: EngineClock,
    wallet: Address | null,
    slot: Slot,
    now: number,
  ) {
    this.#engine = engine;
    this.#m = market;
    this.id = slot.loaded.id;
    this.now = now;
    this.clock = clock;
    this.state = slot.state;
    this.params = slot.loaded.params;
    this.log = slot.log;
    this.wallet = wallet;
  }
  get market(): MarketSnapshot {
    this.#market ??= this.#m.snapshot();
    return this.#market;
  }
  get ownOrders(): readonly OwnOrder[] {
    this.#ownOrders ??= this.#engine.ownOrdersOf(this.id);
    return this.#ownOrders;
  }
  get budget(): BudgetView {
    if (this.#budget === undefined) {
      const engine = this.#engine;
      const { id, now } = this;
      this.#budget = { remaining: (token: PaymentToken | string) => engine.budgetRemaining(id, token, now) };
    }
    return this.#budget;
  }
  get balances(): Balances | null {
    if (this.#balances === undefined) this.#balances = this.#m.balances?.(this.id) ?? null;
    return this.#balances;
  }
  get drops(): DropsView {
    this.#drops ??= this.#m.drops?.(this.id) ?? emptyDrops;
    return this.#drops;
  }
  get nfts(): NftTraitsView {
    this.#nfts ??= this.#m.nfts?.() ?? emptyNfts;
    return this.#nfts;
  }
  get holdings(): HoldingsView {
    this.#holdings ??= this.#m.holdings?.() ?? emptyHoldings;
    return this.#holdings;
  }
  get prices(): PricesView {
    this.#prices ??= this.#m.prices?.(this.id) ?? emptyPrices;
    return this.#prices;
  }
}

const emptyDrops: DropsView = Object.freeze({ get: () => undefined });
const emptyNfts: NftTraitsView = Object.freeze({ get: () => undefined });
const emptyHoldings: HoldingsView = Object.freeze({ all: () => [], get: () => undefined });
const emptyPrices: PricesView = Object.freeze({ get: () => undefined });
/** A strategy's repeated failures of one kind and code are told at most this often. */
const FAILURE_NOTE_MS = 60_000;
const CLASS_RANK: Record<Intent['kind'], number> = {
  cancel_order: 0,
  buy_listing: 1,
  replace_offer: 2,
  place_offer: 2,
  mint: 2,
  swap: 2,
  accept_offer: 1,
  replace_listing: 2,
  place_listing: 2,
};

interface Slot {
  readonly loaded: LoadedStrategy;
  readonly runner: StrategyRunner;
  state: MemoryStrategyState;
  readonly log: Logger;
  /** Follows changes (`subscriptions.changes` or `held`): what its last onEvent per collection saw. */
  readonly gated: boolean;
  readonly seen: Map<string, number>;
  seenHoldings: unknown;
  /** It heard of its orders since its last onEvent (the next event reaches it). */
  orderNews: boolean;
}

export class Engine {
  readonly risk: RiskManager;
  private readonly o: EngineOptions;
  private readonly clock: EngineClock;
  private readonly log: Logger;
  private readonly slots = new Map<string, Slot>();
  private readonly byKind = new Map<string, Slot[]>();
  /** Slots that follow market changes or events on our holdings (see `Subscriptions.changes`). */
  private readonly gatedSlots: Slot[] = [];
  private readonly queue = new Map<string, Queued>();
  /** Failures told per strategy, intent kind and code: when, and how many since (see tellFailure). */
  private readonly failuresTold = new Map<string, { at: number; since: number }>();
  private readonly inFlight = new Map<string, Queued>();
  private readonly executions = new Set<Promise<void>>();
  readonly orders: OrderLedger;
  /** The market as the strategies see it now (what a decision would read). */
  market(): MarketSnapshot {
    return this.o.market.snapshot();
  }
  /** Intents whose outcome is unknown: id -> coalescing key (that key is blocked until settled). */
  private readonly unresolved = new Map<string, string>();
  private readonly skipped = new Map<string, number>();
  /** Strategies the operator paused one by one (saved with the kill/pause switch). */
  private readonly pausedStrategies = new Set<string>();
  private switches: { killed: number | null; paused: number | null; reason: string | null } = {
    killed: null,
    paused: null,
    reason: null,
  };
  private readonly recentSkips: SkipRecord[] = [];
  private readonly cronTasks: { stop(): void }[] = [];
  private pendingWrites = 0;
  private seq = 0;
  private events = 0;
  private counts = { emitted: 0, accepted: 0, done: 0, failed: 0, unknown: 0, rejected: 0 };
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private started = false;
  private stopped = false;
  private closing = false;
  private draining = false;
  private readonly idPrefix: string;

  constructor(options: EngineOptions) {
    this.o = options;
    this.clock = options.clock ?? { now: () => Date.now() };
    this.log = options.logger ?? createLogger({ level: 'silent' });
    this.idPrefix = this.clock.now().toString(36);
    this.orders =
      options.orders ??
      (options.risk instanceof RiskManager
        ? options.risk.orders
        : createOrderLedger({ clock: this.clock, chain: 'ethereum' }));
    this.orders.onChange((c) => this.onOrderChange(c));
    this.risk =
      options.risk instanceof RiskManager
        ? options.risk
        : new RiskManager({
            limits: options.risk,
            orders: this.orders,
            ...(options.spendLedger
              ? {
                  onSpend: (e) => {
                    void Promise.resolve(options.spendLedger?.record(e)).catch((err: unknown) =>
                      this.log.error({ err }, 'spend ledger write failed'),
                    );
                  },
                }
              : {}),
          });
    for (const loaded of options.strategies) {
      const subs = loaded.subscriptions;
      if (this.slots.has(loaded.id))
        throw new ConfigError(`strategy id '${loaded.id}' is used twice`, { code: 'strategy_duplicate' });
      const slot: Slot = {
        loaded,
        state: new MemoryStrategyState(),
        log: this.log.child({ strategy: loaded.id }),
        runner: new StrategyRunner({
          id: loaded.id,
          hookTimeoutMs: options.hookTimeoutMs ?? 2000,
          maxErrors: options.maxErrors ?? 5,
          errorWindowMs: options.errorWindowMs ?? 60_000,
          now: () => this.clock.now(),
          onError: (err) => this.onStrategyError(err),
          onDisabled: (err) => this.onStrategyDisabled(err),
        }),
        gated: subs.parts !== 0 || subs.holdings || subs.held.size > 0,
        seen: new Map(),
        seenHoldings: undefined,
        orderNews: false,
      };
      this.slots.set(loaded.id, slot);
      if (slot.gated) this.gatedSlots.push(slot);
      for (const kind of loaded.subscriptions.events) {
        const list = this.byKind.get(kind);
        if (list) list.push(slot);
        else this.byKind.set(kind, [slot]);
      }
    }
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Loads spend, journal and strategy state; holds the worst case of intents whose outcome is
   * unknown (`sent`/`unknown`, to be reconciled with settleUnknown); runs init hooks; starts cron.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const now = this.clock.now();
    if (this.o.spendLedger) this.risk.loadSpends(await this.o.spendLedger.all());
    for (const r of await this.o.journal.list({ states: ['pending', 'sent', 'unknown'] })) {
      if (r.state === 'pending') {
        await this.o.journal.update(r.id, {
          state: 'failed',
          at: now,
          error: { code: 'not_sent', message: 'the process stopped before the intent was sent' },
        });
      } else if (r.state === 'sent' || r.state === 'unknown') {
        this.unresolved.set(r.id, `${r.strategyId}|${r.intent.target}`);
        this.risk.holdUnknown(r.id, r.strategyId, r.intent);
      }
    }
    // Before any new spend: settle what the reconciler can (API by order hash, chain receipts).
    if (this.o.reconciler)
      for (const r of await this.o.journal.list({ states: ['sent', 'unknown'] })) {
        const outcome = await this.o.reconciler.reconcile(r);
        if (outcome.status !== 'unknown') await this.settleUnknown(r.id, outcome);
      }
    for (const slot of this.slots.values()) {
      const saved = await this.o.stateStore.load(slot.loaded.id);
      slot.state = new MemoryStrategyState(saved ?? {});
    }
    this.syncRisk();
    const sw = (await this.o.stateStore.load(SWITCH_ID))?.switch as
      | { killed: number | null; paused: number | null; reason: string | null; strategies?: unknown }
      | undefined;
    if (sw !== undefined) this.switches = { killed: sw.killed, paused: sw.paused, reason: sw.reason };
    if (sw?.killed != null) await this.kill(sw.reason ?? 'kill switch (before restart)');
    else if (sw?.paused != null) this.risk.pause(sw.paused);
    await Promise.all([...this.slots.values()].map((s) => this.runHook(s, 'init', [])));
    // strategies paused one by one stay paused, after their init (a strategy no longer configured
    // is forgotten)
    if (Array.isArray(sw?.strategies))
      for (const id of sw.strategies)
        if (typeof id === 'string' && this.slots.has(id)) {
          this.slots.get(id)?.runner.pause();
          this.pausedStrategies.add(id);
        }
    const cron = this.o.cron ?? nodeCron;
    // The engine's own risk sweep, every minute, whatever the strategies' schedules (and while paused).
    this.cronTasks.push(
      cron.schedule(RISK_SWEEP_CRON, () => {
        if (!this.closing) this.syncRisk();
      }),
    );
    for (const slot of this.slots.values())
      for (const expr of slot.loaded.schedules)
        this.cronTasks.push(cron.schedule(expr, () => void this.tick(slot.loaded.id, expr)));
  }

  /** Stops cron, runs onStop hooks, waits for executions in flight. Open orders are left as they are. */
  async stop(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const t of this.cronTasks.splice(0)) t.stop();
    // onStop may still return intents (e.g. cancels); they run before the engine stops.
    await Promise.all(
      [...this.slots.values()].map(async (s) => {
        await this.runHook(s, 'onStop', [], true);
        s.runner.stop();
      }),
    );
    await this.idle();
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** No hook is queued or running and no execution is in flight (what `idle()` waits for). */
  get settled(): boolean {
    if (this.executions.size > 0) return false;
    for (const s of this.slots.values()) if (!s.runner.settled) return false;
    return true;
  }

  /** Resolves when no hook is running and no execution is in flight. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.settled) return;
      await Promise.all([...this.slots.values()].map((s) => s.runner.idle()));
      if (this.executions.size === 0) return;
      await Promise.all([...this.executions]);
    }
  }

  // ------------------------------------------------------------------ inputs

  /**
   * Feeds one market event to onEvent of every subscribed strategy. Resolves when their hooks
   * have run; returns nothing (synchronously) when the event reaches no strategy.
   */
  onEvent(event: MarketEvent): Promise<void> | undefined {
    if (this.closing) return undefined;
    this.events++;
    if (this.risk.paused || this.risk.killed) return undefined;
    const subs = this.byKind.get(event.kind);
    const work: Promise<void>[] = [];
    if (subs !== undefined)
      for (const slot of subs) {
        const cols = slot.loaded.subscriptions.collections;
        if (cols !== null && !cols.has(event.collection)) continue;
        if (slot.gated) this.reaches(slot, event); // remembers what it will have seen
        const p = this.runHook(slot, 'onEvent', [event]);
        if (p !== undefined) work.push(p);
      }
    for (const slot of this.gatedSlots) {
      if (subs?.includes(slot)) continue;
      const cols = slot.loaded.subscriptions.collections;
      if (cols !== null && !cols.has(event.collection)) continue;
      if (!this.reaches(slot, event)) continue;
      const p = this.runHook(slot, 'onEvent', [event]);
      if (p !== undefined) work.push(p);
    }
    if (work.length === 0) return undefined;
    return work.length === 1 ? work[0] : Promise.all(work).then(() => undefined);
  }

  /**
   * Whether an event reaches a strategy that follows changes (`Subscriptions.changes`, `held`):
   * a followed part of the event's collection or the holdings changed since its last onEvent
   * there, it heard of its orders since, or the event names an NFT we hold in a `held` kind.
   * Remembers what the strategy will have seen when it does.
   */
  private reaches(slot: Slot, event: MarketEvent): boolean {
    const subs = slot.loaded.subscriptions;
    let pass = slot.orderNews;
    if (subs.parts !== 0) {
      const stamp = this.o.market.changeStamp?.(event.collection, subs.parts) ?? -1;
      if (stamp === -1 || slot.seen.get(event.collection) !== stamp) {
        slot.seen.set(event.collection, stamp);
        pass = true;
      }
    }
    if (subs.holdings || subs.held.has(event.kind)) {
      const holdings = this.o.market.holdings?.();
      if (subs.holdings) {
        const all = holdings?.all();
        if (all !== slot.seenHoldings) {
          slot.seenHoldings = all;
          pass = true;
        }
      }
      if (!pass && subs.held.has(event.kind)) {
        const nft = (event as { readonly nft?: NftRef | null }).nft;
        if (nft != null && holdings?.get(nftKey(nft)) !== undefined) pass = true;
      }
    }
    if (pass) slot.orderNews = false;
    return pass;
  }

  /** Runs onTick of one strategy (cron calls this). */
  async tick(strategyId: string, schedule = 'manual'): Promise<void> {
    const slot = this.slots.get(strategyId);
    if (slot === undefined || this.closing) return;
    // The risk sweep (exposure headroom, offers above the floor) runs even while paused.
    this.syncRisk();
    if (this.risk.paused || this.risk.killed) return;
    await this.runHook(slot, 'onTick', [{ schedule, at: this.clock.now() }]);
  }

  // ------------------------------------------------------------------ switches

  /** Kill switch: no new intents; every open offer is cancelled. Latched until resume(). */
  async kill(reason = 'kill switch'): Promise<void> {
    const now = this.clock.now();
    this.risk.kill(now);
    await this.saveSwitches({ killed: now, paused: null, reason });
    this.log.warn({ reason }, 'kill switch: cancelling open offers');
    for (const [key, q] of this.queue)
      if (q.intent.kind !== 'cancel_order') {
        this.queue.delete(key);
        this.skip(q, 'killed');
      }
    for (const o of this.orders.counting())
      if (o.side !== 'listing' && o.state !== 'cancelling')
        this.enqueueSystemCancel(o.orderHash, o.strategyId, reason);
    this.drain();
  }

  /** No hooks, no new intents; open orders and all state stay. */
  async pause(): Promise<void> {
    const now = this.clock.now();
    this.risk.pause(now);
    await this.saveSwitches({ killed: null, paused: now, reason: 'paused' });
  }

  /** Clears pause and kill (both are remembered across restarts until resumed). */
  async resume(): Promise<void> {
    this.risk.resume();
    await this.saveSwitches({ killed: null, paused: null, reason: null });
    this.drain();
  }

  /** Kill and pause survive a restart: kept in the state store under an id no strategy can have. */
  private async saveSwitches(v: {
    killed: number | null;
    paused: number | null;
    reason: string | null;
  }): Promise<void> {
    this.switches = v;
    try {
      await this.o.stateStore.save(
        SWITCH_ID,
        { switch: JSON.stringify({ ...v, strategies: [...this.pausedStrategies] }) },
        [],
      );
    } catch (err) {
      this.log.error({ err }, 'saving the kill/pause switch failed');
    }
  }

  /**
   * Pauses one strategy: its hooks stop running (no new intents from it); its open orders and state
   * stay. Remembered across restarts until resumeStrategy(). False when no such strategy.
   */
  async pauseStrategy(strategyId: string): Promise<boolean> {
    const slot = this.slots.get(strategyId);
    if (slot === undefined) return false;
    slot.runner.pause();
    this.pausedStrategies.add(strategyId);
    await this.saveSwitches(this.switches);
    return true;
  }

  /** Ends the pause of one strategy (a strategy disabled for errors needs enable()). */
  async resumeStrategy(strategyId: string): Promise<boolean> {
    const slot = this.slots.get(strategyId);
    if (slot === undefined) return false;
    slot.runner.resume();
    this.pausedStrategies.delete(strategyId);
    await this.saveSwitches(this.switches);
    this.drain();
    return true;
  }

  /**
   * The operator cancels one of our orders (offer or listing) through the same queue as every
   * cancel. False when the ledger does not count it (unknown, or already gone).
   */
  cancelOrder(orderHash: string, reason = 'operator'): boolean {
    const o = this.orders.counting().find((x) => x.orderHash === orderHash);
    if (o === undefined) return false;
    this.enqueueSystemCancel(o.orderHash, o.strategyId, reason);
    this.drain();
    return true;
  }

  /** Re-enables a strategy that was disabled for repeated errors. */
  enable(strategyId: string): void {
    this.slots.get(strategyId)?.runner.enable();
  }

  /** Resolves an intent whose outcome was unknown (after reconciling it with the API and chain). */
  async settleUnknown(
    intentId: string,
    outcome: { status: 'done'; result: ExecutionResult } | { status: 'failed' },
  ): Promise<void> {
    const now = this.clock.now();
    const rec = (await this.o.journal.list({ states: ['sent', 'unknown'] })).find((r) => r.id === intentId);
    if (rec === undefined) return;
    if (outcome.status === 'done') {
      await this.o.journal.update(intentId, {
        state: 'done',
        at: now,
        ...(outcome.result.orderHash !== undefined ? { orderHash: outcome.result.orderHash } : {}),
        ...(outcome.result.spent !== undefined ? { spent: outcome.result.spent } : {}),
      });
    } else {
      await this.o.journal.update(intentId, {
        state: 'failed',
        at: now,
        error: { code: 'reconciled_not_done', message: 'reconciliation found it was not carried out' },
      });
    }
    this.risk.settle(intentId, outcome, now);
    this.unresolved.delete(intentId);
    this.afterOutcome();
  }

  // ------------------------------------------------------------------ hooks

  private makeCtx(slot: Slot): { ctx: StrategyContext<unknown>; state: MemoryStrategyState } {
    const ctx = new HookContext(
      this,
      this.o.market,
      this.clock,
      this.o.wallet ?? null,
      slot,
      this.clock.now(),
    );
    return { ctx, state: slot.state };
  }

  /** (HookContext) What the risk manager has left for a strategy in a token. */
  budgetRemaining(id: string, token: PaymentToken | string, now: number): bigint | null {
    return this.risk.remaining(id, asToken(token), now);
  }

  /** A strategy's orders as the ledger has them (a cancel under way shows as cancelled). */
  ownOrdersOf(id: string): readonly OwnOrder[] {
    return this.orders.ownOrdersOf(id);
  }

  /**
   * Runs a hook of one strategy and queues its intents. Returns nothing to await when the hook
   * ran at once and synchronously and its state needed no asynchronous save.
   */
  private runHook(
    slot: Slot,
    name: HookName,
    args: readonly unknown[],
    force = false,
    dropIntents = false,
  ): Promise<void> | undefined {
    const def = slot.loaded.definition as unknown as Record<
      HookName,
      ((...a: never[]) => unknown) | undefined
    >;
    const hook = def[name] as ((ctx: StrategyContext<unknown>, ...a: unknown[]) => unknown) | undefined;
    if (hook === undefined) return undefined;
    // events and ticks come at the top of a turn: their hooks may run at once; order updates come
    // from inside the ledger's and the executor's callbacks: theirs wait for the turn to end
    const now = name === 'onEvent' || name === 'onTick';
    const out = slot.runner.run(name, hook, () => this.makeCtx(slot), args, { force, now });
    if (Array.isArray(out)) return this.afterHook(slot, name, out, dropIntents);
    return out.then((intents) => this.afterHook(slot, name, intents, dropIntents));
  }

  /** After a hook: its state saved, then its intents queued. */
  private afterHook(
    slot: Slot,
    name: HookName,
    intents: readonly Intent[],
    dropIntents: boolean,
  ): Promise<void> | undefined {
    if (slot.state.dirty) {
      const { changed, deleted } = slot.state.takeChanges();
      let saving: Promise<void> | undefined;
      try {
        saving = this.o.stateStore.save(slot.loaded.id, changed, deleted) as Promise<void> | undefined;
      } catch (err) {
        slot.log.error({ err }, 'saving strategy state failed');
      }
      if (saving !== undefined)
        return saving.then(
          () => this.queueHookIntents(slot, name, intents, dropIntents),
          (err: unknown) => {
            slot.log.error({ err }, 'saving strategy state failed');
            this.queueHookIntents(slot, name, intents, dropIntents);
          },
        );
    }
    this.queueHookIntents(slot, name, intents, dropIntents);
    return undefined;
  }

  private queueHookIntents(
    slot: Slot,
    name: HookName,
    intents: readonly Intent[],
    dropIntents: boolean,
  ): void {
    if (intents.length > 0 && !dropIntents && (slot.runner.active || name === 'onStop')) {
      this.enqueue(slot.loaded.id, intents);
      this.drain();
    }
  }

  private onStrategyError(err: StrategyError): void {
    this.log.warn({ err: err.toJSON() }, 'strategy hook failed');
  }

  private onStrategyDisabled(err: StrategyError): void {
    const id = err.strategyId;
    this.log.error({ err: err.toJSON() }, 'strategy disabled');
    for (const [key, q] of this.queue)
      if (q.strategyId === id) {
        this.queue.delete(key);
        this.skip(q, 'strategy_disabled');
      }
    if (this.o.cancelOnDisable !== false) {
      for (const e of this.risk.openOffers(id))
        this.enqueueSystemCancel(e.orderHash, id, 'strategy disabled');
      this.drain();
    }
  }

  /** A change in the ledger: fills become spend; the owning strategy hears of fills and ends. */
  private onOrderChange(c: LedgerChange): void {
    const now = this.clock.now();
    if (c.filledUnits > 0n) this.risk.recordFill(c.order, c.filledUnits, c.filledAmount, now);
    const owner = c.order.strategyId;
    let status: Extract<OrderUpdate, { kind: 'order' }>['status'] | null = null;
    const was = c.previous?.state;
    if (c.filledUnits > 0n) status = 'filled';
    else if (c.order.state !== was)
      switch (c.order.state) {
        case 'cancelled':
          status = 'cancelled';
          break;
        case 'expired':
          status = 'expired';
          break;
        case 'invalid':
          status = 'invalid';
          break;
        case 'open':
        case 'partly_filled':
          if (was === 'invalid') status = 'revalidated';
          break;
        default:
          break;
      }
    if (c.filledUnits > 0n || status === 'cancelled' || status === 'expired') this.afterOutcome();
    if (status === null || owner === null || this.closing) return;
    const slot = this.slots.get(owner);
    if (slot === undefined) return;
    slot.orderNews = true; // its next event reaches it, whatever moved
    if (slot.loaded.definition.onOrderUpdate === undefined) return;
    const update: OrderUpdate = { kind: 'order', orderHash: c.order.orderHash, status };
    void this.runHook(slot, 'onOrderUpdate', [update]);
  }

  // ------------------------------------------------------------------ queue

  private skip(q: { id?: string; strategyId: string; intent: Intent }, reason: string): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
    this.notify(
      { id: q.id ?? '', strategyId: q.strategyId, intent: q.intent },
      { status: 'skipped', error: { code: reason, message: `skipped: ${reason}` } },
    );
    if (reason === 'write_budget' || reason === 'killed' || reason === 'strategy_disabled')
      this.log.info({ strategy: q.strategyId, target: q.intent.target, reason }, 'intent skipped');
    this.recentSkips.push({
      at: this.clock.now(),
      strategyId: q.strategyId,
      target: q.intent.target,
      kind: q.intent.kind,
      reason,
    });
    if (this.recentSkips.length > 50) this.recentSkips.shift();
  }

  private enqueue(strategyId: string, intents: readonly Intent[]): void {
    const now = this.clock.now();
    for (const intent of intents) {
      this.counts.emitted++;
      const key = `${strategyId}|${intent.target}`;
      const item = { strategyId, intent };
      if (this.risk.killed && intent.kind !== 'cancel_order') {
        this.risk.countRefusal('risk_killed');
        this.counts.rejected++;
        this.notify(
          { id: '', strategyId, intent },
          { status: 'rejected', error: { code: 'risk_killed', message: 'kill switch is on' } },
        );
        continue;
      }
      if (this.inFlight.has(key)) {
        this.skip(item, 'in_flight');
        continue;
      }
      if (
        intent.kind !== 'cancel_order' &&
        this.unresolved.size > 0 &&
        [...this.unresolved.values()].includes(key)
      ) {
        // an earlier intent for this target may have happened: not again until it is reconciled
        this.skip(item, 'unresolved');
        continue;
      }
      if (intent.kind === 'place_offer' && this.orders.standing(strategyId, intent.target) !== undefined) {
        this.skip(item, 'duplicate_offer');
        continue;
      }
      const prev = this.queue.get(key);
      if (prev !== undefined) {
        this.queue.delete(key);
        this.skip(prev, 'superseded');
      }
      this.queue.set(key, {
        id: `${this.idPrefix}-${++this.seq}`,
        key,
        strategyId,
        intent,
        createdAt: now,
        seq: this.seq,
        waitingFor: null,
      });
    }
  }

  private enqueueSystemCancel(orderHash: OrderHash, owner: string | null, reason: string): void {
    const strategyId = owner ?? 'risk';
    const intent = cancelOrder({ orderHash, priority: Number.MAX_SAFE_INTEGER, reason });
    const key = `${strategyId}|${intent.target}`;
    if (this.queue.has(key) || this.inFlight.has(key)) return;
    this.queue.set(key, {
      id: `${this.idPrefix}-${++this.seq}`,
      key,
      strategyId,
      intent,
      createdAt: this.clock.now(),
      seq: this.seq,
      waitingFor: null,
    });
  }

  /** Sync risk with the market view's own orders and cancel offers above the headroom. */
  private syncRisk(): void {
    const now = this.clock.now();
    this.orders.tick();
    const market = this.o.market.snapshot();
    for (const c of [...this.risk.excess(now), ...this.risk.overFloor(market, now)])
      this.enqueueSystemCancel(c.orderHash, c.strategyId, `risk: ${c.reason}`);
    this.drain();
  }

  private afterOutcome(): void {
    const now = this.clock.now();
    const excess = this.risk.excess(now);
    for (const c of excess) this.enqueueSystemCancel(c.orderHash, c.strategyId, `risk: ${c.reason}`);
    if (excess.length > 0) this.drain();
  }

  /**
   * Dispatches queued intents: cancels first, then buys, then by priority; each needs its write
   * cost in the budget (else it waits, until queueTtlMs, then is skipped as `write_budget`).
   */
  drain(): void {
    if (this.draining || this.stopped) return;
    this.draining = true;
    try {
      const now = this.clock.now();
      const ttl = this.o.queueTtlMs ?? 30_000;
      for (const [key, q] of this.queue)
        if (now - q.createdAt > ttl) {
          this.queue.delete(key);
          this.skip(q, q.waitingFor ?? 'expired');
        }
      if (this.queue.size === 0) return;
      const maxInFlight = this.o.maxInFlight ?? 8;
      const items = [...this.queue.values()];
      if (items.length > 1)
        items.sort(
          (a, b) =>
            CLASS_RANK[a.intent.kind] - CLASS_RANK[b.intent.kind] ||
            b.intent.priority - a.intent.priority ||
            a.seq - b.seq,
        );
      let writes = (this.o.writeBudget?.writesAvailable() ?? Number.POSITIVE_INFINITY) - this.pendingWrites;
      const cost = this.o.writeCost ?? defaultWriteCost;
      let waiting = false;
      let starving = false;
      for (const q of items) {
        if (this.inFlight.has(q.key)) continue;
        if (this.inFlight.size >= maxInFlight) {
          q.waitingFor ??= 'slot';
          waiting = true;
          continue;
        }
        const c = cost(q.intent);
        // Once a more valuable intent waits for writes, cheaper ones behind it do not take them
        // (intents that need no writes still go).
        if (c > 0 && (c > writes || starving)) {
          q.waitingFor = 'write_budget';
          waiting = true;
          if (q.intent.kind !== 'cancel_order') starving = true;
          continue;
        }
        this.queue.delete(q.key);
        try {
          this.risk.check(q.intent, {
            intentId: q.id,
            strategyId: q.strategyId,
            market: this.o.market.snapshot(),
            holdings: this.o.market.holdings?.() ?? emptyHoldings,
            now,
          });
        } catch (e) {
          this.counts.rejected++;
          const err = e instanceof BaseError ? e : new RejectedError('risk_error', String(e));
          this.slots
            .get(q.strategyId)
            ?.log.info({ code: err.code, target: q.intent.target }, err.shortMessage);
          this.notify(q, { status: 'rejected', error: { code: err.code, message: err.shortMessage } });
          continue;
        }
        this.counts.accepted++;
        writes -= c;
        this.pendingWrites += c;
        this.inFlight.set(q.key, q);
        const p = this.execute(q, c, now);
        this.executions.add(p);
        void p.finally(() => this.executions.delete(p));
      }
      if (waiting) this.armRetry();
    } finally {
      this.draining = false;
    }
  }

  private armRetry(): void {
    const every = this.o.retryIntervalMs ?? 1000;
    if (every <= 0 || this.retryTimer !== null || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.drain();
    }, every);
    this.retryTimer.unref?.();
  }

  /** The status as plain JSON (bigints as decimal strings, Infinity as null). */
  statusJson(): Record<string, unknown> {
    return plain(this.status()) as Record<string, unknown>;
  }

  private async execute(q: Queued, cost: number, acceptedAt: number): Promise<void> {
    const intent = q.intent;
    const ctx: ExecutionContext = {
      intentId: q.id,
      orders: this.orders,
      strategyId: q.strategyId,
      now: acceptedAt,
      market: this.o.market.snapshot(),
      priority: schedulerPriority(intent),
      coalesceKey: q.key,
      ...(intent.kind === 'replace_offer' ? { replaceOverlap: this.risk.replaceOverlaps(q.id) } : {}),
      ...(intent.kind === 'cancel_order' && this.risk.killed ? { mustBeGone: true } : {}),
    };
    let state: 'done' | 'failed' | 'unknown' = 'failed';
    let result: ExecutionResult | undefined;
    let error: { code: string; message: string } | undefined;
    try {
      await this.o.journal.append({
        id: q.id,
        strategyId: q.strategyId,
        intent,
        state: 'pending',
        createdAt: acceptedAt,
        updatedAt: acceptedAt,
      });
    } catch (e) {
      this.log.error({ err: e }, 'journal write failed; intent not sent');
      this.risk.settle(q.id, { status: 'failed' }, this.clock.now());
      this.counts.failed++;
      this.finish(q, cost);
      return;
    }
    try {
      if (this.o.guard) await this.o.guard.check(intent, ctx);
      await this.o.journal.update(q.id, { state: 'sent', at: this.clock.now() });
      try {
        result = await this.o.executor.execute(intent, ctx);
        state = 'done';
      } catch (e) {
        const definite = e instanceof RejectedError || (e instanceof TransientError && !e.maybeProcessed);
        state = definite ? 'failed' : 'unknown';
        error = errorInfo(e);
      }
    } catch (e) {
      // guard refusal or journal failure before sending: definitely not done
      state = 'failed';
      error = errorInfo(e);
    }
    const now = this.clock.now();
    try {
      await this.o.journal.update(q.id, {
        state,
        at: now,
        ...(result?.orderHash !== undefined ? { orderHash: result.orderHash } : {}),
        ...(result?.spent !== undefined ? { spent: result.spent } : {}),
        ...(error !== undefined ? { error } : {}),
      });
    } catch (e) {
      this.log.error({ err: e, intentId: q.id }, 'journal update failed');
    }
    if (state === 'done' && result !== undefined) {
      this.risk.settle(q.id, { status: 'done', result }, now);
      this.counts.done++;
      if (result.orderHash !== undefined) {
        // Placed while the kill switch went on, or by a strategy disabled meanwhile: cancel it.
        const slot = this.slots.get(q.strategyId);
        if (this.risk.killed) this.enqueueSystemCancel(result.orderHash, q.strategyId, 'kill switch');
        else if (slot !== undefined && slot.runner.state === 'disabled' && this.o.cancelOnDisable !== false)
          this.enqueueSystemCancel(result.orderHash, q.strategyId, 'strategy disabled');
      }
    } else if (state === 'unknown') {
      this.risk.settle(q.id, { status: 'unknown' }, now);
      this.unresolved.set(q.id, q.key);
      this.counts.unknown++;
    } else {
      this.risk.settle(q.id, { status: 'failed' }, now);
      this.counts.failed++;
      this.tellFailure(q, error, now);
    }
    this.finish(q, cost);
    this.notify(q, {
      status: state,
      ...(result?.orderHash !== undefined ? { orderHash: result.orderHash } : {}),
      ...(result?.spent !== undefined ? { spent: result.spent } : {}),
      ...(error !== undefined ? { error } : {}),
    });
    this.afterOutcome();
    this.drain();
  }

  /**
   * Says that an intent failed (the marketplace or the chain refused it, or it never got there):
   * the first of a strategy's failures of one kind and code at once, then at most one line a
   * minute with how many there were since — a strategy whose every offer is refused is seen in
   * the log without a line per offer.
   */
  private tellFailure(q: Queued, error: { code: string; message: string } | undefined, now: number): void {
    const code = error?.code ?? 'error';
    const key = `${q.strategyId}\u0000${q.intent.kind}\u0000${code}`;
    const told = this.failuresTold.get(key);
    if (told !== undefined && now - told.at < FAILURE_NOTE_MS) {
      told.since++;
      return;
    }
    this.failuresTold.set(key, { at: now, since: 0 });
    this.slots.get(q.strategyId)?.log.warn(
      {
        kind: q.intent.kind,
        target: q.intent.target,
        code,
        ...(told !== undefined && told.since > 0 ? { sinceLastLine: told.since } : {}),
      },
      `intent failed: ${error?.message ?? code}`,
    );
  }

  private finish(q: Queued, cost: number): void {
    this.inFlight.delete(q.key);
    this.pendingWrites -= cost;
  }

  /**
   * Tells the strategy what became of its intent. Intents returned for anything but `done` are
   * ignored: a strategy that re-emits on refusal would otherwise loop; it decides again on its
   * next event or tick.
   */
  private notify(
    q: { readonly id: string; readonly strategyId: string; readonly intent: Intent },
    r: {
      status: 'done' | 'failed' | 'unknown' | 'rejected' | 'skipped';
      orderHash?: OrderHash;
      spent?: bigint;
      error?: { code: string; message: string };
    },
  ): void {
    if (this.o.onOutcome !== undefined)
      try {
        this.o.onOutcome({
          at: this.clock.now(),
          intentId: q.id,
          strategyId: q.strategyId,
          kind: q.intent.kind,
          target: q.intent.target,
          status: r.status,
          code: r.error?.code ?? null,
          message: r.error?.message ?? null,
        });
      } catch (err) {
        this.log.warn({ err }, 'an outcome listener failed');
      }
    const slot = this.slots.get(q.strategyId);
    if (slot === undefined) return;
    slot.orderNews = true; // its next event reaches it, whatever moved
    if (slot.loaded.definition.onOrderUpdate === undefined) return;
    const update: OrderUpdate = { kind: 'intent_result', intentId: q.id, intent: q.intent, ...r };
    void this.runHook(slot, 'onOrderUpdate', [update], false, r.status !== 'done');
  }

  // ------------------------------------------------------------------ status

  status(): EngineStatus {
    const now = this.clock.now();
    let total = 0;
    for (const n of this.skipped.values()) total += n;
    return {
      mode: this.o.executor.mode,
      paused: this.risk.paused,
      killed: this.risk.killed,
      strategies: [...this.slots.values()].map((s) => ({
        ...s.runner.status(),
        module: s.loaded.definition.id,
        version: s.loaded.definition.version,
      })),
      events: this.events,
      intents: { ...this.counts, queued: this.queue.size, inFlight: this.inFlight.size },
      skipped: { total, byReason: Object.fromEntries(this.skipped), recent: [...this.recentSkips] },
      writesAvailable: this.o.writeBudget?.writesAvailable() ?? Number.POSITIVE_INFINITY,
      unresolved: [...this.unresolved.keys()],
      risk: this.risk.status(now),
    };
  }
}

/** The scheduler priority of an intent's HTTP jobs. */
export function schedulerPriority(intent: Intent): Priority {
  switch (intent.kind) {
    case 'buy_listing':
      return Priority.snipe;
    case 'cancel_order':
      return Priority.cancel;
    case 'place_offer':
    case 'replace_offer':
    case 'place_listing':
    case 'replace_listing':
      return Priority.bidRefresh;
    case 'swap':
    case 'mint':
    case 'accept_offer':
      return Priority.trade;
  }
}

function errorInfo(e: unknown): { code: string; message: string } {
  if (e instanceof BaseError) return { code: e.code, message: e.shortMessage };
  return { code: 'error', message: e instanceof Error ? e.message : String(e) };
}

function asToken(token: PaymentToken | string): PaymentToken {
  if (typeof token !== 'string') return token;
  return isAddress(token)
    ? { address: token.toLowerCase() as Address, symbol: '', decimals: 18 }
    : { address: '' as Address, symbol: token, decimals: 18 };
}

export function createEngine(options: EngineOptions): Engine {
  return new Engine(options);
}
