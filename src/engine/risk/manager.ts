// The stateful part of risk: the book of own open offers (worst-case exposure), reservations of
// intents in flight, the spend ledger totals, kill switch and pause. Every refusal is a
// RejectedError with a `risk_*` code, counted.
import type { PaymentToken } from '../../domain/events.ts';
import type { OrderHash } from '../../domain/ids.ts';
import { RejectedError } from '../../errors/index.ts';
import type { LedgerOrder, OrderLedger } from '../../ledger/index.ts';
import type { MarketSnapshot } from '../../market/snapshot.ts';
import {
  type AcceptOffer,
  type HoldingsView,
  type Intent,
  nftKey,
  type PlaceListing,
  type ReplaceListing,
} from '../../strategy.ts';
import type { ExecutionResult, SpendEntry } from '../ports.ts';
import {
  type Commitment,
  checkFloor,
  checkFreshness,
  checkMaxPrice,
  checkSale,
  checkShape,
  commitmentOf,
  type OldOrder,
  type Refusal,
  type RiskCode,
} from './checks.ts';
import {
  accountOf,
  collectionLimits,
  limitsFor,
  type RiskLimits,
  strategyBudget,
  type TokenLimits,
} from './limits.ts';

export interface BookEntry extends OldOrder {
  readonly orderHash: OrderHash;
  readonly strategyId: string | null;
  readonly tokenKey: string;
  /** Worst case: price x quantity. */
  readonly amount: bigint;
  readonly expiresAt: number | null;
}

interface Reservation {
  readonly intentId: string;
  readonly strategyId: string;
  readonly intent: Intent;
  readonly commitment: Commitment | null;
  readonly tokenKey: string | null;
  /** Amount held: exposure increase (offers, never negative) or spend (buy, mint, swap). */
  readonly amount: bigint;
  readonly items: bigint;
  held: 'inflight' | 'unknown';
  /** A replace whose old and new orders fit together under every cap: the new one may be posted while the old one still counts. */
  readonly overlap?: boolean;
  /** A replace that waits for its old order to go: it holds the new total minus what the old one still counts. */
  readonly sequential?: { readonly old: string; readonly total: bigint };
}

export interface CheckInput {
  readonly intentId: string;
  readonly strategyId: string;
  readonly market: MarketSnapshot;
  /** What we hold (selling intents are checked against it); default none. */
  readonly holdings?: HoldingsView;
  readonly now: number;
}

export interface ExcessCancel {
  readonly orderHash: OrderHash;
  readonly strategyId: string | null;
  readonly reason: string;
}

export interface RiskManagerOptions {
  readonly limits: RiskLimits;
  /** Our orders: the worst-case exposure of every offer that still counts. */
  readonly orders: OrderLedger;
  /** Called for every spend (persist it in the spend ledger). */
  readonly onSpend?: (entry: SpendEntry) => void;
}

interface Totals {
  exposure: bigint;
  reserved: bigint;
  spentAll: bigint;
  spentDay: bigint;
  itemsDay: bigint;
}

const zero = (): Totals => ({ exposure: 0n, reserved: 0n, spentAll: 0n, spentDay: 0n, itemsDay: 0n });
const max0 = (v: bigint) => (v < 0n ? 0n : v);
const max1 = (v: bigint) => (v < 1n ? 1n : v);

export class RiskManager {
  readonly limits: RiskLimits;
  private readonly onSpend: ((entry: SpendEntry) => void) | undefined;
  readonly orders: OrderLedger;
  private readonly reservations = new Map<string, Reservation>();
  private readonly cancelling = new Set<string>();
  /** Spend of the last `dayMs` (older entries are folded into the archived totals below). */
  private spends: SpendEntry[] = [];
  private readonly archived = new Map<string, bigint>();
  /**
   * Sums over `spends` by the archive's keys (account; account and strategy; account and
   * collection): all of it (`day`), what counts toward all-time totals (`all`: not swaps), items.
   * Kept as spends come and leave, so a total does not walk the day's spends; valid while `spends`
   * is in time order (else totals walk them).
   */
  private readonly window = new Map<string, { day: bigint; all: bigint; items: bigint }>();
  private spendsInOrder = true;
  private readonly refusals = new Map<string, number>();
  private killedAt: number | null = null;
  private pausedAt: number | null = null;

