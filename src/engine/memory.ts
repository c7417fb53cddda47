// In-memory implementations of the engine's ports: for unit tests, benchmarks, backtests (the journal,
// strategy state and spend: nothing restarts from them) and as a model of
// what the real adapters (SQLite store, live/paper executors, scheduler) must do.
import type { PaymentToken } from '../domain/events.ts';
import type { Address, CollectionSlug, OrderHash } from '../domain/ids.ts';
import { type NewLedgerOrder, type OrderLedger, offerFacts } from '../ledger/index.ts';
import {
  type CollectionSnapshot,
  type Known,
  type MarketSnapshot,
  type OwnOrder,
  type PriceLevel,
  type TraitFloor,
  traitKey,
} from '../market/snapshot.ts';
import type {
  Balances,
  DropStatus,
  DropsView,
  Intent,
  NftTraitsView,
  PricesView,
  TokenPrice,
} from '../strategy.ts';
import type {
  EngineClock,
  ExecutionContext,
  ExecutionResult,
  Executor,
  IntentJournal,
  IntentState,
  JournalPatch,
  JournalRecord,
  MarketSource,
  SpendEntry,
  SpendLedger,
  StrategyStateStore,
} from './ports.ts';

export class MemoryJournal implements IntentJournal {
  readonly records = new Map<string, JournalRecord>();
  /** Every state each intent went through, in order (of the records kept). */
  readonly history = new Map<string, IntentState[]>();
  /** Strategy of each finished intent whose record was let go (`keepFinished: false`). */
  readonly #finished = new Map<string, string>();
  readonly #keepFinished: boolean;
  /**
   * keepFinished false: a record that reaches done or failed is let go, its intent's strategy kept
   * (a long backtest's journal stays as small as its unfinished intents; nothing restarts from it).
   */
  constructor(o: { readonly keepFinished?: boolean } = {}) {
    this.#keepFinished = o.keepFinished ?? true;
  }
  append(record: JournalRecord): void {
    if (this.records.has(record.id) || this.#finished.has(record.id))
      throw new Error(`intent ${record.id} is already in the journal`);
    this.records.set(record.id, record);
    this.history.set(record.id, [record.state]);
  }
  update(id: string, patch: JournalPatch): void {
    const r = this.records.get(id);
    if (r === undefined) {
      if (this.#finished.has(id)) return; // finished and let go: nothing follows a final state
      throw new Error(`intent ${id} is not in the journal`);
    }
    if (!this.#keepFinished && (patch.state === 'done' || patch.state === 'failed')) {
      this.records.delete(id);
      this.history.delete(id);
      this.#finished.set(id, r.strategyId);
      return;
    }
    this.records.set(id, {
      ...r,
      state: patch.state,
      updatedAt: patch.at,
      ...(patch.orderHash !== undefined ? { orderHash: patch.orderHash } : {}),
      ...(patch.spent !== undefined ? { spent: patch.spent } : {}),
      ...(patch.error !== undefined ? { error: patch.error } : {}),
    });
    this.history.get(id)?.push(patch.state);
  }
  /** The strategy that emitted an intent (kept or let go). */
  strategyOf(id: string): string | undefined {
    return this.records.get(id)?.strategyId ?? this.#finished.get(id);
  }
  list(filter: { readonly states?: readonly IntentState[] } = {}): readonly JournalRecord[] {
    const all = [...this.records.values()];
    return filter.states === undefined ? all : all.filter((r) => filter.states?.includes(r.state));
  }
}

export class MemoryStateStore implements StrategyStateStore {
  /** strategy id -> key -> JSON text */
  readonly data = new Map<string, Map<string, string>>();
  saves = 0;
  load(strategyId: string): Record<string, unknown> | undefined {
    const m = this.data.get(strategyId);
    if (m === undefined) return undefined;
    return Object.fromEntries([...m].map(([k, v]) => [k, JSON.parse(v)]));
  }
  save(strategyId: string, changed: Readonly<Record<string, string>>, deleted: readonly string[] = []): void {
    this.saves++;
    let m = this.data.get(strategyId);
    if (m === undefined) {
      m = new Map();
      this.data.set(strategyId, m);
    }
    for (const [k, v] of Object.entries(changed)) m.set(k, v);
    for (const k of deleted) m.delete(k);
  }
  /** The whole state of a strategy (tests). */
  get(strategyId: string): Record<string, unknown> {
    return this.load(strategyId) ?? {};
  }
}

export class MemorySpendLedger implements SpendLedger {
  readonly entries: SpendEntry[] = [];
  record(entry: SpendEntry): void {
    this.entries.push(entry);
  }
  all(): readonly SpendEntry[] {
    return [...this.entries];
  }
}

export interface ExecutedCall {
  readonly intent: Intent;
  readonly ctx: ExecutionContext;
  readonly at: bigint;
}

/**
 * Executes intents in memory: place/replace return a fresh order hash, buys/mints spend their
 * cap, swaps their amount. `behave` overrides the outcome per intent (throw to fail).
 */
export class MemoryExecutor implements Executor {
  readonly mode = 'memory';
  readonly calls: ExecutedCall[] = [];
  private seq = 0;
  behave: ((intent: Intent, ctx: ExecutionContext) => ExecutionResult | Promise<ExecutionResult>) | undefined;
  onCall: ((call: ExecutedCall) => void) | undefined;

  async execute(intent: Intent, ctx: ExecutionContext): Promise<ExecutionResult> {
    const call = { intent, ctx, at: process.hrtime.bigint() };
    this.calls.push(call);
    this.onCall?.(call);
    const result = this.behave ? await this.behave(intent, ctx) : this.defaultResult(intent);
    recordInLedger(ctx.orders, intent, ctx, result);
    return result;
  }

  defaultResult(intent: Intent): ExecutionResult {
    switch (intent.kind) {
      case 'place_offer':
      case 'replace_offer':
      case 'place_listing':
      case 'replace_listing':
        return { orderHash: this.nextHash() };
      case 'accept_offer':
        return {};
      case 'buy_listing':
        return { spent: intent.maxPrice };
      case 'mint':
        return { spent: intent.maxPricePerToken * intent.quantity };
      case 'swap':
        return { spent: intent.amountIn };
      case 'cancel_order':
        return {};
    }
  }

  nextHash(): OrderHash {
    this.seq++;
    return `0x${this.seq.toString(16).padStart(64, '0')}` as OrderHash;
  }
}

/**
 * What a real executor does with the ledger, done at once: a placed offer is posted and open; a
 * replaced or cancelled one is gone (no fulfillment signature was ever issued in memory).
 */
export function recordInLedger(
  ledger: OrderLedger,
  intent: Intent,
  ctx: Pick<ExecutionContext, 'intentId' | 'strategyId' | 'now'>,
  result: ExecutionResult,
): void {
  const gone = (hash: string) => {
    ledger.note(hash, { kind: 'cancel_requested' });
    ledger.note(hash, { kind: 'cancel_accepted', validUntil: ctx.now });
  };
  if (intent.kind === 'cancel_order') {
    gone(intent.orderHash);
    return;
  }
  if ((intent.kind !== 'place_offer' && intent.kind !== 'replace_offer') || result.orderHash === undefined)
    return;
  let facts: Omit<NewLedgerOrder, 'orderHash' | 'intentId' | 'price' | 'expiresAt'>;
  if (intent.kind === 'place_offer') {
    facts = {
      strategyId: ctx.strategyId,
      target: intent.target,
      ...offerFacts(intent.offer),
      standard: null,
      paymentToken: intent.paymentToken,
      quantity: intent.quantity,
    };
  } else {
    const old = ledger.get(intent.orderHash);
    if (old === undefined) return;
    gone(intent.orderHash);
    facts = {
      strategyId: ctx.strategyId,
      target: old.target,
      side: old.side,
      collection: old.collection,
      contract: old.contract,
      tokenId: old.tokenId,
      standard: old.standard,
      trait: old.trait,
      paymentToken: old.paymentToken,
      quantity: old.quantity - old.filled,
    };
  }
  ledger.post({
    ...facts,
    orderHash: result.orderHash,
    intentId: ctx.intentId,
    price: intent.price,
    expiresAt: intent.expiresAt,
  });
  ledger.note(result.orderHash, { kind: 'opened' });
}

export class ManualClock implements EngineClock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

// ---------------------------------------------------------------------------------------------
// An in-memory market view (MarketSource) for tests and benchmarks.

export interface LevelInit {
  readonly price: bigint;
  readonly orderHash?: string | null;
  readonly maker?: string | null;
  readonly expiresAt?: number | null;
  readonly token?: PaymentToken;
  readonly learnedAt?: number;
}

export interface CollectionInit {
  readonly slug: string;
  readonly floor?: LevelInit | null;
  readonly traitFloors?:
    | readonly { type: string; value: string; price: bigint; token?: PaymentToken }[]
    | null;
  readonly traitFloorsAt?: number;
  readonly traits?: readonly { type: string; counts: Readonly<Record<string, number>> }[];
  readonly bestCollectionOffer?: LevelInit | null;
  readonly bestTraitOffers?: Readonly<Record<string, LevelInit>>;
  readonly bestListings?: Readonly<Record<string, LevelInit>>;
  readonly ageMs?: number;
  readonly stale?: boolean;
  readonly floorRelearning?: boolean;
  readonly sellerFeeBps?: bigint | null;
}

export const ETH_TOKEN: PaymentToken = Object.freeze({
  address: '0x0000000000000000000000000000000000000000' as Address,
  symbol: 'ETH',
  decimals: 18,
});

export class MemoryMarket implements MarketSource {
  private readonly cols = new Map<string, CollectionSnapshot>();
  ownOrders: OwnOrder[] = [];
  balanceMap: Balances | null = null;
  readonly dropMap = new Map<string, Known<DropStatus>>();
  readonly nftTraits = new Map<string, Known<readonly { type: string; value: string }[]>>();
  readonly priceMap = new Map<string, Known<TokenPrice>>();
  private cached: MarketSnapshot | null = null;

  constructor(readonly clock: EngineClock) {}

  private known<T>(value: T, at?: number): Known<T> {
    return { value, learnedAt: at ?? this.clock.now(), from: 'stream' };
  }

  private level(l: LevelInit): Known<PriceLevel> {
    return this.known(
      {
        price: l.price,
        paymentToken: l.token ?? ETH_TOKEN,
        orderHash: (l.orderHash ?? null) as OrderHash | null,
        maker: (l.maker ?? null) as Address | null,
        expiresAt: l.expiresAt ?? null,
      },
      l.learnedAt,
    );
  }

  /** Adds or replaces a collection. */
  setCollection(c: CollectionInit): void {
    const traitFloors =
      c.traitFloors === undefined || c.traitFloors === null
        ? null
        : this.known(
            c.traitFloors.map((f) => ({
              traitType: f.type,
              value: f.value,
              price: f.price,
              paymentToken: f.token ?? ETH_TOKEN,
            })),
            c.traitFloorsAt,
          );
    const traits =
      c.traits === undefined
        ? null
        : this.known(
            c.traits.map((t) => ({
              traitType: t.type,
              kind: 'string' as const,
              counts: new Map(Object.entries(t.counts)),
            })),
          );
    const byTrait = new Map<string, TraitFloor[]>();
    for (const f of traitFloors?.value ?? []) {
      const k = traitKey(f.traitType, f.value);
      byTrait.set(k, [...(byTrait.get(k) ?? []), f]);
    }
    this.cols.set(c.slug, {
      slug: c.slug as CollectionSlug,
      floor: c.floor ? this.level(c.floor) : null,
      floorRelearning: c.floorRelearning ?? false,
      traitFloors,
      traitFloorsByTrait: byTrait,
      traits,
      bestCollectionOffer: c.bestCollectionOffer ? this.level(c.bestCollectionOffer) : null,
      bestTraitOffers: new Map(Object.entries(c.bestTraitOffers ?? {}).map(([k, l]) => [k, this.level(l)])),
      bestListings: new Map(Object.entries(c.bestListings ?? {}).map(([k, l]) => [k, this.level(l)])),
      ageMs: c.ageMs ?? 0,
      stale: c.stale ?? false,
      sellerFeeBps: c.sellerFeeBps ?? null,
    });
    this.cached = null;
  }

  /** Marks the cached snapshot old (after changing ownOrders, balances, drops). */
  touch(): void {
    this.cached = null;
  }

  snapshot(): MarketSnapshot {
    if (this.cached !== null && this.cached.at === this.clock.now()) return this.cached;
    const cols = this.cols;
    const snap: MarketSnapshot = {
      at: this.clock.now(),
      collection: (slug) => cols.get(slug),
      collections: [...cols.keys()] as CollectionSlug[],
      ownOrders: this.ownOrders,
    };
    this.cached = snap;
    return snap;
  }

  balances(): Balances | null {
    return this.balanceMap;
  }

  setBalances(map: Record<string, bigint>, at?: number): void {
    this.balanceMap = this.known(new Map(Object.entries(map).map(([k, v]) => [k.toLowerCase(), v])), at);
  }

  setDrop(d: DropStatus, at?: number): void {
    this.dropMap.set(d.slug, this.known(d, at));
  }

  drops(): DropsView {
    return { get: (slug) => this.dropMap.get(slug) };
  }

  setNftTraits(key: string, traits: readonly { type: string; value: string }[], at?: number): void {
    this.nftTraits.set(key, this.known(traits, at));
  }

  nfts(): NftTraitsView {
    return { get: (key) => this.nftTraits.get(key) };
  }

  /** Sets a token's market price (wei per whole token). */
  setPrice(
    token: PaymentToken | string,
    priceIn: bigint,
    at?: number,
    source: TokenPrice['source'] = 'quote',
  ): void {
    const key = (typeof token === 'string' ? token : token.address).toLowerCase();
    this.priceMap.set(key, this.known({ priceIn, source }, at));
  }

  prices(): PricesView {
    return { get: (token) => this.priceMap.get(token.toLowerCase()) };
  }
}
