// What we hold, what it cost and what selling it earned: every NFT our fills and mints brought in
// (store `fills`, side `buy`) and did not take out again (side `sell`), with its cost basis — the
// price paid, fees included, plus the gas of the transaction that brought it (store `spend`, kind
// `gas`) — the strategy that acquired it, and our listing standing on it (from the order ledger).
// Each sale is realized profit or loss to the wei: proceeds − cost basis − marketplace and creator
// fees − gas of the sale (an accepted offer's transaction; a listing taken by a buyer costs none).
//
// A row of `fills` carries its units (ERC-1155 quantities); units leave first-in first-out, so the
// cost basis of what is left is that of the latest acquisitions.
import type { PaymentToken } from '../domain/events.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';
import { type MarketSnapshot, netOfFees } from '../market/snapshot.ts';
import type { FillRecord, Store } from '../store/index.ts';
import type { Holding, HoldingsView, NftRef } from '../strategy.ts';
import type { OrderLedger } from './ledger.ts';

interface Unit {
  readonly cost: bigint;
  readonly token: string;
  readonly at: number;
  readonly strategyId: string | null;
}

export interface HoldingsOptions {
  readonly store: Store;
  readonly ledger: OrderLedger;
  /** The API's chain name (NFT references carry it). */
  readonly chain: string;
  /** Symbol and decimals of a payment token by address (zero address = the native token). */
  readonly tokenOf: (address: string) => PaymentToken;
  /**
   * The strategy of an intent, where the intents are not in the store (a backtest keeps its
   * journal in memory). Default: the store's intents.
   */
  readonly strategyOfIntent?: (intentId: string) => string | null | undefined;
}

/** A holding's line in the PnL by strategy and by collection. */
const strategyOfHolding = (h: Holding): string => h.strategyId ?? 'unknown';
const collectionOfHolding = (h: Holding): string => h.collection;

/** The same key as `nftKey` of the strategy API. */
const nftKeyOf = (chain: string, contract: string, tokenId: string) =>
  `${chain}/${contract.toLowerCase()}/${tokenId}`;

/** One sale (of `quantity` units): realized = proceeds − fees − cost − sellGas (`token`'s smallest unit). */
export interface RealizedSale {
  readonly at: number;
  readonly collection: string;
  readonly nft: NftRef;
  readonly quantity: bigint;
  readonly token: PaymentToken;
  /** The strategy that sold it (its listing or accepted offer); null when not known. */
  readonly soldBy: string | null;
  /** The strategy that acquired it. */
  readonly acquiredBy: string | null;
  /** Gross price the buyer paid (listing) or the offer's amount (accepted offer). */
  readonly proceeds: bigint;
  /** Marketplace and creator fees taken out of the proceeds. */
  readonly fees: bigint;
  /** The units' cost basis: price paid plus their share of the gas of their buys. */
  readonly cost: bigint;
  /** Gas of the sale's own transaction (accepting an offer), native token. */
  readonly sellGas: bigint;
  readonly realized: bigint;
  readonly txHash: string | null;
  /** The store's fill row of the sale. */
  readonly fillId: number;
}

export interface PnlLine {
  /** A strategy id or a collection slug (see `by`). */
  readonly key: string;
  readonly token: PaymentToken;
  readonly sales: number;
  readonly realized: bigint;
  /**
   * Held units valued at the fresh floor, minus their cost (null: no floor known): what selling
   * them there would bring, less the collection's fees when they are known (`sellerFeeBps`).
   */
  readonly unrealizedAtFloor: bigint | null;
  /** The same at the best collection offer (null: none known). */
  readonly unrealizedAtBestOffer: bigint | null;
  readonly held: number;
}

