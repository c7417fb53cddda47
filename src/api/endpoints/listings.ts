/** Listing: create, query (collection-based and the deprecated legacy list), fulfillment data. */
import type {
  FulfillListingResponse,
  FullfillListingRequest,
  Listing,
  ListingsResponse,
  SeaportRequest,
} from '@opensea/api-types';
import { Priority } from '../../ratelimit/types.ts';
import { readLegacyNext } from '../paginate.ts';
import { path } from '../path.ts';
import type {
  CallOptions,
  IterateOptions,
  LegacyOrder,
  LegacyOrdersResponse,
  ProtocolCallOptions,
  TraitFilter,
} from '../types.ts';
import {
  checkLimit,
  encodeTraits,
  LIMITS,
  optional,
  requireAddress,
  requireBoolean,
  requireChain,
  requireCursor,
  requireProtocol,
  requireSlug,
  requireTokenId,
} from '../validate.ts';
import { currentOrderField, type EndpointContext, iterate, read, send, sendRaw } from './context.ts';
import {
  checkSeaportRequest,
  fulfillmentRoute,
  type LegacyOrdersQuery,
  legacyOrdersQuery,
} from './orderInput.ts';

export interface BestListingsQuery {
  readonly include_private_listings?: boolean;
  /** Trait filters, AND-combined; sent as a JSON array string. */
  readonly traits?: string | readonly TraitFilter[];
  readonly limit?: number;
  readonly next?: string;
}

export interface AllListingsQuery {
  readonly include_private_listings?: boolean;
  readonly maker?: string;
  readonly limit?: number;
  readonly next?: string;
}

export interface LegacyListingsQuery extends LegacyOrdersQuery {
  readonly include_private_listings?: boolean;
}

/** `FullfillListingRequest` with its server-defaulted flag optional. */
export type ListingFulfillmentRequest = Omit<FullfillListingRequest, 'include_optional_creator_fees'> & {
  readonly include_optional_creator_fees?: boolean;
};

export const CREATE_LISTING_PATH = '/api/v2/orders/{chain}/{protocol}/listings';
export const LEGACY_LISTINGS_REPLACEMENT = '/api/v2/listings/collection/{slug}/all';

const limit = (v: unknown) => optional(v, (x) => checkLimit('limit', x, LIMITS.v2));
const next = (v: unknown) => optional(v, (x) => requireCursor('next', x));
const privateListings = (v: unknown) => optional(v, (x) => requireBoolean('include_private_listings', x));
const listings = (page: ListingsResponse): readonly Listing[] => page.listings;
const orders = (page: LegacyOrdersResponse): readonly LegacyOrder[] => page.orders;