  constructor(options: RiskManagerOptions) {
    this.limits = options.limits;
    this.onSpend = options.onSpend;
    this.orders = options.orders;
  }

  // ---- switches

  get killed(): boolean {
    return this.killedAt !== null;
  }
  get paused(): boolean {
    return this.pausedAt !== null;
  }
  /** Stops every new intent except cancels (latched until resume). */
  kill(now: number): void {
    this.killedAt ??= now;
  }
  pause(now: number): void {
    this.pausedAt ??= now;
  }
  /** Clears pause and kill. Book, spend and reservations are kept. */
  resume(): void {
    this.pausedAt = null;
    this.killedAt = null;
  }

  // ---- ledger and book

  /** Seeds spend history (from the persistent ledger) at start. */
  loadSpends(entries: readonly SpendEntry[]): void {
    this.spends = [...entries].sort((a, b) => a.at - b.at);
    this.archived.clear();
    this.window.clear();
    this.spendsInOrder = true;
    for (const e of this.spends) this.count(e, 1n);
  }

  private static keysOf(s: SpendEntry): readonly string[] {
    return [`a|${s.account}`, `s|${s.account}|${s.strategyId}`, `c|${s.account}|${s.collection ?? ''}`];
  }

  /** Adds (`sign` 1) or takes out (-1) one spend from the window's sums. */
  private count(s: SpendEntry, sign: bigint): void {
    for (const k of RiskManager.keysOf(s)) {
      let w = this.window.get(k);
      if (w === undefined) {
        w = { day: 0n, all: 0n, items: 0n };
        this.window.set(k, w);
      }
      w.day += sign * s.amount;
      if (s.kind !== 'swap') w.all += sign * s.amount;
      w.items += sign * s.items;
    }
  }

  /** Folds spend older than the daily window into all-time totals (per account, strategy, collection). */
  private prune(now: number): void {
    const dayStart = now - this.limits.dayMs;
    let n = 0;
    while (n < this.spends.length && (this.spends[n]?.at ?? 0) <= dayStart) {
      const s = this.spends[n] as SpendEntry;
      n++;
      this.count(s, -1n);
      if (s.kind === 'swap') continue;
      for (const k of RiskManager.keysOf(s)) this.archived.set(k, (this.archived.get(k) ?? 0n) + s.amount);
    }
    if (n > 0) this.spends = this.spends.slice(n);
  }

  /** The book entry of a ledger order (offers only). */
  private entryOf(o: LedgerOrder): BookEntry {
    const open = o.quantity - o.filled;
    return {
      orderHash: o.orderHash,
      strategyId: o.strategyId,
      collection: o.collection,
      token: o.paymentToken,
      tokenKey: accountOf(this.limits, o.paymentToken),
      price: o.price,
      quantity: open,
      amount: o.price * open,
      trait: o.trait,
      offerType: o.side === 'collection_offer' ? 'collection' : o.side === 'trait_offer' ? 'trait' : 'item',
      expiresAt: o.expiresAt,
    };
  }

  /** Offers that still count (the ledger decides: an order counts until it is really gone). */
  private book(): readonly BookEntry[] {
    // Kept while the ledger's version stays and `counting()` gives the same list (it does while no
    // order changes and time reaches no order's end; that list is never changed): a check reads
    // the book several times, and the sweeps of many instants read the same book.
    const v = this.orders.version();
    const counting = this.orders.counting();
    if (this.bookCache !== null && this.bookCache.v === v && this.bookCache.counting === counting)
      return this.bookCache.list;
    const list: BookEntry[] = [];
    for (const o of counting) if (o.side !== 'listing') list.push(this.entryOf(o));
    this.bookCache = { v, counting, list };
    return list;
  }
  private bookCache: { v: number; counting: readonly LedgerOrder[]; list: readonly BookEntry[] } | null =
    null;

  private isCancelling(orderHash: string): boolean {
    return this.cancelling.has(orderHash) || this.orders.get(orderHash)?.state === 'cancelling';
  }

  /** An open offer of ours that still counts (and is not being cancelled), as the book sees it. */
  bookEntry(orderHash: string): BookEntry | undefined {
    const o = this.orders.get(orderHash);
    if (o === undefined || o.side === 'listing' || !this.orders.counts(o)) return undefined;
    return this.entryOf(o);
  }

  openOffers(strategyId?: string): readonly BookEntry[] {
    const out: BookEntry[] = [];
    for (const e of this.book()) if (strategyId === undefined || e.strategyId === strategyId) out.push(e);
    return out;
  }

