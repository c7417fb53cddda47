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
import type { MarketSnapshot } from '../market/snapshot.ts';
import type { Store } from '../store/index.ts';
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
}

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
  /** Held units valued at the fresh floor, minus their cost (null: no floor known). */
  readonly unrealizedAtFloor: bigint | null;
  /** Held units valued at the best collection offer, minus their cost (null: none known). */
  readonly unrealizedAtBestOffer: bigint | null;
  readonly held: number;
}

export interface Holdings extends HoldingsView {
  /** Recomputes from the store (after fills); cheap enough to call per hook batch. */
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
      v = o.store.intents.get(intentId)?.strategy ?? null;
      strategies.set(intentId, v);
    }
    return v;
  };
  const gasOf = o.store.db.prepare<[string], { amount: string }>(
    // the intent's own transaction and the approvals it needed (`gas:<what>`)
    "SELECT amount FROM spend WHERE intent_id = ? AND (kind = 'gas' OR kind LIKE 'gas:%')",
  );
  let byKey = new Map<string, Holding>();
  /** Units the chain showed at the last verify, by NFT key (absent: not checked yet). */
  const onChain = new Map<string, { units: bigint; at: number }>();
  let sales: RealizedSale[] = [];
  const gasOfIntent = (id: string | undefined) =>
    id === undefined ? 0n : gasOf.all(id).reduce((a, x) => a + BigInt(x.amount), 0n);

  function refresh(): void {
    const units = new Map<string, { collection: string; nft: NftRef; units: Unit[] }>();
    const sold: RealizedSale[] = [];
    const rows = o.store.fills.list();
    // the gas of an intent is shared by every unit it brought in (the first also takes the remainder)
    const gasShare = new Map<string, { total: bigint; units: bigint; charged: boolean }>();
    for (const r of rows)
      if (r.side === 'buy' && r.intentId !== undefined) {
        const g = gasShare.get(r.intentId) ?? { total: gasOfIntent(r.intentId), units: 0n, charged: false };
        g.units += r.quantity;
        gasShare.set(r.intentId, g);
      }
    for (const r of rows) {
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
    const listings = new Map<string, Holding['listedBy']>();
    for (const l of o.ledger.counting())
      if (l.side === 'listing' && l.contract !== null && l.tokenId !== null)
        listings.set(nftKeyOf(o.chain, l.contract, l.tokenId), {
          orderHash: l.orderHash,
          strategyId: l.strategyId,
          price: l.price,
        });
    const next = new Map<string, Holding>();
    for (const [key, h] of units) {
      // what the chain says we still have caps what the fills say (units moved out by hand:
      // the newest leave first here, so the basis left is the oldest units')
      const chain = onChain.get(key);
      if (chain !== undefined) {
        // units acquired before the check: at most what the chain showed; later ones on top
        const before = h.units.filter((u) => u.at <= chain.at);
        const after = h.units.filter((u) => u.at > chain.at);
        if (chain.units < BigInt(before.length))
          h.units = [...before.slice(0, Number(chain.units)), ...after];
      }
      if (h.units.length === 0) continue;
      const first = h.units[0] as Unit;
      next.set(key, {
        collection: h.collection,
        nft: h.nft,
        quantity: BigInt(h.units.length),
        costBasis: h.units.reduce((a, u) => a + u.cost, 0n),
        costToken: o.tokenOf(first.token),
        acquiredAt: first.at,
        strategyId: first.strategyId,
        listedBy: listings.get(key) ?? null,
      });
    }
    byKey = next;
    sales = sold;
  }

  function pnl(market?: Pick<MarketSnapshot, 'collection'>) {
    const lines = (keyOfSale: (s: RealizedSale) => string, keyOfHolding: (h: Holding) => string) => {
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
      const line = (key: string, token: PaymentToken) => {
        let l = out.get(key);
        if (l === undefined) {
          l = { token, sales: 0, realized: 0n, floor: 0n, offer: 0n, held: 0 };
          out.set(key, l);
        }
        return l;
      };
      for (const s of sales) {
        const l = line(keyOfSale(s), s.token);
        l.sales++;
        l.realized += s.realized;
      }
      for (const h of byKey.values()) {
        const l = line(keyOfHolding(h), h.costToken);
        l.held += Number(h.quantity);
        const col = market?.collection(h.collection);
        const floor = col?.floor?.value.price;
        const offer = col?.bestCollectionOffer?.value.price;
        l.floor = l.floor === null || floor === undefined ? null : l.floor + floor * h.quantity - h.costBasis;
        l.offer = l.offer === null || offer === undefined ? null : l.offer + offer * h.quantity - h.costBasis;
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
    };
    return {
      byStrategy: lines(
        (s) => s.soldBy ?? s.acquiredBy ?? 'unknown',
        (h) => h.strategyId ?? 'unknown',
      ),
      byCollection: lines(
        (s) => s.collection,
        (h) => h.collection,
      ),
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
      if (changed) refresh();
      return [...byKey.values()].filter((h) =>
        onChain.has(nftKeyOf(o.chain, h.nft.contract, h.nft.identifier)),
      ).length;
    },
    realized: () => sales,
    gasOf: gasOfIntent,
    pnl,
    all: () => [...byKey.values()],
    /** By `nftKey(nft)` (`<chain>/<contract lower case>/<token id>`). */
    get: (key) => byKey.get(key),
  };
}
