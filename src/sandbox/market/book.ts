/**
 * The order book's records: one `StoredOrder` per accepted order, with what the market derived
 * when it verified it (kind, NFT, currency, criteria) and the state it follows from the chain.
 */
import type { CatalogCollection } from '../catalog/catalog.ts';
import type { CriteriaResolution, OfferCriteria } from './criteria.ts';
import { currentAmount, ItemType, type OrderComponents } from './seaport.ts';
import type { OrderKind, OrderSide, OrderStatus } from './types.ts';

export interface Currency {
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
  /** Native ETH (item type 0) rather than an ERC20. */
  readonly native: boolean;
}

export interface StoredOrder {
  readonly hash: string;
  readonly side: OrderSide;
  readonly kind: OrderKind;
  readonly components: OrderComponents;
  /** '0x' for an order validated on chain without an off-chain signature. */
  readonly signature: string;
  readonly collection: CatalogCollection;
  /** Listings and item offers: the NFT; criteria offers: none (any token of the criteria). */
  readonly tokenId?: bigint;
  /** Index of the NFT item: in `offer` for listings, in `consideration` for offers. */
  readonly nftIndex: number;
  /** Total NFT units of the order (the NFT item's amount). */
  readonly quantity: bigint;
  readonly currency: Currency;
  readonly criteria?: OfferCriteria;
  readonly resolution?: CriteriaResolution;
  /** Zone-protected (restricted order type with the signed zone). */
  readonly zoned: boolean;
  /** Sandbox clock, epoch ms. */
  readonly createdAtMs: number;
  /** The block the creation checks read; status re-checks at older blocks are deferred. */
  readonly verifiedAtBlock: number;
  status: OrderStatus;
  remaining: bigint;
  /** Chain time (s) at which the last zone signature issued for this order expires. */
  lastSignatureExpiry?: bigint;
  /** Sandbox clock (ms) of the last status change to a final state. */
  closedAtMs?: number;
  /**
   * The block whose state the last status re-check read. The state at a block never changes, so a
   * re-check at the same block is skipped (the hot path of fulfillment data).
   */
  checkedAtBlock?: number;
}

export const FINAL_STATUSES: readonly OrderStatus[] = ['FULFILLED', 'CANCELLED', 'EXPIRED'];
export const isFinal = (s: OrderStatus): boolean => FINAL_STATUSES.includes(s);

const isCurrencyItem = (t: number) => t === ItemType.NATIVE || t === ItemType.ERC20;

/** The price of the whole order at chain time `now` (listings: consideration paid; offers: offered). */
export function orderPrice(o: StoredOrder, now: bigint): bigint {
  const c = o.components;
  if (o.side === 'listing') {
    let sum = 0n;
    for (const it of c.consideration.slice(0, c.totalOriginalConsiderationItems)) {
      if (isCurrencyItem(it.itemType))
        sum += currentAmount(it.startAmount, it.endAmount, c.startTime, c.endTime, now, true);
    }
    return sum;
  }
  let sum = 0n;
  for (const it of c.offer) {
    if (isCurrencyItem(it.itemType))
      sum += currentAmount(it.startAmount, it.endAmount, c.startTime, c.endTime, now, false);
  }
  return sum;
}

/** The price of what is left of the order (`price × remaining / quantity`). */
export function remainingPrice(o: StoredOrder, now: bigint): bigint {
  const p = orderPrice(o, now);
  if (o.quantity === 0n) return p;
  return (p * o.remaining) / o.quantity;
}

/** Compares unit prices a/b (price per NFT unit) without rounding: negative when a < b. */
export function compareUnitPrice(a: StoredOrder, b: StoredOrder, now: bigint): number {
  const l = orderPrice(a, now) * b.quantity;
  const r = orderPrice(b, now) * a.quantity;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** The book: orders by hash plus the indexes the chain watcher and queries need. */
export class OrderBook {
  readonly #orders = new Map<string, StoredOrder>();
  readonly #byMaker = new Map<string, Set<string>>();
  readonly #byToken = new Map<string, Set<string>>();

  static tokenKey(contract: string, id: bigint): string {
    return `${contract.toLowerCase()}:${id}`;
  }

  get size(): number {
    return this.#orders.size;
  }

  get(hash: string): StoredOrder | undefined {
    return this.#orders.get(hash.toLowerCase());
  }

  add(o: StoredOrder): void {
    this.#orders.set(o.hash, o);
    const maker = o.components.offerer.toLowerCase();
    const m = this.#byMaker.get(maker) ?? new Set<string>();
    this.#byMaker.set(maker, m);
    m.add(o.hash);
    if (o.tokenId !== undefined) {
      const k = OrderBook.tokenKey(o.collection.contract, o.tokenId);
      const t = this.#byToken.get(k) ?? new Set<string>();
      this.#byToken.set(k, t);
      t.add(o.hash);
    }
  }

  all(): IterableIterator<StoredOrder> {
    return this.#orders.values();
  }

  byMaker(address: string): StoredOrder[] {
    const set = this.#byMaker.get(address.toLowerCase());
    return set ? [...set].map((h) => this.#orders.get(h) as StoredOrder) : [];
  }

  byToken(contract: string, id: bigint): StoredOrder[] {
    const set = this.#byToken.get(OrderBook.tokenKey(contract, id));
    return set ? [...set].map((h) => this.#orders.get(h) as StoredOrder) : [];
  }
}