  /** An own offer filled (the ledger saw `units` filled for `amount`): that much becomes spend. */
  recordFill(o: LedgerOrder, units: bigint, amount: bigint, now: number): void {
    if (o.side === 'listing' || units <= 0n) return;
    this.spend({
      at: now,
      strategyId: o.strategyId ?? 'unowned',
      collection: o.collection,
      token: o.paymentToken.address.toLowerCase(),
      account: accountOf(this.limits, o.paymentToken),
      amount,
      kind: 'fill',
      items: units,
      intentId: o.intentId,
    });
  }

  /** Whether a replace intent in flight may post its new order while the old one still counts. */
  replaceOverlaps(intentId: string): boolean {
    return this.reservations.get(intentId)?.overlap === true;
  }

  private spend(entry: SpendEntry): void {
    const last = this.spends[this.spends.length - 1];
    if (last !== undefined && entry.at < last.at) this.spendsInOrder = false;
    this.spends.push(entry);
    this.count(entry, 1n);
    this.onSpend?.(entry);
  }

  // ---- totals

  private totals(
    now: number,
    tokenKey: string,
    filter: { strategyId?: string; collection?: string } = {},
  ): Totals {
    this.prune(now);
    const t = zero();
    const dayStart = now - this.limits.dayMs;
    const sId = filter.strategyId;
    const col = filter.collection;
    const key =
      sId !== undefined
        ? `s|${tokenKey}|${sId}`
        : col !== undefined
          ? `c|${tokenKey}|${col}`
          : `a|${tokenKey}`;
    t.spentAll = this.archived.get(key) ?? 0n;
    for (const e of this.book()) {
      if (e.tokenKey !== tokenKey) continue;
      if (sId !== undefined && e.strategyId !== sId) continue;
      if (col !== undefined && e.collection !== col) continue;
      t.exposure += e.amount;
      t.itemsDay += e.quantity;
    }
    for (const r of this.reservations.values()) {
      if (r.tokenKey !== tokenKey) continue;
      if (sId !== undefined && r.strategyId !== sId) continue;
      // once the order is in the ledger, the ledger counts it
      if (r.commitment?.type === 'exposure' && this.orders.byIntent(r.intentId) !== undefined) continue;
      if (col !== undefined && r.commitment?.collection !== col) continue;
      const amount =
        r.sequential !== undefined
          ? max0(r.sequential.total - (this.bookEntry(r.sequential.old)?.amount ?? 0n))
          : r.amount;
      if (r.commitment?.type === 'exposure') t.exposure += amount;
      else t.reserved += amount;
      t.itemsDay += r.items;
    }
    // after prune every spend left is within the day: the window's sums are the day's
    const w = this.spendsInOrder && (sId === undefined || col === undefined) ? this.window.get(key) : null;
    if (w !== null) {
      if (w !== undefined) {
        t.spentAll += w.all;
        t.spentDay += w.day;
        t.itemsDay += w.items;
      }
      return t;
    }
    for (const s of this.spends) {
      if (s.account !== tokenKey) continue;
      if (sId !== undefined && s.strategyId !== sId) continue;
      if (col !== undefined && s.collection !== col) continue;
      if (s.kind !== 'swap') t.spentAll += s.amount;
      if (s.at > dayStart) {
        t.spentDay += s.amount;
        t.itemsDay += s.items;
      }
    }
    return t;
  }

  /** What `strategyId` may still commit in `token`; null when no limits apply to the token. */
  remaining(strategyId: string, token: PaymentToken, now: number): bigint | null {
    const lim = limitsFor(this.limits, token);
    if (lim === undefined) return null;
    const key = accountOf(this.limits, token);
    const g = this.totals(now, key);
    let left = max0(lim.maxSpendPerDay - (g.spentDay + g.exposure + g.reserved));
    const exp = max0(lim.maxExposure - g.exposure);
    if (exp < left) left = exp;
    if (lim.budget !== null) {
      const b = max0(lim.budget - (g.spentAll + g.exposure + g.reserved));
      if (b < left) left = b;
    }
    const sb = strategyBudget(this.limits, strategyId, token);
    if (sb !== null) {
      const s = this.totals(now, key, { strategyId });
      const b = max0(sb - (s.spentAll + s.exposure + s.reserved));
      if (b < left) left = b;
    }
    return left;
  }