export function listingsApi(ctx: EndpointContext) {
  const bestRoute = (slug: string, q: BestListingsQuery = {}) =>
    read(path`/api/v2/listings/collection/${requireSlug('slug', slug)}/best`, {
      include_private_listings: privateListings(q.include_private_listings),
      traits: optional(q.traits, (x) => encodeTraits('traits', x)),
      limit: limit(q.limit),
      next: next(q.next),
    });
  const allRoute = (slug: string, q: AllListingsQuery = {}) =>
    read(path`/api/v2/listings/collection/${requireSlug('slug', slug)}/all`, {
      include_private_listings: privateListings(q.include_private_listings),
      maker: optional(q.maker, (x) => requireAddress('maker', x)),
      limit: limit(q.limit),
      next: next(q.next),
    });
  const legacyRoute = (
    chain: string,
    q: LegacyListingsQuery = {},
    protocol: string = ctx.config.defaultProtocol,
  ) => ({
    ...read(
      path`/api/v2/orders/${requireChain('chain', chain)}/${requireProtocol('protocol', protocol)}/listings`,
      {
        ...legacyOrdersQuery(q),
        include_private_listings: privateListings(q.include_private_listings),
      },
    ),
    deprecated: { replacement: LEGACY_LISTINGS_REPLACEMENT },
  });

  return {
    /**
     * `POST /api/v2/orders/{chain}/{protocol}/listings`: posts a signed listing. Returns the current
     * `listing` field; a response with only the deprecated `order` is accepted and reported through
     * `onDeprecatedField`. Never retried blindly (not idempotent).
     */
    async create(chain: string, order: SeaportRequest, call: ProtocolCallOptions = {}): Promise<Listing> {
      const c = requireChain('chain', chain);
      const protocol = requireProtocol('protocol', call.protocol ?? ctx.config.defaultProtocol);
      const body = checkSeaportRequest(order);
      const { protocol: _p, ...rest } = call;
      const response = await send<unknown>(
        ctx,
        {
          method: 'POST',
          path: path`/api/v2/orders/${c}/${protocol}/listings`,
          group: 'write',
          priority: Priority.trade,
          body,
          idempotent: false,
        },
        rest,
      );
      return currentOrderField<Listing>(ctx, CREATE_LISTING_PATH, response, 'listing');
    },

    /** `GET /api/v2/listings/collection/{slug}/best`: cheapest listings first (one page). */
    async best(slug: string, query?: BestListingsQuery, call?: CallOptions): Promise<ListingsResponse> {
      return send(ctx, bestRoute(slug, query), call);
    },
    iterateBest(slug: string, query?: Omit<BestListingsQuery, 'next'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/listings/collection/{slug}/best',
        bestRoute(slug, query),
        'next',
        listings,
        options,
      );
    },

    /** `GET /api/v2/listings/collection/{slug}/all` (one page). */
    async all(slug: string, query?: AllListingsQuery, call?: CallOptions): Promise<ListingsResponse> {
      return send(ctx, allRoute(slug, query), call);
    },
    iterateAll(slug: string, query?: Omit<AllListingsQuery, 'next'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/listings/collection/{slug}/all',
        allRoute(slug, query),
        'next',
        listings,
        options,
      );
    },

    /**
     * `GET /api/v2/listings/collection/{slug}/nfts/{identifier}/best`: the single best listing of an
     * NFT, or `null` when it has none (the API answers 404).
     */
    async bestForNft(
      slug: string,
      identifier: string,
      query: { readonly include_private_listings?: boolean } = {},
      call?: CallOptions,
    ): Promise<Listing | null> {
      const s = requireSlug('slug', slug);
      const id = requireTokenId('identifier', identifier);
      const route = {
        ...read(path`/api/v2/listings/collection/${s}/nfts/${id}/best`, {
          include_private_listings: privateListings(query.include_private_listings),
        }),
        acceptStatus: [404],
      };
      const res = await sendRaw<Listing>(ctx, route, call);
      return res.status === 404 ? null : res.data;
    },

    /** `POST /api/v2/listings/fulfillment_data`: ready-to-sign data to buy a listing (group fulfillment). */
    async fulfillmentData(
      body: ListingFulfillmentRequest,
      call?: CallOptions,
    ): Promise<FulfillListingResponse> {
      return send(ctx, fulfillmentRoute('listing', body), call);
    },

    /**
     * Deprecated: `GET /api/v2/orders/{chain}/{protocol}/listings` (legacy order format). Use
     * `all`/`best` (collection-based) instead.
     */
    async legacyList(
      chain: string,
      query?: LegacyListingsQuery,
      call: ProtocolCallOptions = {},
    ): Promise<LegacyOrdersResponse> {
      const { protocol, ...rest } = call;
      return send(ctx, legacyRoute(chain, query, protocol), rest);
    },
    iterateLegacyList(
      chain: string,
      query?: Omit<LegacyListingsQuery, 'cursor.value'>,
      options: IterateOptions & Pick<ProtocolCallOptions, 'protocol'> = {},
    ) {
      const { protocol, ...rest } = options;
      const route = legacyRoute(chain, query, protocol);
      return iterate(
        ctx,
        '/api/v2/orders/{chain}/{protocol}/listings',
        route,
        'cursor.value',
        orders,
        rest,
        readLegacyNext,
      );
    },
  };
}

export type ListingsApi = ReturnType<typeof listingsApi>;
