/** Offer: build, create (item and criteria), query, best offer, fulfillment data, deprecated legacy list. */
import type {
  BuildOfferRequest,
  BuildOfferResponse,
  FulfillListingResponse,
  FullfillmentDataRequest,
  Offer,
  OffersResponse,
  OfferWithCriteriaRequest,
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
  checkEnum,
  checkLimit,
  encodeTraits,
  invalidInput,
  LIMITS,
  optional,
  requireAddress,
  requireBoolean,
  requireChain,
  requireCursor,
  requireInt,
  requireObject,
  requirePositiveInt,
  requireProtocol,
  requireSlug,
  requireString,
  requireTokenId,
} from '../validate.ts';
import { currentOrderField, type EndpointContext, iterate, read, send, sendRaw } from './context.ts';
import {
  checkSeaportRequest,
  fulfillmentRoute,
  type LegacyOrdersQuery,
  legacyOrdersQuery,
} from './orderInput.ts';

export interface OffersPageQuery {
  readonly limit?: number;
  readonly next?: string;
}

export interface AllOffersQuery extends OffersPageQuery {
  readonly maker?: string;
}

export type TraitOfferMode = 'STRING' | 'NUMERIC' | 'MULTI';
export const TRAIT_OFFER_MODES: readonly TraitOfferMode[] = Object.freeze(['STRING', 'NUMERIC', 'MULTI']);

export interface TraitOffersQuery extends OffersPageQuery {
  /** STRING (one string trait), MULTI (several), NUMERIC (range); inferred when omitted. */
  readonly mode?: TraitOfferMode;
  readonly type?: string;
  readonly value?: string;
  readonly float_value?: number;
  readonly int_value?: number;
  readonly min_value?: number;
  readonly max_value?: number;
  /** Multi-trait filter; sent as a JSON array string. */
  readonly traits?: string | readonly TraitFilter[];
}

export interface LegacyOffersQuery extends LegacyOrdersQuery {
  readonly payment_token_address?: string;
}

/** `FullfillmentDataRequest` with its server-defaulted flag optional. */
export type OfferFulfillmentRequest = Omit<FullfillmentDataRequest, 'include_optional_creator_fees'> & {
  readonly include_optional_creator_fees?: boolean;
};

export const CREATE_OFFER_PATH = '/api/v2/orders/{chain}/{protocol}/offers';
export const CREATE_CRITERIA_OFFER_PATH = '/api/v2/offers';
export const LEGACY_OFFERS_REPLACEMENT = '/api/v2/offers/collection/{slug}/all';

const limit = (v: unknown) => optional(v, (x) => checkLimit('limit', x, LIMITS.v2));
const next = (v: unknown) => optional(v, (x) => requireCursor('next', x));
const finite = (param: string) => (x: unknown) => {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw invalidInput(param, x, 'a finite number');
  return x;
};
const offers = (page: OffersResponse): readonly Offer[] => page.offers;
const orders = (page: LegacyOrdersResponse): readonly LegacyOrder[] => page.orders;

function checkCriteria(param: string, value: unknown): void {
  const criteria = requireObject(param, value);
  const collection = requireObject(`${param}.collection`, criteria['collection']);
  requireSlug(`${param}.collection.slug`, collection['slug']);
}

function checkBuildOffer(body: BuildOfferRequest): BuildOfferRequest {
  const o = requireObject('body', body);
  requireAddress('body.offerer', o['offerer']);
  requirePositiveInt('body.quantity', o['quantity']);
  checkCriteria('body.criteria', o['criteria']);
  requireAddress('body.protocol_address', o['protocol_address']);
  requireBoolean('body.offer_protection_enabled', o['offer_protection_enabled']);
  return body;
}

function checkCriteriaOffer(body: OfferWithCriteriaRequest): OfferWithCriteriaRequest {
  const o = requireObject('body', body);
  const data = requireObject('body.protocol_data', o['protocol_data']);
  const params = requireObject('body.protocol_data.parameters', data['parameters']);
  requireAddress('body.protocol_data.parameters.offerer', params['offerer']);
  requireString('body.protocol_data.signature', data['signature'], 'a signature hex string');
  checkCriteria('body.criteria', o['criteria']);
  requireAddress('body.protocol_address', o['protocol_address']);
  return body;
}