  // ---- the check

  private refuse(r: Refusal, intent: Intent, strategyId: string): never {
    this.refusals.set(r.code, (this.refusals.get(r.code) ?? 0) + 1);
    throw new RejectedError(r.code, r.message, {
      details: { strategyId, intent: intent.kind, target: intent.target },
    });
  }

  /**
   * Checks `intent` and reserves what it commits until `settle`. Throws RejectedError (`risk_*`)
   * when any limit would be crossed. Cancels always pass (even when killed).
   */
  check(intent: Intent, input: CheckInput): void {
    const a = this.assess(intent, input);
    if ('refusal' in a) this.refuse(a.refusal, intent, input.strategyId);
    this.reservations.set(input.intentId, a.hold);
    for (const h of a.cancelling) this.cancelling.add(h);
  }

  /**
   * What `check` would answer now, changing nothing: no reservation, no refusal counted (an
   * operator's or agent's "what if"). Null when the intent would pass.
   */
  preview(intent: Intent, input: Omit<CheckInput, 'intentId'>): Refusal | null {
    const a = this.assess(intent, { ...input, intentId: '' });
    return 'refusal' in a ? a.refusal : null;
  }

  /** The verdict on `intent`: a refusal, or what to hold and which orders start cancelling. */
  private assess(
    intent: Intent,
    input: CheckInput,
  ): { readonly refusal: Refusal } | { readonly hold: Reservation; readonly cancelling: readonly string[] } {
    const { strategyId } = input;
    if (intent.kind === 'cancel_order') return holdNothing(intent, input, [intent.orderHash]);
    if (this.killedAt !== null) return { refusal: { code: 'risk_killed', message: 'kill switch is on' } };
    if (this.pausedAt !== null) return { refusal: { code: 'risk_paused', message: 'trading is paused' } };
    if (
      intent.kind === 'place_listing' ||
      intent.kind === 'replace_listing' ||
      intent.kind === 'accept_offer'
    ) {
      const r = this.checkSell(intent, input);
      if (r !== null) return { refusal: r };
      return holdNothing(intent, input, intent.kind === 'replace_listing' ? [intent.orderHash] : []);
    }
    if (intent.kind === 'swap' && this.withinAccount(intent)) {
      if (intent.amountIn <= 0n)
        return { refusal: { code: 'risk_invalid', message: 'price must be positive' } };
      return holdNothing(intent, input, []);
    }
    if (intent.kind === 'buy_listing') {
      // never buy back our own listing, nor an NFT we hold and list
      const ours = this.orders.get(intent.orderHash);
      const held = input.holdings?.get(nftKey(intent.nft));
      if (ours !== undefined || held?.listedBy != null)
        return {
          refusal: {
            code: 'risk_own_listing',
            message: `${nftKey(intent.nft)} is listed by us: not buying it`,
          },
        };
    }

    let old: BookEntry | undefined;
    if (intent.kind === 'replace_offer') {
      old = this.bookEntry(intent.orderHash);
      if (old === undefined || this.isCancelling(intent.orderHash))
        return {
          refusal: {
            code: 'risk_unknown_order',
            message: `order ${intent.orderHash} is not an open own offer`,
          },
        };
    }
    const c = commitmentOf(intent, old);
    if (c === null) return { refusal: { code: 'risk_invalid', message: 'nothing to check' } };
    const lim = limitsFor(this.limits, c.token);
    if (lim === undefined)
      return {
        refusal: { code: 'risk_no_limits', message: `no risk limits configured for token ${c.token.symbol}` },
      };
    // A replace posts its new order while the old one still counts only when both fit together;
    // otherwise the old one must be really gone first (the executor waits for it).
    const overlap = old !== undefined && this.evaluate(c, lim, undefined, input) === null;
    const r = overlap ? null : this.evaluate(c, lim, old, input);
    if (r !== null) return { refusal: r };
    const amount =
      c.type === 'exposure' ? (overlap ? c.total : max0(c.total - (old?.amount ?? 0n))) : c.total;
    const items = c.type === 'swap' ? 0n : max0(c.quantity - (old?.quantity ?? 0n));
    return {
      hold: {
        intentId: input.intentId,
        strategyId,
        intent,
        commitment: c,
        tokenKey: accountOf(this.limits, c.token),
        amount,
        items,
        held: 'inflight',
        ...(old !== undefined ? { overlap } : {}),
        ...(old !== undefined && !overlap ? { sequential: { old: old.orderHash, total: c.total } } : {}),
      },
      cancelling: old !== undefined ? [old.orderHash] : [],
    };
  }

