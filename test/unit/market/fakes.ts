/** Fakes of the market view's collaborators: a scripted API, a manual clock and timers, events. */
import type { Listing, Offer } from '@opensea/api-types';
import type {
  CancelEvent,
  CollectionOfferEvent,
  ListingEvent,
  MetadataUpdateEvent,
  OrderValidityEvent,
  PaymentToken,
  SaleEvent,
  TraitOfferEvent,
} from '../../../src/domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../../../src/domain/ids.ts';
import type { MarketApi } from '../../../src/market/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import type { Timers } from '../../../src/ratelimit/clock.ts';

export const SLUG = 'apes' as CollectionSlug;
export const CONTRACT = '0x00000000000000000000000000000000000000a1';
export const WETH_ADDRESS = '0x00000000000000000000000000000000000000e7';
export const ETH: PaymentToken = {
  address: '0x0000000000000000000000000000000000000000' as Address,
  symbol: 'ETH',
  decimals: 18,
};
export const WETH: PaymentToken = { address: WETH_ADDRESS as Address, symbol: 'WETH', decimals: 18 };
export const USDC: PaymentToken = {
  address: '0x00000000000000000000000000000000000000c6' as Address,
  symbol: 'USDC',
  decimals: 6,
};
export const MAKER = '0x00000000000000000000000000000000000000b0';
export const E18 = 10n ** 18n;
export const T0 = 1_700_000_000_000;

export const hash = (n: number): OrderHash => `0x${n.toString(16).padStart(64, '0')}` as OrderHash;
export const key = (id: number | string) => `ethereum/${CONTRACT}/${id}`;

export class FakeClock {
  t = T0;
  now(): number {
    return this.t;
  }
}

export class FakeTimers implements Timers {
  readonly pending = new Map<number, { at: number; fn: () => void }>();
  #id = 0;
  constructor(private readonly clock: FakeClock) {}
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.#id;
    this.pending.set(id, { at: this.clock.t + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.pending.delete(h as number);
  }
  /** Moves time forward, firing due timers in order, letting async work settle in between. */
  async advance(ms: number): Promise<void> {
    const end = this.clock.t + ms;
    for (;;) {
      await settle();
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.pending) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.pending.delete(next[0]);
      this.clock.t = Math.max(this.clock.t, next[1].at);
      next[1].fn();
    }
    this.clock.t = end;
    await settle();
  }
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

export interface ListingSpec {
  readonly hash: OrderHash;
  readonly id: number;
  readonly price: bigint;
  readonly token?: PaymentToken;
  readonly quantity?: number;
  readonly endTime?: number;
  readonly createdAt?: number;
}

export function restListing(s: ListingSpec): Listing {
  const token = s.token ?? ETH;
  return {
    order_hash: s.hash,
    chain: 'ethereum',
    type: 'basic',
    price: { current: { currency: token.symbol, decimals: token.decimals, value: s.price.toString() } },
    protocol_data: {
      parameters: {
        offerer: MAKER,
        endTime: String(s.endTime ?? 4_000_000_000),
        consideration: [
          { itemType: token.address === ETH.address ? 0 : 1, token: token.address, startAmount: '1' },
        ],
        offer: [{ itemType: 2, token: CONTRACT }],
      },
      signature: '0x',
    },
    protocol_address: '0x0000000000000068f116a894984e2db1123eb395',
    remaining_quantity: s.quantity ?? 1,
    order_created_at: s.createdAt ?? 1_600_000_000,
    asset: { identifier: String(s.id), contract: CONTRACT },
    status: 'ACTIVE',
  } as unknown as Listing;
}

export interface OfferSpec {
  readonly hash: OrderHash;
  readonly price: bigint;
  readonly quantity?: number;
  readonly traits?: readonly { type: string; value: string }[];
  readonly numeric?: boolean;
  readonly endTime?: number;
}

export function restOffer(s: OfferSpec): Offer {
  return {
    order_hash: s.hash,
    chain: 'ethereum',
    price: { currency: 'WETH', decimals: 18, value: s.price.toString() },
    protocol_data: {
      parameters: {
        offerer: MAKER,
        endTime: String(s.endTime ?? 4_000_000_000),
        offer: [{ itemType: 1, token: WETH_ADDRESS, startAmount: '1' }],
        consideration: [],
      },
      signature: '0x',
    },
    protocol_address: '0x0000000000000068f116a894984e2db1123eb395',
    remaining_quantity: s.quantity ?? 1,
    order_created_at: 1_600_000_000,
    criteria: {
      collection: { slug: SLUG },
      ...(s.traits ? { traits: s.traits } : {}),
      ...(s.numeric ? { numeric_traits: [{ type: 'level', min: 1, max: 5 }] } : {}),
    },
    status: 'ACTIVE',
  } as unknown as Offer;
}

/** What the fake API answers; change fields between refreshes. `fail` makes a kind throw. */
export interface FakeMarketData {
  floor: number;
  floorSymbol: string;
  traits: { categories: Record<string, 'string' | 'number'>; counts: Record<string, unknown> };
  traitFloors: { trait_type: unknown; value: unknown; floor_price: unknown; payment_token_symbol: unknown }[];
  listings: Listing[];
  collectionOffers: Offer[];
  traitOffers: Offer[];
  fail: Set<string>;
  /** When set, every call waits for it. */
  gate: Promise<void> | null;
}

export function fakeApi(data: FakeMarketData) {
  const calls: { endpoint: string; priority: number | undefined; query?: unknown }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  async function answer<T>(endpoint: string, priority: number | undefined, value: () => T, query?: unknown) {
    calls.push({ endpoint, priority, query });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await Promise.resolve();
      if (data.gate) await data.gate;
      if (data.fail.has(endpoint)) throw new Error(`${endpoint} is down`);
      return value();
    } finally {
      inFlight--;
    }
  }
  const page = <T>(all: T[], q: { limit?: number; next?: string } | undefined) => {
    const limit = q?.limit ?? 100;
    const start = q?.next ? Number(q.next) : 0;
    const items = all.slice(start, start + limit);
    return { items, ...(start + limit < all.length ? { next: String(start + limit) } : {}) };
  };
  const api: MarketApi = {
    collections: {
      stats: (_slug, call) =>
        answer('stats', call?.priority, () => ({
          total: {
            volume: 0,
            volume_symbol: 'ETH',
            sales: 0,
            num_owners: 1,
            floor_price: data.floor,
            floor_price_symbol: data.floorSymbol,
          },
          intervals: [],
        })),
      traits: (_slug, call) => answer('traits', call?.priority, () => data.traits as never),
      traitFloors: (_slug, call) =>
        answer('traitFloors', call?.priority, () => ({
          chain: 'ethereum',
          floors: data.traitFloors as never,
        })),
    },
    listings: {
      best: (_slug, q, call) =>
        answer(
          'listings',
          call?.priority,
          () => {
            const p = page(data.listings, q);
            return { listings: p.items, ...(p.next ? { next: p.next } : {}) };
          },
          q,
        ),
    },
    offers: {
      collection: (_slug, q, call) =>
        answer('collectionOffers', call?.priority, () => {
          const p = page(data.collectionOffers, q);
          return { offers: p.items, ...(p.next ? { next: p.next } : {}) };
        }),
      traits: (_slug, q, call) =>
        answer('traitOffers', call?.priority, () => {
          const p = page(data.traitOffers, q);
          return { offers: p.items, ...(p.next ? { next: p.next } : {}) };
        }),
    },
  };
  return {
    api,
    calls,
    get maxInFlight() {
      return maxInFlight;
    },
  };
}

