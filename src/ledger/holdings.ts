// What we hold, and what it cost: every NFT our fills and mints brought in (store `fills`, side
// `buy`) and did not take out again (side `sell`), with its cost basis — the price paid, fees
// included, plus the gas of the transaction that brought it (store `spend`, kind `gas`) — the
// strategy that acquired it, and our listing standing on it (from the order ledger).
//
// One row of `fills` is one unit; an ERC-1155 fill of n units is n rows of the same transaction
// (the executor records them so). Units leave first-in first-out: the cost basis of what is left
// is that of the latest acquisitions.
import type { PaymentToken } from '../domain/events.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';
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

export interface Holdings extends HoldingsView {
  /** Recomputes from the store (after fills); cheap enough to call per hook batch. */
  refresh(): void;
}

export function createHoldings(o: HoldingsOptions): Holdings {
  const fills = o.store.db.prepare<
    [],
    {
      intent_id: string | null;
      tx_hash: string | null;
      side: 'buy' | 'sell';
      collection: string;
      contract: string;
      token_id: string;
      price: string;
      token: string;
      fees: string;
      filled_at: number;
      strategy: string | null;
    }
  >(
    `SELECT f.intent_id, f.tx_hash, f.side, f.collection, f.contract, f.token_id, f.price, f.token, f.fees,
            f.filled_at, i.strategy
       FROM fills f LEFT JOIN intents i ON i.id = f.intent_id
      ORDER BY f.filled_at, f.id`,
  );
  const gasOf = o.store.db.prepare<[string], { amount: string }>(
    "SELECT amount FROM spend WHERE intent_id = ? AND kind = 'gas'",
  );
  let byKey = new Map<string, Holding>();

  function refresh(): void {
    const units = new Map<string, { collection: string; nft: NftRef; units: Unit[] }>();
    const gasShare = new Map<string, { total: bigint; rows: number }>();
    const rows = fills.all();
    // gas of a transaction is shared by the units it brought in
    for (const r of rows)
      if (r.side === 'buy' && r.intent_id !== null) {
        const g = gasShare.get(r.intent_id) ?? {
          total: gasOf.all(r.intent_id).reduce((a, x) => a + BigInt(x.amount), 0n),
          rows: 0,
        };
        g.rows++;
        gasShare.set(r.intent_id, g);
      }
    for (const r of rows) {
      const key = nftKeyOf(o.chain, r.contract, r.token_id);
      let h = units.get(key);
      if (h === undefined) {
        h = {
          collection: r.collection,
          nft: {
            chain: o.chain as NftRef['chain'],
            contract: r.contract.toLowerCase() as NftRef['contract'],
            identifier: r.token_id as NftRef['identifier'],
          },
          units: [],
        };
        units.set(key, h);
      }
      if (r.side === 'sell') {
        h.units.shift();
        continue;
      }
      const g = r.intent_id !== null ? gasShare.get(r.intent_id) : undefined;
      const gas = g !== undefined && g.rows > 0 ? g.total / BigInt(g.rows) : 0n;
      // gas is paid in the native token: it joins the basis only when the price was native too
      const native = r.token.toLowerCase() === ZERO_ADDRESS;
      h.units.push({
        cost: BigInt(r.price) + (native ? gas : 0n),
        token: r.token.toLowerCase(),
        at: r.filled_at,
        strategyId: r.strategy,
      });
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
  }

  refresh();
  return {
    refresh,
    all: () => [...byKey.values()],
    /** By `nftKey(nft)` (`<chain>/<contract lower case>/<token id>`). */
    get: (key) => byKey.get(key),
  };
}