  /**
   * A listing, a reprice or an accepted offer: we hold what is sold, no second listing of one NFT
   * (across strategies: no self-undercut), and the price within the loss and floor bounds.
   */
  private checkSell(intent: PlaceListing | ReplaceListing | AcceptOffer, input: CheckInput): Refusal | null {
    let collection: string;
    let key: string;
    let quantity: bigint;
    let token: PaymentToken;
    let unitPrice: bigint;
    if (intent.kind === 'replace_listing') {
      const old = this.orders.get(intent.orderHash);
      if (
        old === undefined ||
        old.side !== 'listing' ||
        !this.orders.counts(old) ||
        this.isCancelling(intent.orderHash)
      )
        return {
          code: 'risk_unknown_order',
          message: `order ${intent.orderHash} is not an open listing of ours`,
        };
      collection = old.collection;
      key = `${this.orders.chain}/${(old.contract ?? '').toLowerCase()}/${old.tokenId ?? ''}`;
      quantity = old.quantity - old.filled;
      token = old.paymentToken;
      unitPrice = intent.price;
    } else {
      collection = intent.collection;
      key = nftKey(intent.nft);
      quantity = intent.quantity;
      token = intent.paymentToken;
      unitPrice = intent.kind === 'accept_offer' ? intent.minProceeds / max1(intent.quantity) : intent.price;
    }
    const held = input.holdings?.get(key);
    if (intent.kind === 'accept_offer') {
      // units already on their way out through another accepted offer are not ours to sell again
      const going = this.acceptsInFlight(key);
      if (going > 0n && (held?.quantity ?? 0n) - going < intent.quantity)
        return {
          code: 'risk_sale_in_flight',
          message: `${key}: ${going} unit(s) are already being sold through an accepted offer`,
        };
    }
    if (intent.kind === 'place_listing') {
      const listed = held?.listedBy ?? this.listingInFlight(key);
      if (listed != null)
        return {
          code: 'risk_already_listed',
          message: `${key} is already listed by us (${typeof listed === 'string' ? listed : listed.orderHash}): reprice that listing instead`,
        };
    }
    return checkSale(
      {
        collection,
        nftKey: key,
        unitPrice,
        net: intent.kind === 'accept_offer',
        quantity,
        token,
        stopLoss: intent.stopLoss,
      },
      held,
      input.market.collection(collection),
      this.limits,
      input.now,
    );
  }

  /** Units of this NFT in accepted offers still in flight. */
  private acceptsInFlight(key: string): bigint {
    let units = 0n;
    for (const r of this.reservations.values())
      if (r.intent.kind === 'accept_offer' && nftKey(r.intent.nft) === key) units += r.intent.quantity;
    return units;
  }

  /** A place_listing of this NFT still in flight (its listing is not in the ledger yet). */
  private listingInFlight(key: string): string | null {
    for (const r of this.reservations.values())
      if (r.intent.kind === 'place_listing' && nftKey(r.intent.nft) === key) return r.intentId;
    return null;
  }

