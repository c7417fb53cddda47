import type {
  BuildOfferResponse,
  CancelResponse,
  FulfillListingResponse,
  Listing,
  Offer,
} from '@opensea/api-types';

/**
 * The sandbox market: order book, fulfillment and order status on the chain fixture, as a
 * programmatic API. The HTTP routes (src/sandbox/server) parse requests, call these methods and
 * serialize what they return; every method throws `HttpError` (src/sandbox/errors.ts) with the
 * status and reasons the API answers. Wire shapes are the API's (snake_case, Seaport camelCase).
 */

export type OrderSide = 'listing' | 'offer';
/** Order types as the marketplace distinguishes them. */
export type OrderKind = 'listing' | 'item_offer' | 'collection_offer' | 'trait_offer';
export type OrderStatus = 'ACTIVE' | 'INACTIVE' | 'FULFILLED' | 'EXPIRED' | 'CANCELLED';

/** What a client sends to create an order: Seaport OrderComponents + signature (wire shape). */
export interface CreateOrderBody {
  readonly parameters: unknown;
  readonly signature?: unknown;
  readonly protocol_address?: unknown;
}

/** `POST /api/v2/offers` body (criteria offer). */
export interface CriteriaOfferBody {
  readonly protocol_data?: unknown;
  readonly criteria?: unknown;
  readonly protocol_address?: unknown;
}

/** Page request of the collection-based queries (`limit` ≤ 200, opaque `next`). */
export interface PageQuery {
  readonly limit?: number;
  readonly next?: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly next?: string;
}

/** Filters of the deprecated `GET /api/v2/orders/{chain}/{protocol}/listings|offers`. */
export interface LegacyOrderQuery {
  readonly asset_contract_address?: string;
  readonly token_ids?: readonly string[];
  readonly maker?: string;
  readonly listed_before?: string;
  readonly listed_after?: string;
  readonly order_by?: 'created_at' | 'price';
  readonly order_direction?: 'asc' | 'desc';
  readonly payment_token_address?: string;
  readonly include_private_listings?: boolean;
  /** 1–200, default 20. */
  readonly limit?: number;
  readonly 'cursor.value'?: string;
}

/** One order in the legacy format (an element of `orders` of the legacy list response). */
export type LegacyOrder = Readonly<Record<string, unknown>>;

export interface LegacyPage {
  readonly orders: readonly LegacyOrder[];
  readonly next: string | null;
  readonly previous: string | null;
}

export interface TraitQuery extends PageQuery {
  readonly type?: string;
  readonly value?: string;
}

/** Injected misbehaviour for fulfillment data (admin fault injection). */
export type FulfillmentTamper = 'none' | 'recipient' | 'value' | 'target' | 'extra_item';

/** The facts of an order a cancel-window filler needs to pick a trader (and a token) for it. */
export interface WindowOrder {
  readonly hash: string;
  readonly side: OrderSide;
  readonly kind: OrderKind;
  readonly slug: string;
  readonly contract: string;
  readonly standard: 'erc721' | 'erc1155';
  /** Listings and item offers; criteria offers have none (any covered token). */
  readonly tokenId?: bigint;
  readonly maker: string;
  readonly remaining: bigint;
  /** The price of what is left, in the order's currency (smallest unit), at chain time now. */
  readonly price: bigint;
  readonly currency: { readonly address: string; readonly native: boolean };
}

/** Sandbox fault options of `cancel` (the admin cancel faults); none by default. */
export interface CancelOptions {
  /**
   * When > 0 and the order is not final yet: answer as if a fulfillment signature valid this many
   * seconds had been issued just before the cancel (`last_signature_issued_valid_until` = chain
   * time now + the window, unless a later signature was issued).
   */
  readonly signatureWindowSec?: number;
  /**
   * Called with the window's end (chain time, s) after the cancel's checks passed and before the
   * order is marked cancelled, while it can still get fulfillment data; a throw is ignored.
   */
  readonly beforeCancel?: (order: WindowOrder, validUntil: bigint) => Promise<void>;
}

export interface Market {
  /** `POST /api/v2/orders/{chain}/{protocol}/listings|offers`: verify and store; returns the wire order. */
  createOrder(
    side: OrderSide,
    chain: string,
    protocol: string,
    body: CreateOrderBody,
  ): Promise<Listing | Offer>;
  /** `POST /api/v2/offers/build`. */
  buildOffer(body: unknown): Promise<BuildOfferResponse>;
  /** `POST /api/v2/offers`: a collection or trait offer. */
  createCriteriaOffer(body: CriteriaOfferBody): Promise<Offer>;
  /** `GET /api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}`; 404 HttpError when unknown. */
  getOrder(chain: string, protocol: string, orderHash: string): Listing | Offer;

  /** `GET /api/v2/listings/collection/{slug}/best` (price ascending; `traits` AND filter). */
  bestListings(
    slug: string,
    q: PageQuery & {
      traits?: readonly { traitType: string; value: string }[];
      include_private_listings?: boolean;
    },
  ): Page<Listing>;
  /** `GET /api/v2/listings/collection/{slug}/all`. */
  allListings(
    slug: string,
    q: PageQuery & { maker?: string; include_private_listings?: boolean },
  ): Page<Listing>;
  /** `GET /api/v2/listings/collection/{slug}/nfts/{identifier}/best`; 404 HttpError when none. */
  bestListingForNft(slug: string, identifier: string): Listing;
  /** `GET /api/v2/offers/collection/{slug}` (collection offers, best price first). */
  collectionOffers(slug: string, q: PageQuery): Page<Offer>;
  /** `GET /api/v2/offers/collection/{slug}/traits`. */
  traitOffers(slug: string, q: TraitQuery): Page<Offer>;
  /** `GET /api/v2/offers/collection/{slug}/nfts/{identifier}` (offers that can buy this NFT). */
  itemOffers(slug: string, identifier: string, q: PageQuery): Page<Offer>;
  /** `GET /api/v2/offers/collection/{slug}/all`. */
  allOffers(slug: string, q: PageQuery & { maker?: string }): Page<Offer>;
  /** `GET /api/v2/offers/collection/{slug}/nfts/{identifier}/best`; 404 HttpError when none. */
  bestOfferForNft(slug: string, identifier: string): Offer;
  /** Deprecated legacy lists. */
  legacyOrders(side: OrderSide, chain: string, protocol: string, q: LegacyOrderQuery): LegacyPage;

  /** `POST /api/v2/listings/fulfillment_data` and `/offers/fulfillment_data`; 400 HttpError keeps the shape. */
  fulfillmentData(side: OrderSide, body: unknown): Promise<FulfillListingResponse>;
  /** `POST /api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel`. */
  cancel(
    chain: string,
    protocol: string,
    orderHash: string,
    body: unknown,
    caller?: string,
    options?: CancelOptions,
  ): Promise<CancelResponse>;

  /** Fault injection: how the next fulfillment responses are tampered with. */
  setTamper(mode: FulfillmentTamper): void;
  /** Counters for `/_sandbox/`. */
  stats(): {
    readonly orders: number;
    readonly active: number;
    readonly fills: number;
    readonly cancels: number;
  };
  /** Stops chain watchers. */
  close(): Promise<void>;
}