export function offersApi(ctx: EndpointContext) {
  const collectionRoute = (slug: string, q: OffersPageQuery = {}) =>
    read(path`/api/v2/offers/collection/${requireSlug('slug', slug)}`, {
      limit: limit(q.limit),
      next: next(q.next),
    });
  const traitsRoute = (slug: string, q: TraitOffersQuery = {}) =>
    read(path`/api/v2/offers/collection/${requireSlug('slug', slug)}/traits`, {
      mode: optional(q.mode, (x) => checkEnum('mode', x, TRAIT_OFFER_MODES)),
      type: optional(q.type, (x) => requireString('type', x)),
      value: optional(q.value, (x) => requireString('value', x)),
      float_value: optional(q.float_value, finite('float_value')),
      int_value: optional(q.int_value, (x) => requireInt('int_value', x, -2_147_483_648, 2_147_483_647)),
      min_value: optional(q.min_value, finite('min_value')),
      max_value: optional(q.max_value, finite('max_value')),
      traits: optional(q.traits, (x) => encodeTraits('traits', x)),
      limit: limit(q.limit),
      next: next(q.next),
    });
  const itemRoute = (slug: string, identifier: string, q: OffersPageQuery = {}) =>
    read(
      path`/api/v2/offers/collection/${requireSlug('slug', slug)}/nfts/${requireTokenId('identifier', identifier)}`,
      {
        limit: limit(q.limit),
        next: next(q.next),
      },
    );
  const allRoute = (slug: string, q: AllOffersQuery = {}) =>
    read(path`/api/v2/offers/collection/${requireSlug('slug', slug)}/all`, {
      maker: optional(q.maker, (x) => requireAddress('maker', x)),
      limit: limit(q.limit),
      next: next(q.next),
    });
  const legacyRoute = (
    chain: string,
    q: LegacyOffersQuery = {},
    protocol: string = ctx.config.defaultProtocol,
  ) => ({
    ...read(
      path`/api/v2/orders/${requireChain('chain', chain)}/${requireProtocol('protocol', protocol)}/offers`,
      {
        ...legacyOrdersQuery(q),
        payment_token_address: optional(q.payment_token_address, (x) =>
          requireAddress('payment_token_address', x),
        ),
      },
    ),
    deprecated: { replacement: LEGACY_OFFERS_REPLACEMENT },
  });

  return {
    /**
     * `POST /api/v2/offers/build`: consideration, zone and zone hash for a criteria (collection or
     * trait) offer. For trait offers on supported collections `identifierOrCriteria` is '0'; use it as is.
     */
    async build(body: BuildOfferRequest, call?: CallOptions): Promise<BuildOfferResponse> {
      const checked = checkBuildOffer(body);
      return send(
        ctx,
        {
          method: 'POST',
          path: '/api/v2/offers/build',
          group: 'write',
          priority: Priority.bidRefresh,
          body: checked,
          idempotent: true,
        },
        call,
      );
    },

    /** `POST /api/v2/offers`: posts a signed criteria (collection or trait) offer. Not idempotent. */
    async createCriteria(body: OfferWithCriteriaRequest, call?: CallOptions): Promise<Offer> {
      const checked = checkCriteriaOffer(body);
      const response = await send<unknown>(
        ctx,
        {
          method: 'POST',
          path: CREATE_CRITERIA_OFFER_PATH,
          group: 'write',
          priority: Priority.bidRefresh,
          body: checked,
          idempotent: false,
        },
        call,
      );
      return currentOrderField<Offer>(ctx, CREATE_CRITERIA_OFFER_PATH, response, 'offer');
    },

    /**
     * `POST /api/v2/orders/{chain}/{protocol}/offers`: posts a signed item offer. Returns the current
     * `offer` field (the deprecated `order` is accepted and reported). Not idempotent.
     */
    async create(chain: string, order: SeaportRequest, call: ProtocolCallOptions = {}): Promise<Offer> {
      const c = requireChain('chain', chain);
      const protocol = requireProtocol('protocol', call.protocol ?? ctx.config.defaultProtocol);
      const body = checkSeaportRequest(order);
      const { protocol: _p, ...rest } = call;
      const response = await send<unknown>(
        ctx,
        {
          method: 'POST',
          path: path`/api/v2/orders/${c}/${protocol}/offers`,
          group: 'write',
          priority: Priority.bidRefresh,
          body,
          idempotent: false,
        },
        rest,
      );
      return currentOrderField<Offer>(ctx, CREATE_OFFER_PATH, response, 'offer');
    },

    /** `GET /api/v2/offers/collection/{slug}`: collection offers, best first (one page). */
    async collection(slug: string, query?: OffersPageQuery, call?: CallOptions): Promise<OffersResponse> {
      return send(ctx, collectionRoute(slug, query), call);
    },
    iterateCollection(slug: string, query?: Omit<OffersPageQuery, 'next'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/offers/collection/{slug}',
        collectionRoute(slug, query),
        'next',
        offers,
        options,
      );
    },

    /** `GET /api/v2/offers/collection/{slug}/traits`: trait offers (one page). */
    async traits(slug: string, query?: TraitOffersQuery, call?: CallOptions): Promise<OffersResponse> {
      return send(ctx, traitsRoute(slug, query), call);
    },
    iterateTraits(slug: string, query?: Omit<TraitOffersQuery, 'next'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/offers/collection/{slug}/traits',
        traitsRoute(slug, query),
        'next',
        offers,
        options,
      );
    },

    /** `GET /api/v2/offers/collection/{slug}/nfts/{identifier}`: offers on one NFT (one page). */
    async item(
      slug: string,
      identifier: string,
      query?: OffersPageQuery,
      call?: CallOptions,
    ): Promise<OffersResponse> {
      return send(ctx, itemRoute(slug, identifier, query), call);
    },
    iterateItem(
      slug: string,
      identifier: string,
      query?: Omit<OffersPageQuery, 'next'>,
      options?: IterateOptions,
    ) {
      const route = itemRoute(slug, identifier, query);
      return iterate(
        ctx,
        '/api/v2/offers/collection/{slug}/nfts/{identifier}',
        route,
        'next',
        offers,
        options,
      );
    },

    /** `GET /api/v2/offers/collection/{slug}/all`: every offer in a collection (one page). */
    async all(slug: string, query?: AllOffersQuery, call?: CallOptions): Promise<OffersResponse> {
      return send(ctx, allRoute(slug, query), call);
    },
    iterateAll(slug: string, query?: Omit<AllOffersQuery, 'next'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/offers/collection/{slug}/all',
        allRoute(slug, query),
        'next',
        offers,
        options,
      );
    },

    /** `GET /api/v2/offers/collection/{slug}/nfts/{identifier}/best`: best offer of an NFT, or `null` on 404. */
    async bestForNft(slug: string, identifier: string, call?: CallOptions): Promise<Offer | null> {
      const s = requireSlug('slug', slug);
      const id = requireTokenId('identifier', identifier);
      const route = { ...read(path`/api/v2/offers/collection/${s}/nfts/${id}/best`), acceptStatus: [404] };
      const res = await sendRaw<Offer>(ctx, route, call);
      return res.status === 404 ? null : res.data;
    },

    /**
     * `POST /api/v2/offers/fulfillment_data`: ready-to-sign data to accept an offer (group
     * fulfillment). Criteria offers need `consideration` (the token being sold).
     */
    async fulfillmentData(
      body: OfferFulfillmentRequest,
      call?: CallOptions,
    ): Promise<FulfillListingResponse> {
      return send(ctx, fulfillmentRoute('offer', body), call);
    },

    /**
     * Deprecated: `GET /api/v2/orders/{chain}/{protocol}/offers` (legacy order format). Use the
     * collection-based queries (`all`, `collection`, `traits`, `item`) instead.
     */
    async legacyList(
      chain: string,
      query?: LegacyOffersQuery,
      call: ProtocolCallOptions = {},
    ): Promise<LegacyOrdersResponse> {
      const { protocol, ...rest } = call;
      return send(ctx, legacyRoute(chain, query, protocol), rest);
    },
    iterateLegacyList(
      chain: string,
      query?: Omit<LegacyOffersQuery, 'cursor.value'>,
      options: IterateOptions & Pick<ProtocolCallOptions, 'protocol'> = {},
    ) {
      const { protocol, ...rest } = options;
      const route = legacyRoute(chain, query, protocol);
      return iterate(
        ctx,
        '/api/v2/orders/{chain}/{protocol}/offers',
        route,
        'cursor.value',
        orders,
        rest,
        readLegacyNext,
      );
    },
  };
}

export type OffersApi = ReturnType<typeof offersApi>;