  private evaluate(
    c: Commitment,
    lim: TokenLimits,
    old: BookEntry | undefined,
    input: CheckInput,
  ): Refusal | null {
    const { now, market, strategyId } = input;
    const shape = checkShape(c);
    if (shape) return shape;
    const price = checkMaxPrice(c, lim);
    if (price) return price;
    if (c.collection !== null && c.type !== 'swap') {
      const col = market.collection(c.collection);
      const fresh = checkFreshness(col, c.collection, this.limits);
      if (fresh) return fresh;
      if (col !== undefined) {
        const floor = checkFloor(c, col, this.limits, now);
        if (floor) return floor;
      }
    }
    const key = accountOf(this.limits, c.token);
    const add = c.type === 'exposure' ? max0(c.total - (old?.amount ?? 0n)) : c.total;
    const g = this.totals(now, key);
    if (c.type === 'exposure' && g.exposure + add > lim.maxExposure)
      return {
        code: 'risk_exposure',
        message: `open offers would reach ${g.exposure + add} (worst case), above ${lim.maxExposure}`,
      };
    if (g.spentDay + g.exposure + g.reserved + add > lim.maxSpendPerDay)
      return {
        code: 'risk_daily_cap',
        message: `spend today + worst-case exposure would reach ${g.spentDay + g.exposure + g.reserved + add}, above ${lim.maxSpendPerDay}`,
      };
    if (c.type !== 'swap' && lim.budget !== null && g.spentAll + g.exposure + g.reserved + add > lim.budget)
      return { code: 'risk_budget', message: `the ${c.token.symbol} budget ${lim.budget} would be crossed` };
    const sb = c.type === 'swap' ? null : strategyBudget(this.limits, strategyId, c.token);
    if (sb !== null) {
      const s = this.totals(now, key, { strategyId });
      if (s.spentAll + s.exposure + s.reserved + add > sb)
        return {
          code: 'risk_strategy_budget',
          message: `strategy ${strategyId}'s ${c.token.symbol} budget ${sb} would be crossed`,
        };
    }
    if (c.collection !== null) {
      const cl = collectionLimits(this.limits, c.collection);
      if (
        cl.maxExposure !== undefined ||
        cl.maxSpendPerDay !== undefined ||
        cl.maxItemsPerDay !== undefined
      ) {
        const t = this.totals(now, key, { collection: c.collection });
        if (c.type === 'exposure' && cl.maxExposure !== undefined && t.exposure + add > cl.maxExposure)
          return {
            code: 'risk_collection_exposure',
            message: `open offers in ${c.collection} would reach ${t.exposure + add}, above ${cl.maxExposure}`,
          };
        if (cl.maxSpendPerDay !== undefined && t.spentDay + t.exposure + t.reserved + add > cl.maxSpendPerDay)
          return {
            code: 'risk_collection_daily_cap',
            message: `spend today in ${c.collection} would cross ${cl.maxSpendPerDay}`,
          };
        const items = max0(c.quantity - (old?.quantity ?? 0n));
        if (cl.maxItemsPerDay !== undefined && t.itemsDay + items > BigInt(cl.maxItemsPerDay))
          return {
            code: 'risk_collection_items',
            message: `items in ${c.collection} today would reach ${t.itemsDay + items}, above ${cl.maxItemsPerDay}`,
          };
      }
    }
    return null;
  }

  // ---- outcomes

  /**
   * Settles a reservation. done: offers enter the book (a replace's old order leaves it), buys and
   * mints become spend; failed: released; unknown: kept (counted) until settled again.
   */
  settle(
    intentId: string,
    outcome: { status: 'done'; result: ExecutionResult } | { status: 'failed' } | { status: 'unknown' },
    now: number,
  ): void {
    const r = this.reservations.get(intentId);
    if (r === undefined) return;
    if (outcome.status === 'unknown') {
      r.held = 'unknown';
      return;
    }
    this.reservations.delete(intentId);
    const intent = r.intent;
    if (outcome.status === 'failed') {
      if (
        intent.kind === 'cancel_order' ||
        intent.kind === 'replace_offer' ||
        intent.kind === 'replace_listing'
      )
        this.cancelling.delete(intent.orderHash);
      return;
    }
    if (intent.kind === 'replace_listing') this.cancelling.delete(intent.orderHash);
    const res = outcome.result;
    const c = r.commitment;
    switch (intent.kind) {
      case 'cancel_order':
        this.cancelling.delete(intent.orderHash);
        return;
      case 'place_offer':
      case 'replace_offer':
        // the ledger holds the new order (and the old one, for as long as it counts)
        if (intent.kind === 'replace_offer') this.cancelling.delete(intent.orderHash);
        return;
      case 'buy_listing':
      case 'mint':
      case 'swap':
        if (c === null) return;
        this.spend({
          at: now,
          strategyId: r.strategyId,
          collection: c.collection,
          token: c.token.address.toLowerCase(),
          account: accountOf(this.limits, c.token),
          amount: res.spent ?? c.total,
          kind: intent.kind === 'buy_listing' ? 'buy' : intent.kind,
          items: c.type === 'swap' ? 0n : c.quantity,
          intentId,
        });
        return;
    }
  }

  /**
   * A swap between two tokens of one account (ETH and WETH: the same money, wrapped or not): it
   * spends nothing of the account and adds no exposure, so it counts toward none of its caps.
   */
  private withinAccount(intent: Extract<Intent, { kind: 'swap' }>): boolean {
    return accountOf(this.limits, intent.fromToken) === accountOf(this.limits, intent.toToken);
  }

