/**
 * The sandbox's event log: every market action is recorded here once, with a monotonic id.
 * The REST events endpoints, the legacy v1 endpoint and the stream render from these records.
 */

export type MarketEventKind =
  | 'listing' // item_listed; REST event_type "order", order_type "listing"; v1 "created"
  | 'item_offer' // item_received_bid; REST order/item_offer; v1 "offer_entered"
  | 'collection_offer' // collection_offer; REST order/collection_offer
  | 'trait_offer' // trait_offer; REST order/trait_offer
  | 'sale' // item_sold; REST "sale"; v1 "successful"
  | 'transfer' // item_transferred; REST "transfer"; v1 "transfer"
  | 'mint' // item_transferred from 0x0; REST "mint"
  | 'cancel' // item_cancelled
  | 'metadata_update' // item_metadata_updated
  | 'order_invalidate' // order_invalidate
  | 'order_revalidate'; // order_revalidate

export interface PriceInfo {
  /** Smallest units of the payment token. */
  readonly amount: bigint;
  readonly token: { readonly address: string; readonly symbol: string; readonly decimals: number };
}

export interface NftRef {
  readonly contract: string;
  readonly identifier: string;
  readonly standard: 'erc721' | 'erc1155';
}

export interface CriteriaInfo {
  readonly traits?: readonly { readonly type: string; readonly value: string }[];
  readonly contract?: string;
  readonly encodedTokenIds?: string;
}

export interface MarketEventInput {
  readonly kind: MarketEventKind;
  readonly chain: string;
  readonly collection: string;
  readonly nft?: NftRef;
  readonly orderHash?: string;
  readonly protocolAddress?: string;
  readonly maker?: string;
  readonly taker?: string;
  readonly price?: PriceInfo;
  readonly quantity?: number;
  /** Epoch seconds. */
  readonly startDate?: number;
  readonly expirationDate?: number;
  readonly criteria?: CriteriaInfo;
  readonly isPrivate?: boolean;
  readonly txHash?: string;
  readonly blockNumber?: number;
  readonly logIndex?: number;
  readonly from?: string;
  readonly to?: string;
  readonly seller?: string;
  readonly buyer?: string;
  /** Metadata update: the token's new traits. */
  readonly traits?: readonly { readonly trait_type: string; readonly value: string | number }[];
  /** Metadata update: the other fields read from the token URI (a refresh knows them). */
  readonly metadata?: {
    readonly name?: string;
    readonly description?: string;
    readonly backgroundColor?: string;
  };
}

export interface MarketEvent extends MarketEventInput {
  /** Monotonic, starting at 1; also the legacy v1 `id`. */
  readonly id: number;
  /** Epoch milliseconds when recorded (the sandbox clock). */
  readonly timestampMs: number;
  /**
   * Per-entity monotonic version (stream `version`): an order revision counter for order events,
   * epoch ms for sales, transfers and metadata updates.
   */
  readonly version: number;
}

export interface EventFilter {
  readonly kinds?: readonly MarketEventKind[];
  readonly collection?: string;
  readonly contract?: string;
  readonly identifier?: string;
  /** Events where this address is maker, taker, from, to, seller or buyer. */
  readonly account?: string;
  /** Epoch seconds, inclusive bounds. */
  readonly after?: number;
  readonly before?: number;
  /** Only events with id < beforeId (for newest-first paging). */
  readonly beforeId?: number;
}

export type EventListener = (event: MarketEvent) => void;

export class EventLog {
  readonly #events: MarketEvent[] = [];
  readonly #listeners = new Set<EventListener>();
  readonly #orderVersions = new Map<string, number>();
  readonly #now: () => number;
  #lastMs = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  append(input: MarketEventInput): MarketEvent {
    const ms = Math.max(this.#now(), this.#lastMs);
    this.#lastMs = ms;
    let version = ms;
    if (input.orderHash && isOrderKind(input.kind)) {
      version = (this.#orderVersions.get(input.orderHash) ?? 0) + 1;
      this.#orderVersions.set(input.orderHash, version);
    }
    const event: MarketEvent = Object.freeze({
      ...input,
      id: this.#events.length + 1,
      timestampMs: ms,
      version,
    });
    this.#events.push(event);
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // a listener's failure never stops recording or the other listeners
      }
    }
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get size(): number {
    return this.#events.length;
  }

  all(): readonly MarketEvent[] {
    return this.#events;
  }

  /** Matching events, newest first, at most `limit`. */
  query(filter: EventFilter, limit: number): MarketEvent[] {
    const out: MarketEvent[] = [];
    const start =
      filter.beforeId !== undefined
        ? Math.min(filter.beforeId - 1, this.#events.length)
        : this.#events.length;
    for (let i = start - 1; i >= 0 && out.length < limit; i--) {
      const e = this.#events[i] as MarketEvent;
      if (matches(e, filter)) out.push(e);
    }
    return out;
  }
}

function isOrderKind(kind: MarketEventKind): boolean {
  return (
    kind === 'listing' ||
    kind === 'item_offer' ||
    kind === 'collection_offer' ||
    kind === 'trait_offer' ||
    kind === 'cancel' ||
    kind === 'order_invalidate' ||
    kind === 'order_revalidate'
  );
}

function matches(e: MarketEvent, f: EventFilter): boolean {
  if (f.kinds && !f.kinds.includes(e.kind)) return false;
  if (f.collection !== undefined && e.collection !== f.collection) return false;
  if (f.contract !== undefined && e.nft?.contract.toLowerCase() !== f.contract.toLowerCase()) return false;
  if (f.identifier !== undefined && e.nft?.identifier !== f.identifier) return false;
  const secs = Math.floor(e.timestampMs / 1000);
  if (f.after !== undefined && secs < f.after) return false;
  if (f.before !== undefined && secs > f.before) return false;
  if (f.account !== undefined) {
    const a = f.account.toLowerCase();
    const parties = [e.maker, e.taker, e.from, e.to, e.seller, e.buyer];
    if (!parties.some((p) => p !== undefined && p.toLowerCase() === a)) return false;
  }
  return true;
}
