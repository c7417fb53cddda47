// The one ledger of our orders. Execution results, stream events, REST reads and the chain all
// feed it (`note`, `apply`); risk, the engine, the market view's own orders, status and the store
// read it. An order counts (worst-case exposure) until it is really gone: the chain says it was
// cancelled or filled, it expired, or an accepted off-chain cancel's
// `last_signature_issued_valid_until` has passed. News may come twice or out of order: fills are
// idempotent by their id, a fill the marketplace reports in aggregate (remaining quantity) and the
// same fill seen as a sale are charged once, and no news brings a gone order back — except a fill,
// which proves an order stood (a post thought refused that did arrive is charged).
import type { MarketEvent } from '../domain/events.ts';
import type { OrderHash } from '../domain/ids.ts';
import type { OwnOrder } from '../market/snapshot.ts';
import { STANDING_STATUSES } from '../store/index.ts';
import {
  FINAL_STATES,
  type LedgerChange,
  type LedgerNews,
  type LedgerOrder,
  type LedgerState,
  type LedgerStore,
  type NewLedgerOrder,
} from './types.ts';

export interface OrderLedgerOptions {
  readonly clock: { now(): number };
  /** The API's chain name (item orders' NFT keys are `chain/contract/id`, as in the market view). */
  readonly chain: string;
  readonly store?: LedgerStore;
  /**
   * A cancel the marketplace reports without telling us when fulfillment signatures stop being
   * usable (a cancel we did not see answered) still counts this long. Default 600 000 ms.
   */
  readonly unknownWindowMs?: number;
  /** Gone orders stay in memory this long, so late fills still find them. Default 3 600 000 ms. */
  readonly retentionMs?: number;
  /** A listener that throws is reported here (never breaks the ledger). */
  readonly onListenerError?: (err: unknown) => void;
}

export interface LedgerFilter {
  readonly strategyId?: string;
  readonly states?: readonly LedgerState[];
  readonly side?: 'offers' | 'listings';
}

export interface OrderLedger {
  /** The API's chain name its orders are on (NFT keys `chain/contract/id`). */
  readonly chain: string;
  /** Records a new order before its post (state `posted`: it counts from now on). */
  post(order: NewLedgerOrder): LedgerOrder;
  /** Applies news about one order; null when the order is not ours or nothing changed. */
  note(orderHash: string, news: LedgerNews): LedgerChange | null;
  /** Applies a market event about one of our orders (sales, cancels, validity). */
  apply(event: MarketEvent): void;
  /** Moves expired orders and passed cancel windows to their final state. */
  tick(): void;
  get(orderHash: string): LedgerOrder | undefined;
  byIntent(intentId: string): LedgerOrder | undefined;
  list(filter?: LedgerFilter): readonly LedgerOrder[];
  /** Whether the order still counts in worst-case exposure now. */
  counts(order: LedgerOrder): boolean;
  /** The open worst case of an order now: price × units not filled, when it counts; else 0. */
  exposureOf(order: LedgerOrder): bigint;
  /**
   * Orders that count now (offers and listings): the same list while no order changes and the
   * clock reaches none's end (read it, never change it).
   */
  counting(): readonly LedgerOrder[];
  /** The order a strategy holds for a target, while it counts. */
  standing(strategyId: string, target: string): LedgerOrder | undefined;
  /** Orders as the market snapshot shows them (open = standing; cancelling shows as cancelled). */
  ownOrders(): readonly OwnOrder[];
  /** `ownOrders()` of one strategy's orders (the same entries, in the same order). */
  ownOrdersOf(strategyId: string): readonly OwnOrder[];
  onChange(listener: (change: LedgerChange) => void): () => void;
  /** Bumps on every change (cheap change detection). */
  version(): number;
  /** The ledger's clock (what `counts` judges by). */
  now(): number;
}

/** States in which an order may still be filled: it counts (the store's standing statuses). */
const COUNTING: ReadonlySet<LedgerState> = new Set(STANDING_STATUSES);

const key = (h: string) => h.toLowerCase();

const noOwnOrders: readonly OwnOrder[] = Object.freeze([]);