  /** Holds the worst case of an intent whose outcome is unknown (journal `sent`/`unknown` at start). */
  holdUnknown(intentId: string, strategyId: string, intent: Intent): void {
    const old = intent.kind === 'replace_offer' ? this.bookEntry(intent.orderHash) : undefined;
    const c = intent.kind === 'swap' && this.withinAccount(intent) ? null : commitmentOf(intent, old);
    this.reservations.set(intentId, {
      intentId,
      strategyId,
      intent,
      commitment: c,
      tokenKey: c === null ? null : accountOf(this.limits, c.token),
      amount: c === null ? 0n : c.total,
      items: c === null || c.type === 'swap' ? 0n : c.quantity,
      held: 'unknown',
    });
  }

  /**
   * Open offers to cancel so that worst-case exposure fits the headroom left (exposure cap, daily
   * cap after today's spend, budgets, collection caps). Largest offers first; offers already being
   * cancelled are not picked again.
   */
  excess(now: number): ExcessCancel[] {
    const out: ExcessCancel[] = [];
    const book = this.book();
    if (book.length === 0) return out;
    const picked = new Set<string>();
    const byToken = new Map<string, BookEntry[]>();
    for (const e of book) {
      const list = byToken.get(e.tokenKey);
      if (list) list.push(e);
      else byToken.set(e.tokenKey, [e]);
    }
    for (const [key, entries] of byToken) {
      const token = entries[0]?.token;
      if (token === undefined) continue;
      const lim = limitsFor(this.limits, token);
      const g = this.totals(now, key);
      const live = g.exposure - this.pendingCancel(entries, picked);
      if (lim === undefined) {
        this.pick(entries, live, 'no_limits', picked, out);
        continue;
      }
      let headroom = lim.maxExposure;
      const daily = max0(lim.maxSpendPerDay - g.spentDay - g.reserved);
      if (daily < headroom) headroom = daily;
      if (lim.budget !== null) {
        const b = max0(lim.budget - g.spentAll - g.reserved);
        if (b < headroom) headroom = b;
      }
      if (live > headroom) this.pick(entries, live - headroom, 'exposure_over_headroom', picked, out);
      const byStrategy = new Map<string, BookEntry[]>();
      const byCollection = new Map<string, BookEntry[]>();
      for (const e of entries) {
        if (e.strategyId !== null) {
          const s = byStrategy.get(e.strategyId);
          if (s === undefined) byStrategy.set(e.strategyId, [e]);
          else s.push(e);
        }
        const c = byCollection.get(e.collection);
        if (c === undefined) byCollection.set(e.collection, [e]);
        else c.push(e);
      }
      for (const [sId, list] of byStrategy) {
        const sb = strategyBudget(this.limits, sId, token);
        if (sb === null) continue;
        const s = this.totals(now, key, { strategyId: sId });
        const room = max0(sb - s.spentAll - s.reserved);
        const liveS = s.exposure - this.pendingCancel(list, picked);
        if (liveS > room) this.pick(list, liveS - room, 'strategy_budget', picked, out);
      }
      for (const [col, list] of byCollection) {
        const cl = collectionLimits(this.limits, col);
        if (cl.maxExposure === undefined && cl.maxSpendPerDay === undefined) continue;
        const t = this.totals(now, key, { collection: col });
        let room = cl.maxExposure ?? t.exposure;
        if (cl.maxSpendPerDay !== undefined) {
          const d = max0(cl.maxSpendPerDay - t.spentDay - t.reserved);
          if (d < room) room = d;
        }
        const liveC = t.exposure - this.pendingCancel(list, picked);
        if (liveC > room) this.pick(list, liveC - room, 'collection_cap', picked, out);
      }
    }
    return out;
  }

  /**
   * (excess) Picks `entries`, largest first (sorted so in place), to cancel until `over` is covered;
   * offers already being cancelled or picked are passed over.
   */
  private pick(
    entries: BookEntry[],
    over: bigint,
    reason: string,
    picked: Set<string>,
    out: ExcessCancel[],
  ): void {
    let left = over;
    for (const e of entries.sort((a, b) => (b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : 0))) {
      if (left <= 0n) break;
      if (this.isCancelling(e.orderHash) || picked.has(e.orderHash)) continue;
      picked.add(e.orderHash);
      out.push({ orderHash: e.orderHash, strategyId: e.strategyId, reason });
      left -= e.amount;
    }
  }