export interface Holdings extends HoldingsView {
  /**
   * Brings the holdings up to date with the store and the ledger: applies the fills and gas
   * recorded since the last call (a query that finds nothing when nothing happened), so calling it
   * before every decision is cheap.
   */
  refresh(): void;
  /**
   * Checks every holding against the chain (`balanceOf` answers the units our wallet has: 0 or 1
   * for ERC-721); a holding the chain shows fewer units of shrinks to them. Returns how many were
   * checked.
   */
  verify(balanceOf: (nft: NftRef) => Promise<bigint>, now?: number): Promise<number>;
  /** Every unit sold, in order, with its realized profit or loss. */
  realized(): readonly RealizedSale[];
  /** Gas (native token, wei) of an intent's transaction and the approvals it needed. */
  gasOf(intentId: string | undefined): bigint;
  /** Realized and unrealized profit and loss per strategy (seller, else acquirer) and per collection. */
  pnl(market?: Pick<MarketSnapshot, 'collection'>): {
    readonly byStrategy: readonly PnlLine[];
    readonly byCollection: readonly PnlLine[];
  };
}

export function createHoldings(o: HoldingsOptions): Holdings {
  /** The strategy of an intent (who acquired or sold), cached: intents never change strategy. */
  const strategies = new Map<string, string | null>();
  const strategyOf = (intentId: string | undefined): string | null => {
    if (intentId === undefined) return null;
    let v = strategies.get(intentId);
    if (v === undefined) {
      v =
        (o.strategyOfIntent !== undefined
          ? o.strategyOfIntent(intentId)
          : o.store.intents.get(intentId)?.strategy) ?? null;
      strategies.set(intentId, v);
    }
    return v;
  };
  const gasOf = o.store.db.prepare<[string], { amount: string }>(
    // the intent's own transaction and the approvals it needed (`gas:<what>`)
    "SELECT amount FROM spend WHERE intent_id = ? AND (kind = 'gas' OR kind LIKE 'gas:%')",
  );
  const gasSince = o.store.db.prepare<[number], { id: number; intent_id: string }>(
    "SELECT id, intent_id FROM spend WHERE id > ? AND (kind = 'gas' OR kind LIKE 'gas:%') ORDER BY id",
  );
  const gasOfIntent = (id: string | undefined) =>
    id === undefined ? 0n : gasOf.all(id).reduce((a, x) => a + BigInt(x.amount), 0n);

  // Fills are applied as they come (ids grow): each refresh reads only the fills and gas entries
  // recorded since the last, so its cost follows what changed, not the whole history. Two things
  // can change what an applied fill contributed — gas recorded later for its intent, or a second
  // buy fill of one intent (its gas is shared by all the intent's units) — and both start over
  // from the first fill, which gives the same holdings as reading everything at once.
  interface Held {
    readonly collection: string;
    readonly nft: NftRef;
    /** Oldest first; sales take from the front. */
    units: Unit[];
  }
  let units = new Map<string, Held>();
  let sales: RealizedSale[] = [];
  /** Sales and realized PnL so far per strategy and per collection (key order: first sale). */
  interface SalesLine {
    readonly token: PaymentToken;
    sales: number;
    realized: bigint;
  }
  const salesBy = { strategy: new Map<string, SalesLine>(), collection: new Map<string, SalesLine>() };
  const saleKeys = {
    strategy: (s: RealizedSale) => s.soldBy ?? s.acquiredBy ?? 'unknown',
    collection: (s: RealizedSale) => s.collection,
  };
  function noteSales(sold: readonly RealizedSale[]): void {
    for (const by of ['strategy', 'collection'] as const)
      for (const s of sold) {
        const key = saleKeys[by](s);
        let l = salesBy[by].get(key);
        if (l === undefined) {
          l = { token: s.token, sales: 0, realized: 0n };
          salesBy[by].set(key, l);
        }
        l.sales++;
        l.realized += s.realized;
      }
  }
  let lastFillId = 0;
  let lastGasId = 0;
  /** Intents of applied fills (their gas is in the basis or the sale). */
  let applied = new Set<string>();
  /** Intents of applied buy fills. */
  let bought = new Set<string>();
  let byKey = new Map<string, Holding>();
  /** `all()`'s answer: the same array until a holding changes (callers may compare it by identity). */
  let allCache: readonly Holding[] | null = null;
  /** Units the chain showed at the last verify, by NFT key (absent: not checked yet). */
  const onChain = new Map<string, { units: bigint; at: number }>();

  // our listings on held NFTs, from the ledger: read again when one of our listings changes or
  // one of them stops counting with time (it expires, or its cancel window passes)
  let listings = new Map<string, Holding['listedBy']>();
  let listingsDirty = true;
  let listingsUntil = Number.POSITIVE_INFINITY;
  o.ledger.onChange((c) => {
    if (c.order.side === 'listing' || c.previous?.side === 'listing') listingsDirty = true;
  });
  /** Reads our listings again; the holdings whose listing changed are built again (`touched`). */
  function readListings(): void {
    const next = new Map<string, Holding['listedBy']>();
    let until = Number.POSITIVE_INFINITY;
    for (const l of o.ledger.counting())
      if (l.side === 'listing' && l.contract !== null && l.tokenId !== null) {
        const key = nftKeyOf(o.chain, l.contract, l.tokenId);
        const had = listings.get(key);
        next.set(
          key,
          had != null &&
            had.orderHash === l.orderHash &&
            had.strategyId === l.strategyId &&
            had.price === l.price
            ? had
            : { orderHash: l.orderHash, strategyId: l.strategyId, price: l.price },
        );
        until = Math.min(until, l.expiresAt, l.cancelValidUntil ?? Number.POSITIVE_INFINITY);
      }
    for (const [key, l] of next) if (listings.get(key) !== l) touched.add(key);
    for (const key of listings.keys()) if (!next.has(key)) touched.add(key);
    listings = next;
    listingsUntil = until;
    listingsDirty = false;
  }

  /** Every holding is built again at the next refresh (listings or the chain's word changed). */
  let rebuildAll = true;

  function startOver(): void {
    rebuildAll = true;
    units = new Map();
    sales = [];
    salesBy.strategy.clear();
    salesBy.collection.clear();
    lastFillId = 0;
    applied = new Set();
    bought = new Set();
  }

  const PAGE = 5_000;
  function newFills(): FillRecord[] {
    const out: FillRecord[] = [];
    let from = lastFillId;
    for (;;) {
      const page = o.store.fills.after(from, PAGE);
      out.push(...page);
      if (page.length < PAGE) return out;
      from = (page[page.length - 1] as FillRecord).id;
    }
  }

  /** Applies fills in id order (the batch's gas shares computed over the batch, as over everything). */
  function apply(rows: readonly FillRecord[]): RealizedSale[] {
    const sold: RealizedSale[] = [];
    // the gas of an intent is shared by every unit it brought in (the first also takes the remainder)
    const gasShare = new Map<string, { total: bigint; units: bigint; charged: boolean }>();
    for (const r of rows)
      if (r.side === 'buy' && r.intentId !== undefined) {
        const g = gasShare.get(r.intentId) ?? { total: gasOfIntent(r.intentId), units: 0n, charged: false };
        g.units += r.quantity;
        gasShare.set(r.intentId, g);
      }
    for (const r of rows) {
      if (r.intentId !== undefined) {
        applied.add(r.intentId);
        if (r.side === 'buy') bought.add(r.intentId);
      }
      const key = nftKeyOf(o.chain, r.contract, r.tokenId);
      let h = units.get(key);
      if (h === undefined) {
        h = {
          collection: r.collection,
          nft: {
            chain: o.chain as NftRef['chain'],
            contract: r.contract.toLowerCase() as NftRef['contract'],
            identifier: r.tokenId as NftRef['identifier'],
          },
          units: [],
        };
        units.set(key, h);
      }
      touched.add(key);
      const q = r.quantity > 0n ? r.quantity : 1n;
      const price = r.price;
      if (r.side === 'sell') {
        const out = h.units.splice(0, Number(q));
        const sellGas = gasOfIntent(r.intentId);
        const fees = r.fees;
        const cost = out.reduce((a, u) => a + u.cost, 0n);
        sold.push({
          at: r.filledAt,
          collection: r.collection,
          nft: h.nft,
          quantity: q,
          token: o.tokenOf(r.token),
          soldBy: strategyOf(r.intentId),
          acquiredBy: out[0]?.strategyId ?? null,
          proceeds: price,
          fees,
          cost,
          sellGas,
          realized: price - fees - cost - sellGas,
          txHash: r.txHash ?? null,
          fillId: r.id,
        });
        continue;
      }
      const g = r.intentId !== undefined ? gasShare.get(r.intentId) : undefined;
      // gas is paid in the native token: it joins the basis only when the price was native too
      const native = r.token.toLowerCase() === ZERO_ADDRESS;
      for (let i = 0n; i < q; i++) {
        let cost = price / q + (i === 0n ? price % q : 0n);
        if (g !== undefined && g.units > 0n && native) {
          cost += g.total / g.units;
          if (!g.charged) cost += g.total % g.units;
          g.charged = true;
        }
        h.units.push({
          cost,
          token: r.token.toLowerCase(),
          at: r.filledAt,
          strategyId: strategyOf(r.intentId),
        });
      }
    }
    if (rows.length > 0) lastFillId = (rows[rows.length - 1] as FillRecord).id;
    return sold;
  }

  /** NFT keys whose holding must be built again. */
  const touched = new Set<string>();

  /** The holding of one NFT as the chain's last word caps it; undefined when none is left. */
  function holdingOf(key: string, h: Held): Holding | undefined {
    let list = h.units;
    // what the chain says we still have caps what the fills say (units moved out by hand:
    // the newest leave first here, so the basis left is the oldest units')
    const chain = onChain.get(key);
    if (chain !== undefined) {
      // units acquired before the check: at most what the chain showed; later ones on top
      const before = list.filter((u) => u.at <= chain.at);
      if (chain.units < BigInt(before.length))
        list = [...before.slice(0, Number(chain.units)), ...list.filter((u) => u.at > chain.at)];
    }
    if (list.length === 0) return undefined;
    const first = list[0] as Unit;
    return {
      collection: h.collection,
      nft: h.nft,
      quantity: BigInt(list.length),
      costBasis: list.reduce((a, u) => a + u.cost, 0n),
      costToken: o.tokenOf(first.token),
      acquiredAt: first.at,
      strategyId: first.strategyId,
      listedBy: listings.get(key) ?? null,
    };
  }

  // what the store had at the last refresh (its write counters: nothing new, no query)
  let seenFills = -1;
  let seenSpend = -1;

  function refresh(): void {
    const fillsV = o.store.fills.version();
    const spendV = o.store.spend.version();
    if (
      fillsV === seenFills &&
      spendV === seenSpend &&
      !rebuildAll &&
      !listingsDirty &&
      o.ledger.now() < listingsUntil
    )
      return;
    let again = false;
    if (spendV !== seenSpend) {
      // gas entries are only ever added (what is removed is a failed intent's price reservation)
      const gas = gasSince.all(lastGasId);
      if (gas.length > 0) {
        lastGasId = (gas[gas.length - 1] as { id: number }).id;
        if (gas.some((g) => applied.has(g.intent_id))) again = true;
      }
    }
    seenSpend = spendV;
    let rows = again || fillsV === seenFills ? [] : newFills();
    seenFills = fillsV;
    if (!again && rows.some((r) => r.side === 'buy' && r.intentId !== undefined && bought.has(r.intentId)))
      again = true;
    if (again) {
      startOver();
      rows = newFills();
    }
    const sold = apply(rows);
    if (sold.length > 0) {
      sales = sales.concat(sold);
      noteSales(sold);
    }
    if (listingsDirty || o.ledger.now() >= listingsUntil) readListings();
    if (touched.size > 0 || rebuildAll) allCache = null;
    if (!rebuildAll) {
      for (const key of touched) {
        const h = units.get(key);
        const built = h === undefined ? undefined : holdingOf(key, h);
        if (built === undefined) byKey.delete(key);
        else byKey.set(key, built);
      }
    } else {
      const next = new Map<string, Holding>();
      for (const [key, h] of units) {
        const built = holdingOf(key, h);
        if (built !== undefined) next.set(key, built);
      }
      byKey = next;
      rebuildAll = false;
    }
    touched.clear();
  }

  /** Every holding, in the order of each NFT's first fill (however its holding was last built). */
  function all(): readonly Holding[] {
    if (allCache === null) {
      const list: Holding[] = [];
      for (const key of units.keys()) {
        const h = byKey.get(key);
        if (h !== undefined) list.push(h);
      }
      allCache = Object.freeze(list);
    }
    return allCache;
  }

  /** PnL lines of the sales so far by key (`sold`) and of the holdings by their key (`keyOf`). */
  function pnlLines(
    sold: ReadonlyMap<string, SalesLine>,
    keyOf: (h: Holding) => string,
    market: Pick<MarketSnapshot, 'collection'> | undefined,
  ): PnlLine[] {
    const out = new Map<
      string,
      {
        token: PaymentToken;
        sales: number;
        realized: bigint;
        floor: bigint | null;
        offer: bigint | null;
        held: number;
      }
    >();
    for (const [key, s] of sold)
      out.set(key, { token: s.token, sales: s.sales, realized: s.realized, floor: 0n, offer: 0n, held: 0 });
    for (const h of all()) {
      const key = keyOf(h);
      let l = out.get(key);
      if (l === undefined) {
        l = { token: h.costToken, sales: 0, realized: 0n, floor: 0n, offer: 0n, held: 0 };
        out.set(key, l);
      }
      l.held += Number(h.quantity);
      const col = market?.collection(h.collection);
      const floor = col?.floor?.value.price;
      const offer = col?.bestCollectionOffer?.value.price;
      // what selling them there would bring: less the collection's fees when they are known, as
      // a sale is booked (realized)
      const fee = col?.sellerFeeBps ?? null;
      l.floor =
        l.floor === null || floor === undefined
          ? null
          : l.floor + netOfFees(floor * h.quantity, fee) - h.costBasis;
      l.offer =
        l.offer === null || offer === undefined
          ? null
          : l.offer + netOfFees(offer * h.quantity, fee) - h.costBasis;
    }
    return [...out].map(([key, l]) => ({
      key,
      token: l.token,
      sales: l.sales,
      realized: l.realized,
      unrealizedAtFloor: l.held === 0 ? 0n : l.floor,
      unrealizedAtBestOffer: l.held === 0 ? 0n : l.offer,
      held: l.held,
    }));
  }

  function pnl(market?: Pick<MarketSnapshot, 'collection'>) {
    return {
      byStrategy: pnlLines(salesBy.strategy, strategyOfHolding, market),
      byCollection: pnlLines(salesBy.collection, collectionOfHolding, market),
    };
  }

  refresh();
  return {
    refresh,
    async verify(balanceOf, now = Date.now()) {
      let changed = false;
      for (const [key, h] of byKey) {
        let units: bigint;
        try {
          units = await balanceOf(h.nft);
        } catch {
          continue; // unreadable now: the fills' word stands until the next check
        }
        if (onChain.get(key)?.units !== units) changed = true;
        onChain.set(key, { units, at: now });
      }
      if (changed) {
        rebuildAll = true;
        refresh();
      }
      return [...byKey.values()].filter((h) =>
        onChain.has(nftKeyOf(o.chain, h.nft.contract, h.nft.identifier)),
      ).length;
    },
    realized: () => sales,
    gasOf: gasOfIntent,
    pnl,
    all,
    /** By `nftKey(nft)` (`<chain>/<contract lower case>/<token id>`). */
    get: (key) => byKey.get(key),
  };
}