export function createOrderLedger(options: OrderLedgerOptions): OrderLedger {
  const clock = options.clock;
  /** Each order's last `ownOrders` entry (orders are replaced, never changed, on every change). */
  const ownOf = new WeakMap<LedgerOrder, OwnOrder>();
  const unknownWindowMs = options.unknownWindowMs ?? 600_000;
  const retentionMs = options.retentionMs ?? 3_600_000;
  const orders = new Map<string, LedgerOrder>();
  /** Hashes of orders in a counting state and not wholly filled (time decides the rest): what `counting` walks. */
  const live = new Set<string>();
  /** Hashes of orders not in a final state (what `tick` looks at), in the order they were posted. */
  const unfinished = new Set<string>();
  /** Hashes of orders in a final state → when they became final, oldest first (retention drops from the front). */
  const finals = new Map<string, number>();
  /**
   * Before this time no unfinished order expires nor ends its cancel window (what `tick` moves):
   * set by a `tick` that moved none, reset by every change of an order.
   */
  let tickUntil = Number.NEGATIVE_INFINITY;
  /**
   * When the oldest of `finals` closed (+∞: none), while `retainedKnown`: known after a `tick`,
   * forgotten at every change of an order (an order closing, or posted again, reorders `finals`).
   */
  let oldestFinal = Number.POSITIVE_INFINITY;
  let retainedKnown = false;
  /**
   * `counting()`'s last answer: the same while the ledger does not change (`ver`) and the clock
   * stays between when it was built and the first expiry or cancel window end of its orders.
   */
  let countingCache: { v: number; at: number; until: number; list: readonly LedgerOrder[] } | null = null;
  const track = (h: string, o: LedgerOrder) => {
    if (COUNTING.has(o.state) && o.filled < o.quantity) live.add(h);
    else live.delete(h);
    if (FINAL_STATES.has(o.state)) {
      unfinished.delete(h);
      // written anew at the end: commits come in time order, so the map stays oldest first
      finals.delete(h);
      finals.set(h, o.updatedAt);
    } else {
      unfinished.add(h);
      finals.delete(h);
    }
  };
  const intents = new Map<string, string>();
  /** strategy|target → hashes of its orders (a strategy's standing order for a target, fast). */
  const targets = new Map<string, Set<string>>();
  const index = (o: LedgerOrder) => {
    if (o.strategyId === null || o.target === null) return;
    const k = `${o.strategyId}|${o.target}`;
    let set = targets.get(k);
    if (set === undefined) {
      set = new Set();
      targets.set(k, set);
    }
    set.add(key(o.orderHash));
  };
  const fills = new Map<string, Set<string>>();
  /** Orders whose cancel window is our guess (a marketplace cancel before our answer): the answer replaces it. */
  const guessed = new Set<string>();
  const listeners = new Set<(c: LedgerChange) => void>();
  let ver = 0;
  /** The snapshot's list, until the ledger changes or an order shown open reaches its expiry. */
  let ownCache: {
    v: number;
    /** When it was built (a clock that went back builds it all again). */
    at: number;
    until: number;
    list: readonly OwnOrder[];
    /** The list by strategy, built when first asked. */
    byStrategy?: ReadonlyMap<string, readonly OwnOrder[]>;
  } | null = null;
  /**
   * Orders committed since `ownCache` was built, in commit order, and orders that left the map
   * since: the next list is the last one without those gone, with the entries of these replaced
   * (or appended: a new order is the map's last).
   */
  const ownDirty = new Set<string>();
  /** Of `ownDirty`, orders posted since `ownCache` was built: no list has them yet. */
  const ownNew = new Set<string>();
  const ownGone = new Set<string>();
  /** Strategies of the orders gone. */
  const ownGoneOf = new Set<string>();

  for (const o of options.store?.load() ?? []) {
    const h = key(o.orderHash);
    const frozen = Object.freeze({ ...o, orderHash: h as OrderHash });
    orders.set(h, frozen);
    track(h, frozen);
    if (o.intentId !== null) intents.set(o.intentId, h);
    index(o);
  }
  // the store's order is not the time they closed: oldest first, as retention reads them
  for (const [h, at] of [...finals].sort((a, b) => a[1] - b[1])) {
    finals.delete(h);
    finals.set(h, at);
  }

  function emit(change: LedgerChange): void {
    ver++;
    for (const l of listeners) {
      try {
        l(change);
      } catch (err) {
        options.onListenerError?.(err);
      }
    }
  }

  function commit(
    prev: LedgerOrder | undefined,
    next: LedgerOrder,
    news: LedgerChange['news'],
    filledUnits = 0n,
    filledAmount = 0n,
  ): LedgerChange {
    const frozen = Object.freeze(next);
    const h = key(frozen.orderHash);
    orders.set(h, frozen);
    track(h, frozen);
    // an order changed: what is due at `tick` may have too
    tickUntil = Number.NEGATIVE_INFINITY;
    retainedKnown = false;
    ownDirty.add(h);
    if (prev === undefined) ownNew.add(h);
    options.store?.save(frozen);
    const change: LedgerChange = { order: frozen, previous: prev, news, filledUnits, filledAmount };
    emit(change);
    return change;
  }

  const standingState = (o: LedgerOrder): LedgerState => (o.filled > 0n ? 'partly_filled' : 'open');

  function counts(o: LedgerOrder, now = clock.now()): boolean {
    if (!COUNTING.has(o.state)) return false;
    if (o.expiresAt <= now) return false;
    if (o.cancelValidUntil !== null && o.cancelValidUntil <= now) return false;
    return o.filled < o.quantity;
  }

  /** The next state for news, or null when the news changes nothing. */
  function transition(o: LedgerOrder, news: LedgerNews, now: number): Partial<LedgerOrder> | null {
    const final = FINAL_STATES.has(o.state);
    switch (news.kind) {
      case 'opened':
        return o.state === 'posted' ? { state: standingState(o), reason: null } : null;
      case 'post_failed':
        return o.state === 'posted' ? { state: 'failed', reason: news.reason } : null;
      case 'cancel_requested':
        if (final || o.state === 'cancelling') return null;
        return { state: 'cancelling', reason: 'cancel requested' };
      case 'cancel_refused':
        // an accepted cancel (window known) is not undone by a later refusal of a retry
        if (o.state !== 'cancelling' || o.cancelValidUntil !== null) return null;
        return { state: standingState(o), reason: `cancel refused: ${news.reason}` };
      case 'cancel_accepted': {
        if (final) return null;
        // the later window wins (an older answer never ends a window a newer one opened); a
        // window we only guessed gives way to the marketplace's answer
        const h = key(o.orderHash);
        const until = guessed.has(h) ? news.validUntil : Math.max(o.cancelValidUntil ?? 0, news.validUntil);
        guessed.delete(h);
        if (until <= now)
          return { state: 'cancelled', reason: 'cancelled off-chain', cancelValidUntil: until };
        if (o.state === 'cancelling' && o.cancelValidUntil === until) return null;
        return {
          state: 'cancelling',
          cancelValidUntil: until,
          reason: 'cancelled off-chain; signatures valid until window ends',
        };
      }
      case 'cancelled':
        if (final) return null;
        if (news.source === 'chain')
          return { state: 'cancelled', cancelValidUntil: null, reason: 'cancelled on chain' };
        // an off-chain cancel: fulfillment signatures issued before may still be used
        if (o.cancelValidUntil !== null) return null;
        guessed.add(key(o.orderHash));
        return {
          state: 'cancelling',
          cancelValidUntil: now + unknownWindowMs,
          reason: 'cancelled off-chain (window unknown)',
        };
      case 'invalidated':
        return o.state === 'open' || o.state === 'partly_filled' || o.state === 'posted'
          ? { state: 'invalid', reason: 'invalidated by the marketplace' }
          : null;
      case 'revalidated':
        return o.state === 'invalid' ? { state: standingState(o), reason: null } : null;
      case 'expired':
        return final ? null : { state: 'expired', reason: 'expired' };
      case 'filled':
      case 'marketplace_status':
        return null; // handled in note()
    }
  }

  /**
   * Units filled by single sales seen, per order. Until the marketplace first reports a fill in
   * aggregate, every unit the order counts as filled came from sales (or from before a restart).
   */
  const salesUnits = new Map<string, bigint>();

  /**
   * A fill: by a sale (`fillId` per transaction), or `aggregate`: the marketplace's remaining
   * quantity says `units` more than the order counts are filled. The order's `filled` is the larger
   * of the two counts, so units reported both ways are charged once.
   */
  function fillNews(
    o: LedgerOrder,
    fillId: string,
    units: bigint,
    amount: bigint | null,
    news: LedgerNews,
    aggregate = false,
  ): LedgerChange | null {
    const h = key(o.orderHash);
    if (aggregate) {
      if (!salesUnits.has(h)) salesUnits.set(h, o.filled);
      return charge(o, units, null, news, fillId);
    }
    let seen = fills.get(h);
    if (seen === undefined) {
      seen = new Set();
      fills.set(h, seen);
    }
    if (seen.has(fillId) || options.store?.hasFill?.(h, fillId) === true) return null;
    seen.add(fillId);
    const bySales = (salesUnits.get(h) ?? o.filled) + units;
    salesUnits.set(h, bySales);
    const counted = bySales > o.filled ? bySales - o.filled : 0n;
    if (counted <= 0n) return null;
    return charge(o, counted, amount !== null ? (amount * counted) / units : null, news, fillId);
  }

  function charge(
    o: LedgerOrder,
    units: bigint,
    amount: bigint | null,
    news: LedgerNews,
    fillId: string,
  ): LedgerChange | null {
    const h = key(o.orderHash);
    const room = o.quantity - o.filled;
    const u = units > room ? room : units;
    if (u <= 0n) return null;
    const filled = o.filled + u;
    let state: LedgerState = o.state;
    if (filled >= o.quantity) state = 'filled';
    else if (o.state === 'posted' || o.state === 'open' || o.state === 'invalid' || o.state === 'failed')
      state = 'partly_filled';
    const paid = amount ?? o.price * u;
    options.store?.recordFill?.(h, fillId, u, paid, { order: o, news });
    return commit(
      o,
      { ...o, filled, state, updatedAt: clock.now(), reason: state === 'filled' ? 'filled' : o.reason },
      news,
      u,
      paid,
    );
  }

  function note(orderHash: string, news: LedgerNews): LedgerChange | null {
    const o = orders.get(key(orderHash));
    if (o === undefined) return null;
    const now = clock.now();
    if (news.kind === 'filled') return fillNews(o, news.fillId, news.units, news.amount, news);
    if (news.kind === 'marketplace_status') {
      switch (news.status) {
        case 'FULFILLED':
          return fillNews(o, 'marketplace:fulfilled', o.quantity - o.filled, null, news, true);
        case 'CANCELLED':
          return note(orderHash, { kind: 'cancelled', source: 'marketplace' });
        case 'EXPIRED':
          return note(orderHash, { kind: 'expired' });
        case 'INVALID':
          return note(orderHash, { kind: 'invalidated' });
        case 'ACTIVE': {
          let change: LedgerChange | null = null;
          if (news.remaining !== null && news.remaining < o.quantity - o.filled)
            change = fillNews(
              o,
              `marketplace:remaining:${news.remaining}`,
              o.quantity - o.filled - news.remaining,
              null,
              news,
              true,
            );
          const cur = orders.get(key(orderHash)) as LedgerOrder;
          if (cur.state === 'posted' || cur.state === 'invalid')
            change = commit(cur, { ...cur, state: standingState(cur), reason: null, updatedAt: now }, news);
          return change;
        }
      }
    }
    const patch = transition(o, news, now);
    if (patch === null) return null;
    return commit(o, { ...o, ...patch, updatedAt: now }, news);
  }

  function apply(event: MarketEvent): void {
    switch (event.kind) {
      case 'sale':
        if (event.orderHash === null || !orders.has(key(event.orderHash))) return;
        note(event.orderHash, {
          kind: 'filled',
          fillId: `${event.txHash ?? event.id}:${event.nft.contract.toLowerCase()}:${event.nft.identifier}`,
          units: event.quantity > 0n ? event.quantity : 1n,
          amount: event.price,
          txHash: event.txHash,
          tokenId: String(event.nft.identifier),
          contract: event.nft.contract.toLowerCase(),
        });
        return;
      // (most events are about others' orders: no news made for them)
      case 'cancel':
        if (orders.has(key(event.orderHash)))
          note(event.orderHash, {
            kind: 'cancelled',
            source: event.txHash !== null ? 'chain' : 'marketplace',
          });
        return;
      case 'order_invalidated':
        if (orders.has(key(event.orderHash))) note(event.orderHash, { kind: 'invalidated' });
        return;
      case 'order_revalidated':
        if (orders.has(key(event.orderHash))) note(event.orderHash, { kind: 'revalidated' });
        return;
      default:
        return;
    }
  }

  function tick(): void {
    const now = clock.now();
    if (now < tickUntil) dropRetained(now);
    else {
      // a change of an order while this runs (a commit here, or a listener's) resets it
      tickUntil = Number.POSITIVE_INFINITY;
      let until = Number.POSITIVE_INFINITY;
      for (const h of [...unfinished]) {
        const o = orders.get(h) as LedgerOrder;
        if (moveIfDue(o, now)) continue;
        if (o.expiresAt < until) until = o.expiresAt;
        if (o.state === 'cancelling' && o.cancelValidUntil !== null && o.cancelValidUntil < until)
          until = o.cancelValidUntil;
      }
      if (tickUntil === Number.POSITIVE_INFINITY) tickUntil = until;
      dropRetained(now);
    }
  }

  /** Moves an expired order or a passed cancel window to its final state (true when it did). */
  function moveIfDue(o: LedgerOrder, now: number): boolean {
    if (o.expiresAt <= now)
      commit(o, { ...o, state: 'expired', reason: 'expired', updatedAt: now }, { kind: 'expired' });
    else if (o.state === 'cancelling' && o.cancelValidUntil !== null && o.cancelValidUntil <= now)
      commit(
        o,
        {
          ...o,
          state: 'cancelled',
          reason: 'cancelled off-chain; signature window passed',
          updatedAt: now,
        },
        { kind: 'cancel_accepted', validUntil: o.cancelValidUntil },
      );
    else return false;
    return true;
  }

  function dropRetained(now: number): void {
    // nothing changed since the last look and the oldest is still young: nothing to drop
    if (retainedKnown && now - oldestFinal <= retentionMs) return;
    retainedKnown = false;
    oldestFinal = Number.POSITIVE_INFINITY;
    // closed orders are kept `retentionMs` after they closed (oldest first: stop at a young one)
    for (const [h, closedAt] of finals) {
      if (now - closedAt <= retentionMs) {
        oldestFinal = closedAt;
        break;
      }
      const o = orders.get(h) as LedgerOrder;
      finals.delete(h);
      orders.delete(h);
      // a hash posted again would come last: it is dirty again from its new post on
      ownDirty.delete(h);
      ownNew.delete(h);
      ownGone.add(o.orderHash);
      if (o.strategyId !== null) ownGoneOf.add(o.strategyId);
      live.delete(h);
      fills.delete(h);
      salesUnits.delete(h);
      if (o.intentId !== null && intents.get(o.intentId) === h) intents.delete(o.intentId);
      if (o.strategyId !== null && o.target !== null) targets.get(`${o.strategyId}|${o.target}`)?.delete(h);
      ver++;
    }
    retainedKnown = true;
  }

  function list(filter: LedgerFilter = {}): readonly LedgerOrder[] {
    const out: LedgerOrder[] = [];
    for (const o of orders.values()) {
      if (filter.strategyId !== undefined && o.strategyId !== filter.strategyId) continue;
      if (filter.states !== undefined && !filter.states.includes(o.state)) continue;
      if (filter.side === 'offers' && o.side === 'listing') continue;
      if (filter.side === 'listings' && o.side !== 'listing') continue;
      out.push(o);
    }
    return out;
  }

  /** An order's entry in `ownOrders`: the same object while the order and its status are (lists compare cheaply). */
  function ownEntry(o: LedgerOrder, now: number): OwnOrder {
    const status = ownStatus(o, now);
    const had = ownOf.get(o);
    if (had !== undefined && had.status === status) return had;
    const own: OwnOrder = Object.freeze({
      orderHash: o.orderHash,
      side: o.side,
      collection: o.collection as OwnOrder['collection'],
      nftKey:
        o.side === 'item_offer' || o.side === 'listing'
          ? o.contract !== null && o.tokenId !== null
            ? `${options.chain}/${o.contract}/${o.tokenId}`
            : null
          : null,
      trait: o.trait,
      price: o.price,
      paymentToken: o.paymentToken,
      quantity: o.quantity - o.filled,
      expiresAt: o.expiresAt,
      status,
    });
    ownOf.set(o, own);
    return own;
  }

  /**
   * `prev` without the entries of orders gone, with the entries of `changed` (orders, in commit
   * order) put where theirs stand, or appended (a new order is the map's last).
   */
  function patchedList(prev: readonly OwnOrder[], changed: readonly OwnOrder[]): OwnOrder[] {
    // a spread, then work on the copy: slice() and filter() of a frozen array take V8's slow
    // path (8 and 13 µs for 254 entries, against 0.1 µs for the spread)
    const list = [...prev];
    if (ownGone.size > 0 && ownGone.size <= 4) {
      // a few gone (the usual): each looked for from the front, where the oldest orders are (a
      // list holds an order once)
      for (const gone of ownGone) {
        let i = 0;
        while (i < list.length && (list[i] as OwnOrder).orderHash !== gone) i++;
        if (i < list.length) list.splice(i, 1);
      }
    } else if (ownGone.size > 0) {
      let j = 0;
      for (let i = 0; i < list.length; i++) {
        const e = list[i] as OwnOrder;
        if (!ownGone.has(e.orderHash)) list[j++] = e;
      }
      list.length = j;
    }
    for (const own of changed) {
      // an order posted since the last list is in none: it comes last
      if (ownNew.has(own.orderHash)) {
        list.push(own);
        continue;
      }
      // recent orders change most: look from the end
      let i = list.length - 1;
      while (i >= 0 && (list[i] as OwnOrder).orderHash !== own.orderHash) i--;
      if (i >= 0) list[i] = own;
      else list.push(own);
    }
    return Object.freeze(list) as OwnOrder[];
  }

  function ownStatus(o: LedgerOrder, now: number): OwnOrder['status'] {
    switch (o.state) {
      case 'posted':
      case 'open':
      case 'partly_filled':
        return o.expiresAt <= now ? 'expired' : 'open';
      case 'invalid':
        return 'invalid';
      case 'filled':
        return 'filled';
      case 'expired':
        return 'expired';
      case 'failed':
        return 'invalid';
      case 'cancelling':
      case 'cancelled':
        return 'cancelled';
    }
  }

  return {
    chain: options.chain,
    post(n) {
      const h = key(n.orderHash);
      const now = clock.now();
      const prev = orders.get(h);
      if (prev !== undefined) return prev;
      // `{ ...n, orderHash: h, state: 'posted', … }`, the same keys in the same order: a spread
      // followed by keys it does not have takes V8's slow path (some 12 µs a post, 0.4 this way)
      const order: LedgerOrder = Object.assign({}, n, {
        orderHash: h as OrderHash,
        state: 'posted' as const,
        filled: 0n,
        cancelValidUntil: null,
        reason: null,
        createdAt: now,
        updatedAt: now,
      });
      if (n.intentId !== null) intents.set(n.intentId, h);
      index(order);
      return commit(undefined, order, { kind: 'posted' }).order;
    },
    note,
    apply,
    tick,
    get: (h) => orders.get(key(h)),
    byIntent(intentId) {
      const h = intents.get(intentId);
      return h === undefined ? undefined : orders.get(h);
    },
    list,
    counts: (o) => counts(o),
    exposureOf(o) {
      return counts(o) ? o.price * (o.quantity - o.filled) : 0n;
    },
    counting() {
      const now = clock.now();
      const had = countingCache;
      if (had !== null && had.v === ver && now >= had.at && now < had.until) return had.list;
      const out: LedgerOrder[] = [];
      // the orders left out by time stay out while time goes on; those in stay in until one of
      // them expires or its cancel window ends
      let until = Number.POSITIVE_INFINITY;
      for (const h of live) {
        const o = orders.get(h) as LedgerOrder;
        if (!counts(o, now)) continue;
        out.push(o);
        if (o.expiresAt < until) until = o.expiresAt;
        if (o.cancelValidUntil !== null && o.cancelValidUntil < until) until = o.cancelValidUntil;
      }
      // a read-only answer (callers never change it): kept as it is for the next call
      countingCache = { v: ver, at: now, until, list: out };
      return out;
    },
    standing(strategyId, target) {
      const set = targets.get(`${strategyId}|${target}`);
      if (set === undefined) return undefined;
      const now = clock.now();
      for (const h of set) {
        const o = orders.get(h);
        if (o !== undefined && counts(o, now) && o.state !== 'cancelling') return o;
      }
      return undefined;
    },
    ownOrders() {
      const now = clock.now();
      const had = ownCache;
      if (had !== null && had.v === ver && now < had.until) return had.list;
      let until = Number.POSITIVE_INFINITY;
      for (const h of unfinished) {
        const o = orders.get(h) as LedgerOrder;
        if (o.expiresAt > now && o.expiresAt < until) until = o.expiresAt;
        // shown open at the last list, expired now: its entry changes with time alone
        if (had !== null && o.expiresAt > had.at && o.expiresAt <= now) ownDirty.add(h);
      }
      if (had === null || now < had.at) {
        // the first list, or a clock that went back: every entry again
        const list = Object.freeze([...orders.values()].map((o) => ownEntry(o, now)));
        ownCache = { v: ver, at: now, until, list };
      } else {
        // only what changed since the last list: the other entries stand as they were
        const changed: OwnOrder[] = [];
        const byStrategy = new Map<string, OwnOrder[]>();
        for (const h of ownDirty) {
          const o = orders.get(h) as LedgerOrder;
          const own = ownEntry(o, now);
          changed.push(own);
          if (o.strategyId === null) continue;
          const l = byStrategy.get(o.strategyId);
          if (l) l.push(own);
          else byStrategy.set(o.strategyId, [own]);
        }
        const list = patchedList(had.list, changed);
        let lists: Map<string, readonly OwnOrder[]> | undefined;
        if (had.byStrategy !== undefined) {
          // copied entry by entry: a Map made from a Map (`new Map(m)`) takes V8's slow generic path
          lists = new Map();
          for (const [id, l] of had.byStrategy) lists.set(id, l);
          for (const [id, l] of lists)
            if (byStrategy.has(id) || ownGoneOf.has(id))
              lists.set(id, patchedList(l, byStrategy.get(id) ?? []));
          for (const [id, l] of byStrategy) if (!lists.has(id)) lists.set(id, patchedList([], l));
        }
        ownCache = { v: ver, at: now, until, list };
        if (lists !== undefined) ownCache.byStrategy = lists;
      }
      ownDirty.clear();
      ownNew.clear();
      ownGone.clear();
      ownGoneOf.clear();
      return ownCache.list;
    },
    ownOrdersOf(strategyId) {
      const list = this.ownOrders();
      const cache = ownCache as NonNullable<typeof ownCache>;
      if (cache.byStrategy === undefined) {
        const by = new Map<string, OwnOrder[]>();
        let i = 0;
        // the list holds one entry per order, in the map's order
        for (const o of orders.values()) {
          const own = list[i++] as OwnOrder;
          if (o.strategyId === null) continue;
          const l = by.get(o.strategyId);
          if (l) l.push(own);
          else by.set(o.strategyId, [own]);
        }
        for (const l of by.values()) Object.freeze(l);
        cache.byStrategy = by;
      }
      return cache.byStrategy.get(strategyId) ?? noOwnOrders;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    version: () => ver,
    now: () => clock.now(),
  };
}