  /** (excess) What of `entries` is being cancelled already or picked to be. */
  private pendingCancel(entries: Iterable<BookEntry>, picked: ReadonlySet<string>): bigint {
    let s = 0n;
    for (const e of entries) if (this.isCancelling(e.orderHash) || picked.has(e.orderHash)) s += e.amount;
    return s;
  }

  /**
   * Open offers now priced above what a fresh (trait) floor allows (the floor fell under them):
   * a safety net for strategies that cannot re-price (paused hooks, disabled, slow).
   */
  overFloor(market: MarketSnapshot, now: number): ExcessCancel[] {
    const out: ExcessCancel[] = [];
    for (const e of this.book()) {
      if (this.isCancelling(e.orderHash)) continue;
      const col = market.collection(e.collection);
      if (col === undefined) continue;
      const c: Commitment = {
        token: e.token,
        collection: e.collection,
        unitPrice: e.price,
        quantity: e.quantity,
        type: 'exposure',
        total: e.amount,
        ...(e.trait !== null ? { trait: e.trait } : {}),
      };
      const r = checkFloor(c, col, this.limits, now);
      if (r?.code === 'risk_price_over_floor')
        out.push({ orderHash: e.orderHash, strategyId: e.strategyId, reason: 'above_floor' });
    }
    return out;
  }

  // ---- status

  refusalCounts(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.refusals);
  }

  countRefusal(code: RiskCode | string): void {
    this.refusals.set(code, (this.refusals.get(code) ?? 0) + 1);
  }

  status(now: number): RiskStatus {
    const tokens = new Map<string, PaymentToken>();
    const book = this.book();
    for (const e of book) tokens.set(e.tokenKey, e.token);
    for (const r of this.reservations.values())
      if (r.commitment !== null && r.tokenKey !== null) tokens.set(r.tokenKey, r.commitment.token);
    const spendTokens = new Set(this.spends.map((s) => s.account));
    const perToken: RiskTokenStatus[] = [];
    const keys = new Set([...tokens.keys(), ...spendTokens]);
    for (const key of keys) {
      const t = this.totals(now, key);
      const token = tokens.get(key);
      const lim = token === undefined ? undefined : limitsFor(this.limits, token);
      perToken.push({
        token: key,
        symbol: token?.symbol ?? null,
        decimals: token?.decimals ?? 18,
        exposure: t.exposure,
        reserved: t.reserved,
        spentToday: t.spentDay,
        spentTotal: t.spentAll,
        maxExposure: lim?.maxExposure ?? null,
        maxSpendPerDay: lim?.maxSpendPerDay ?? null,
        budget: lim?.budget ?? null,
      });
    }
    let unknown = 0;
    for (const r of this.reservations.values()) if (r.held === 'unknown') unknown++;
    return {
      killed: this.killed,
      paused: this.paused,
      openOffers: book.length,
      inFlight: this.reservations.size - unknown,
      unknown,
      tokens: perToken,
      refusals: this.refusalCounts(),
    };
  }
}

/** What an intent that commits no budget holds: in flight only (a cancel, a sale). */
function holdNothing(
  intent: Intent,
  input: CheckInput,
  cancelling: readonly string[],
): { readonly hold: Reservation; readonly cancelling: readonly string[] } {
  return {
    hold: {
      intentId: input.intentId,
      strategyId: input.strategyId,
      intent,
      commitment: null,
      tokenKey: null,
      amount: 0n,
      items: 0n,
      held: 'inflight',
    },
    cancelling,
  };
}

export interface RiskStatus {
  readonly killed: boolean;
  readonly paused: boolean;
  readonly openOffers: number;
  readonly inFlight: number;
  readonly unknown: number;
  readonly tokens: readonly RiskTokenStatus[];
  readonly refusals: Readonly<Record<string, number>>;
}

export interface RiskTokenStatus {
  readonly token: string;
  readonly symbol: string | null;
  /** Decimals of the token's smallest unit (18 for the ETH-like account). */
  readonly decimals: number;
  readonly exposure: bigint;
  readonly reserved: bigint;
  readonly spentToday: bigint;
  readonly spentTotal: bigint;
  readonly maxExposure: bigint | null;
  readonly maxSpendPerDay: bigint | null;
  readonly budget: bigint | null;
}
