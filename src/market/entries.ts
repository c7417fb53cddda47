/**
 * The market view's unit of knowledge about one order: an `OrderEntry`, built from a REST order
 * (`Listing`/`Offer` of the collection-based endpoints) or from a stream event. Pure functions.
 */
import type { Listing, Offer } from '@opensea/api-types';
import type { CollectionOfferEvent, ListingEvent, PaymentToken, TraitOfferEvent } from '../domain/events.ts';
import { nftKey } from '../domain/events.ts';
import type { Address, OrderHash } from '../domain/ids.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';
import type { Known, PriceLevel, Provenance } from './snapshot.ts';
import { type TokenRegistry, unitPrice } from './units.ts';

export type EntrySide = 'listing' | 'collection_offer' | 'trait_offer';

export interface OrderEntry {
  readonly side: EntrySide;
  readonly orderHash: OrderHash;
  /** `chain/contract/identifier` for listings; null for criteria offers. */
  readonly nftKey: string | null;
  /** Single text trait of a trait offer; null otherwise (multi-trait and numeric offers have none). */
  readonly traitKey: string | null;
  /** Units still open. */
  remaining: bigint;
  /** The price level strategies see (`price` is per unit). */
  readonly level: PriceLevel;
  /** Creation time (ms) used to break price ties like the API does (earlier first). */
  readonly createdAt: number;
  readonly learnedAt: number;
  readonly from: Provenance;
  /** `level` with its age, as the snapshot hands it out (built once per entry). */
  readonly known: Known<PriceLevel>;
}

type EntryFields = Omit<OrderEntry, 'known'>;

function finish(e: EntryFields): OrderEntry {
  // built field by field (not spread): one of these per order event on the market view's path
  return {
    side: e.side,
    orderHash: e.orderHash,
    nftKey: e.nftKey,
    traitKey: e.traitKey,
    remaining: e.remaining,
    level: e.level,
    createdAt: e.createdAt,
    learnedAt: e.learnedAt,
    from: e.from,
    known: Object.freeze({ value: e.level, learnedAt: e.learnedAt, from: e.from }),
  };
}

interface WireItem {
  readonly itemType?: number;
  readonly token?: string;
}

interface WireParams {
  readonly offerer?: string;
  readonly endTime?: string | number;
  readonly offer?: readonly WireItem[];
  readonly consideration?: readonly WireItem[];
}

const lower = <T extends string>(s: string): T => s.toLowerCase() as T;

/** Currency of an order: the first native/ERC20 item of the side that pays. */
function currencyAddress(items: readonly WireItem[] | undefined): Address | undefined {
  for (const it of items ?? []) {
    if (it.itemType === 0) return ZERO_ADDRESS;
    if (it.itemType === 1 && typeof it.token === 'string') return lower<Address>(it.token);
  }
  return undefined;
}

function expiresAtOf(p: WireParams | undefined): number | null {
  const end = p?.endTime;
  if (end === undefined) return null;
  const secs = Number(end);
  // Seaport's "never" (uint256 max and similar) is no expiry.
  if (!Number.isFinite(secs) || secs <= 0 || secs > 1e11) return null;
  return secs * 1000;
}

function toBigInt(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^[0-9]+$/.test(v)) return BigInt(v);
  return undefined;
}

function tokenOf(
  registry: TokenRegistry,
  symbol: unknown,
  decimals: unknown,
  address: Address | undefined,
): PaymentToken | undefined {
  if (typeof symbol !== 'string' || symbol === '') return undefined;
  if (address !== undefined && typeof decimals === 'number') {
    return registry.learn({ address, symbol, decimals });
  }
  return registry.bySymbol(symbol);
}

/** A REST `Listing` (collection-based endpoints) as an entry; undefined when unusable or not active. */
export function entryOfListing(
  l: Listing,
  registry: TokenRegistry,
  learnedAt: number,
  from: Provenance,
): OrderEntry | undefined {
  const w = l as unknown as {
    order_hash?: string;
    chain?: string;
    price?: { current?: { currency?: string; decimals?: number; value?: string } };
    protocol_data?: { parameters?: WireParams };
    remaining_quantity?: number;
    order_created_at?: number;
    asset?: { identifier?: string; contract?: string };
    status?: string;
  };
  if (typeof w.order_hash !== 'string' || (w.status !== undefined && w.status !== 'ACTIVE')) return undefined;
  const cur = w.price?.current;
  const total = toBigInt(cur?.value);
  const remaining = toBigInt(w.remaining_quantity ?? 1);
  if (total === undefined || remaining === undefined || remaining < 1n) return undefined;
  if (!w.asset?.contract || w.asset.identifier === undefined || typeof w.chain !== 'string') return undefined;
  const params = w.protocol_data?.parameters;
  const token = tokenOf(registry, cur?.currency, cur?.decimals, currencyAddress(params?.consideration));
  if (!token) return undefined;
  const key = `${w.chain}/${w.asset.contract.toLowerCase()}/${w.asset.identifier}`;
  return finish({
    side: 'listing',
    orderHash: lower<OrderHash>(w.order_hash),
    nftKey: key,
    traitKey: null,
    remaining,
    level: Object.freeze({
      price: unitPrice(total, remaining),
      paymentToken: token,
      orderHash: lower<OrderHash>(w.order_hash),
      maker: typeof params?.offerer === 'string' ? lower<Address>(params.offerer) : null,
      expiresAt: expiresAtOf(params),
    }),
    createdAt: (w.order_created_at ?? 0) * 1000,
    learnedAt,
    from,
  });
}