export function emptyData(): FakeMarketData {
  return {
    floor: 0,
    floorSymbol: '',
    traits: { categories: {}, counts: {} },
    traitFloors: [],
    listings: [],
    collectionOffers: [],
    traitOffers: [],
    fail: new Set(),
    gate: null,
  };
}

export const logger = silentLogger();

// ── events ───────────────────────────────────────────────────────────────

const base = (clock: FakeClock, id: string) => ({
  id,
  collection: SLUG,
  chain: 'ethereum' as const,
  occurredAt: clock.t,
  receivedAt: clock.t,
  source: 'stream' as const,
});

const nft = (id: number) => ({
  chain: 'ethereum' as const,
  contract: CONTRACT as Address,
  identifier: String(id) as TokenId,
});

export function listingEvent(
  clock: FakeClock,
  h: OrderHash,
  id: number,
  price: bigint,
  extra: Partial<ListingEvent> = {},
): ListingEvent {
  return {
    ...base(clock, `listing:${h}`),
    kind: 'listing',
    orderHash: h,
    maker: MAKER as Address,
    taker: null,
    quantity: 1n,
    price,
    paymentToken: ETH,
    expiresAt: null,
    nft: nft(id),
    isPrivate: false,
    ...extra,
  };
}

export function saleEvent(
  clock: FakeClock,
  h: OrderHash | null,
  id: number,
  price: bigint,
  extra: Partial<SaleEvent> = {},
): SaleEvent {
  return {
    ...base(clock, `sale:${h}`),
    kind: 'sale',
    nft: nft(id),
    orderHash: h,
    txHash: '0xabc',
    seller: MAKER as Address,
    buyer: '0x00000000000000000000000000000000000000b1' as Address,
    quantity: 1n,
    price,
    paymentToken: ETH,
    ...extra,
  };
}

export function metadataEvent(
  clock: FakeClock,
  id: number,
  traits: MetadataUpdateEvent['traits'],
): MetadataUpdateEvent {
  return { ...base(clock, `metadata:${id}:${clock.t}`), kind: 'metadata_update', nft: nft(id), traits };
}

export function cancelEvent(clock: FakeClock, h: OrderHash, id: number | null = null): CancelEvent {
  return {
    ...base(clock, `cancel:${h}`),
    kind: 'cancel',
    orderHash: h,
    nft: id === null ? null : nft(id),
    txHash: null,
  };
}

export function validityEvent(
  clock: FakeClock,
  kind: 'order_invalidated' | 'order_revalidated',
  h: OrderHash,
): OrderValidityEvent {
  return { ...base(clock, `${kind}:${h}`), kind, orderHash: h, nft: null };
}

export function collectionOfferEvent(
  clock: FakeClock,
  h: OrderHash,
  price: bigint,
  extra: Partial<CollectionOfferEvent> = {},
): CollectionOfferEvent {
  return {
    ...base(clock, `co:${h}`),
    kind: 'collection_offer',
    orderHash: h,
    maker: MAKER as Address,
    taker: null,
    quantity: 1n,
    price,
    paymentToken: WETH,
    expiresAt: null,
    ...extra,
  };
}

export function traitOfferEvent(
  clock: FakeClock,
  h: OrderHash,
  price: bigint,
  traits: { type: string; value: string }[],
  extra: Partial<TraitOfferEvent> = {},
): TraitOfferEvent {
  return {
    ...base(clock, `to:${h}`),
    kind: 'trait_offer',
    orderHash: h,
    maker: MAKER as Address,
    taker: null,
    quantity: 1n,
    price,
    paymentToken: WETH,
    expiresAt: null,
    traits,
    ...extra,
  };
}
