// The read-only, synchronous view that strategies see. Built and kept fresh by
// the market view (src/market); strategies read it in their hooks without I/O.
// Every value says when and from where it was learned.
import type { PaymentToken } from '../domain/events.ts';
import type { Address, CollectionSlug, OrderHash } from '../domain/ids.ts';

/** Where a value came from. */
export type Provenance = 'stream' | 'rest' | 'backfill' | 'poll' | 'own';

/** A value with its age. `learnedAt` is ms since epoch on the injected clock. */
export interface Known<T> {
  readonly value: T;
  readonly learnedAt: number;
  readonly from: Provenance;
}

export interface PriceLevel {
  /** Price per unit, in `paymentToken`'s smallest unit. */
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
  readonly orderHash: OrderHash | null;
  readonly maker: Address | null;
  readonly expiresAt: number | null;
}

export interface TraitFloor {
  readonly traitType: string;
  readonly value: string;
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
}

export interface TraitCategory {
  readonly traitType: string;
  readonly kind: 'string' | 'number';
  /** For text traits: value -> count. */
  readonly counts: ReadonlyMap<string, number>;
  /** For numeric traits. */
  readonly min?: number;
  readonly max?: number;
}

export interface OwnOrder {
  readonly orderHash: OrderHash;
  readonly side: 'listing' | 'item_offer' | 'collection_offer' | 'trait_offer';
  readonly collection: CollectionSlug;
  /** `chain/contract/identifier` for item orders. */
  readonly nftKey: string | null;
  readonly trait: { readonly type: string; readonly value: string } | null;
  /** Price per unit. */
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
  /** Units still open (lowered by partial fills). */
  readonly quantity: bigint;
  readonly expiresAt: number | null;
  readonly status: 'open' | 'filled' | 'cancelled' | 'expired' | 'invalid';
}

export interface CollectionSnapshot {
  readonly slug: CollectionSlug;
  /** Collection floor (per unit), from stats and listing events. */
  readonly floor: Known<PriceLevel> | null;
  /**
   * True while the floor is being re-learned (its listing sold, was cancelled, invalidated or
   * expired, or a listing in another currency arrived): `floor` is then only the cheapest listing
   * the view still knows in that currency (or null), an upper bound of the true floor, until the
   * next stats refresh.
   */
  readonly floorRelearning: boolean;
  /**
   * Trait floors (text traits only), one entry per trait value and payment token, in the API's
   * order (trait type, value, price). Prices compare only within the same payment token.
   */
  readonly traitFloors: Known<readonly TraitFloor[]> | null;
  /** The same entries by trait, keyed `type\u0000value` (see `traitKey`); one entry per currency. */
  readonly traitFloorsByTrait: ReadonlyMap<string, readonly TraitFloor[]>;
  readonly traits: Known<readonly TraitCategory[]> | null;
  readonly bestCollectionOffer: Known<PriceLevel> | null;
  /** Best offer per trait, keyed `type\u0000value`. */
  readonly bestTraitOffers: ReadonlyMap<string, Known<PriceLevel>>;
  /** Best listing per NFT, keyed by `chain/contract/identifier`. */
  readonly bestListings: ReadonlyMap<string, Known<PriceLevel>>;
  /** Age of the newest information about this collection (ms), and whether that is above the threshold. */
  readonly ageMs: number;
  readonly stale: boolean;
  /**
   * What a sale here pays in fees, in basis points of its price: the marketplace's and the required
   * creator fees, as our listings and accepted offers carry them (the collection's fees from the
   * API). Null while they are not known (not read yet, or the read failed).
   */
  readonly sellerFeeBps: bigint | null;
}

export interface MarketSnapshot {
  /** When this snapshot was taken (ms since epoch). */
  readonly at: number;
  collection(slug: CollectionSlug | string): CollectionSnapshot | undefined;
  readonly collections: readonly CollectionSlug[];
  /** The daemon's own open (and recently closed) orders. */
  readonly ownOrders: readonly OwnOrder[];
}

/**
 * What a sale of `gross` brings after fees of `feeBps` (a collection's `sellerFeeBps`; null: not
 * known, `gross` itself); fees of 10,000 bps or more take all of it.
 */
export function netOfFees(gross: bigint, feeBps: bigint | null): bigint {
  if (feeBps === null) return gross;
  return feeBps >= 10_000n ? 0n : (gross * (10_000n - feeBps)) / 10_000n;
}

/** Key of a trait in the maps above. */
export function traitKey(type: string, value: string): string {
  return `${type}\u0000${value}`;
}

/**
 * Parts of a collection's market a strategy may follow instead of event kinds (its subscriptions'
 * `changes`): the floor (and whether it is being re-learned), the best collection offer, the best
 * offer of any trait, the best listing of any NFT, the trait floors, the trait counts.
 */
export const MARKET_PARTS = [
  'floor',
  'collection_offer',
  'trait_offers',
  'listings',
  'trait_floors',
  'traits',
] as const;
export type MarketPart = (typeof MARKET_PARTS)[number];

/** The bits of `parts` (for `MarketView.changeStamp`). */
export function partMask(parts: Iterable<string>): number {
  let m = 0;
  for (const p of parts) {
    const i = (MARKET_PARTS as readonly string[]).indexOf(p);
    if (i >= 0) m |= 1 << i;
  }
  return m;
}