/** A REST criteria `Offer` as a collection-offer or single-trait-offer entry. */
export function entryOfOffer(
  o: Offer,
  registry: TokenRegistry,
  learnedAt: number,
  from: Provenance,
): OrderEntry | undefined {
  const w = o as unknown as {
    order_hash?: string;
    price?: { currency?: string; decimals?: number; value?: string };
    protocol_data?: { parameters?: WireParams };
    remaining_quantity?: number;
    order_created_at?: number;
    asset?: unknown;
    criteria?: {
      traits?: readonly { type?: string; value?: unknown }[];
      numeric_traits?: readonly unknown[];
    };
    status?: string;
  };
  if (typeof w.order_hash !== 'string' || (w.status !== undefined && w.status !== 'ACTIVE')) return undefined;
  if (w.asset !== undefined && w.asset !== null) return undefined; // item offer
  const total = toBigInt(w.price?.value);
  const remaining = toBigInt(w.remaining_quantity ?? 1);
  if (total === undefined || remaining === undefined || remaining < 1n) return undefined;
  const params = w.protocol_data?.parameters;
  const token = tokenOf(registry, w.price?.currency, w.price?.decimals, currencyAddress(params?.offer));
  if (!token) return undefined;
  const traits = w.criteria?.traits ?? [];
  const numeric = w.criteria?.numeric_traits ?? [];
  const side: EntrySide = traits.length > 0 || numeric.length > 0 ? 'trait_offer' : 'collection_offer';
  return finish({
    side,
    orderHash: lower<OrderHash>(w.order_hash),
    nftKey: null,
    traitKey: singleTraitKey(traits, numeric.length),
    remaining,
    level: Object.freeze({
      price: unitPrice(total, remaining),
      paymentToken: token,
      orderHash: lower<OrderHash>(w.order_hash),
      maker: typeof params?.offerer === 'string' ? lower<Address>(params.offerer) : null,
      expiresAt: expiresAtOf(params),
    }),
    createdAt: (w.order_created_at ?? 0) * 1000,
    learnedAt,
    from,
  });
}

function singleTraitKey(
  traits: readonly { type?: string | undefined; value?: unknown }[],
  numericCount: number,
): string | null {
  if (traits.length !== 1 || numericCount > 0) return null;
  const t = traits[0];
  if (!t || typeof t.type !== 'string' || (typeof t.value !== 'string' && typeof t.value !== 'number')) {
    return null;
  }
  return `${t.type}\u0000${String(t.value)}`;
}

/** A listing / collection offer / trait offer event as an entry (prices per unit). */
export function entryOfEvent(
  e: ListingEvent | CollectionOfferEvent | TraitOfferEvent,
  registry: TokenRegistry,
): OrderEntry {
  const token = registry.learn(e.paymentToken);
  const remaining = e.quantity > 0n ? e.quantity : 1n;
  const side: EntrySide = e.kind;
  const orderHash = lower<OrderHash>(e.orderHash);
  return finish({
    side,
    orderHash,
    nftKey: e.kind === 'listing' ? nftKey(e.nft) : null,
    traitKey: e.kind === 'trait_offer' ? singleTraitKey(e.traits, 0) : null,
    remaining,
    level: Object.freeze({
      price: unitPrice(e.price, remaining),
      paymentToken: token,
      orderHash,
      maker: lower<Address>(e.maker),
      expiresAt: e.expiresAt,
    }),
    createdAt: e.occurredAt,
    learnedAt: e.receivedAt,
    from: e.source,
  });
}

/** Listing order: cheaper first, then earlier, then hash. Negative when `a` is better. */
export function compareListings(a: OrderEntry, b: OrderEntry): number {
  if (a.level.price !== b.level.price) return a.level.price < b.level.price ? -1 : 1;
  return compareAge(a, b);
}

/** Offer order: dearer first, then earlier, then hash. Negative when `a` is better. */
export function compareOffers(a: OrderEntry, b: OrderEntry): number {
  if (a.level.price !== b.level.price) return a.level.price > b.level.price ? -1 : 1;
  return compareAge(a, b);
}

function compareAge(a: OrderEntry, b: OrderEntry): number {
  const ta = Math.floor(a.createdAt / 1000);
  const tb = Math.floor(b.createdAt / 1000);
  if (ta !== tb) return ta - tb;
  return a.orderHash < b.orderHash ? -1 : a.orderHash > b.orderHash ? 1 : 0;
}
