/** Analytics events: v2 event queries (global, collection, NFT, account) and the legacy v1 list. */
import type { AssetEventsResponse } from '@opensea/api-types';
import { readLegacyNext } from '../paginate.ts';
import { path } from '../path.ts';
import type { QueryValue } from '../request.ts';
import {
  type CallOptions,
  type IterateOptions,
  LEGACY_EVENT_TYPES,
  type LegacyAssetEvent,
  type LegacyEventsResponse,
  type LegacyEventType,
  type TraitFilter,
} from '../types.ts';
import {
  checkEnum,
  checkEventTypes,
  checkLimit,
  type EventType,
  encodeTraits,
  invalidInput,
  LIMITS,
  optional,
  requireAddress,
  requireChain,
  requireCursor,
  requireSlug,
  requireTokenId,
  requireUnixSeconds,
} from '../validate.ts';
import { type EndpointContext, iterate, read, send } from './context.ts';

export type AssetEvent = AssetEventsResponse['asset_events'][number];

export interface EventsQuery {
  /** One or more of sale, transfer, mint, listing, offer, trait_offer, collection_offer (repeated key). */
  readonly event_type?: EventType | readonly EventType[];
  /** Unix seconds or a Date. */
  readonly after?: number | Date;
  readonly before?: number | Date;
  readonly limit?: number;
  readonly next?: string;
}

export interface CollectionEventsQuery extends EventsQuery {
  readonly traits?: string | readonly TraitFilter[];
}

export interface AccountEventsQuery extends EventsQuery {
  readonly chain?: string;
}

/** Query of the legacy `GET /api/v1/events/`. */
export interface LegacyEventsQuery {
  readonly collection_slug?: string;
  readonly asset_contract_address?: string;
  /** Needs `asset_contract_address`. */
  readonly token_id?: string;
  readonly account_address?: string;
  readonly event_type?: LegacyEventType;
  /** Unix seconds or a Date. */
  readonly occurred_after?: number | Date;
  readonly occurred_before?: number | Date;
  readonly limit?: number;
  readonly cursor?: string;
}

export const LEGACY_EVENTS_REPLACEMENT = '/api/v2/events';

const events = (page: AssetEventsResponse): readonly AssetEvent[] => page.asset_events;
const legacyEvents = (page: LegacyEventsResponse): readonly LegacyAssetEvent[] => page.asset_events;

function timeRange(
  afterParam: string,
  after: unknown,
  beforeParam: string,
  before: unknown,
): [number | undefined, number | undefined] {
  const a = optional(after, (x) => requireUnixSeconds(afterParam, x));
  const b = optional(before, (x) => requireUnixSeconds(beforeParam, x));
  if (a !== undefined && b !== undefined && a > b) {
    throw invalidInput(afterParam, after, `a time not later than ${beforeParam} (${b})`);
  }
  return [a, b];
}

function eventsQuery(q: EventsQuery = {}): Record<string, QueryValue> {
  const [after, before] = timeRange('after', q.after, 'before', q.before);
  return {
    event_type: optional(q.event_type, (x) => checkEventTypes('event_type', x)),
    after,
    before,
    limit: optional(q.limit, (x) => checkLimit('limit', x, LIMITS.v2)),
    next: optional(q.next, (x) => requireCursor('next', x)),
  };
}

export function eventsApi(ctx: EndpointContext) {
  const listRoute = (q?: EventsQuery) => read('/api/v2/events', eventsQuery(q));
  const collectionRoute = (slug: string, q: CollectionEventsQuery = {}) =>
    read(path`/api/v2/events/collection/${requireSlug('slug', slug)}`, {
      ...eventsQuery(q),
      traits: optional(q.traits, (x) => encodeTraits('traits', x)),
    });
  const nftRoute = (chain: string, address: string, identifier: string, q?: EventsQuery) =>
    read(
      path`/api/v2/events/chain/${requireChain('chain', chain)}/contract/${requireAddress('address', address)}/nfts/${requireTokenId('identifier', identifier)}`,
      eventsQuery(q),
    );
  const accountRoute = (address: string, q: AccountEventsQuery = {}) =>
    read(path`/api/v2/events/accounts/${requireAddress('address', address)}`, {
      ...eventsQuery(q),
      chain: optional(q.chain, (x) => requireChain('chain', x)),
    });
  const legacyRoute = (q: LegacyEventsQuery = {}) => {
    const contract = optional(q.asset_contract_address, (x) => requireAddress('asset_contract_address', x));
    const tokenId = optional(q.token_id, (x) => requireTokenId('token_id', x));
    if (tokenId !== undefined && contract === undefined) {
      throw invalidInput(
        'asset_contract_address',
        undefined,
        'a contract address whenever token_id is given',
      );
    }
    const [after, before] = timeRange(
      'occurred_after',
      q.occurred_after,
      'occurred_before',
      q.occurred_before,
    );
    return {
      ...read('/api/v1/events/', {
        collection_slug: optional(q.collection_slug, (x) => requireSlug('collection_slug', x)),
        asset_contract_address: contract,
        token_id: tokenId,
        account_address: optional(q.account_address, (x) => requireAddress('account_address', x)),
        event_type: optional(q.event_type, (x) => checkEnum('event_type', x, LEGACY_EVENT_TYPES)),
        occurred_after: after,
        occurred_before: before,
        limit: optional(q.limit, (x) => checkLimit('limit', x, LIMITS.v2)),
        cursor: optional(q.cursor, (x) => requireCursor('cursor', x)),
      }),
      deprecated: { replacement: LEGACY_EVENTS_REPLACEMENT },
    };
  };

  return {
    /** `GET /api/v2/events`: sales, transfers, mints, listings and offers (one page). */
    async list(query?: EventsQuery, call?: CallOptions): Promise<AssetEventsResponse> {
      return send(ctx, listRoute(query), call);
    },
    iterate(query?: Omit<EventsQuery, 'next'>, options?: IterateOptions) {
      return iterate(ctx, '/api/v2/events', listRoute(query), 'next', events, options);
    },

    /** `GET /api/v2/events/collection/{slug}` (one page). */
    async byCollection(
      slug: string,
      query?: CollectionEventsQuery,
      call?: CallOptions,
    ): Promise<AssetEventsResponse> {
      return send(ctx, collectionRoute(slug, query), call);
    },
    iterateByCollection(slug: string, query?: Omit<CollectionEventsQuery, 'next'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/events/collection/{slug}',
        collectionRoute(slug, query),
        'next',
        events,
        options,
      );
    },

    /** `GET /api/v2/events/chain/{chain}/contract/{address}/nfts/{identifier}` (one page). */
    async byNft(
      chain: string,
      address: string,
      identifier: string,
      query?: EventsQuery,
      call?: CallOptions,
    ): Promise<AssetEventsResponse> {
      return send(ctx, nftRoute(chain, address, identifier, query), call);
    },
    iterateByNft(
      chain: string,
      address: string,
      identifier: string,
      query?: Omit<EventsQuery, 'next'>,
      options?: IterateOptions,
    ) {
      const route = nftRoute(chain, address, identifier, query);
      return iterate(
        ctx,
        '/api/v2/events/chain/{chain}/contract/{address}/nfts/{identifier}',
        route,
        'next',
        events,
        options,
      );
    },

    /** `GET /api/v2/events/accounts/{address}` (one page). */
    async byAccount(
      address: string,
      query?: AccountEventsQuery,
      call?: CallOptions,
    ): Promise<AssetEventsResponse> {
      return send(ctx, accountRoute(address, query), call);
    },
    iterateByAccount(address: string, query?: Omit<AccountEventsQuery, 'next'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/events/accounts/{address}',
        accountRoute(address, query),
        'next',
        events,
        options,
      );
    },

    /**
     * Legacy `GET /api/v1/events/` (records typed in `LegacyAssetEvent`). Marked deprecated: the
     * transport warns once, naming `/api/v2/events`.
     */
    async legacyList(query?: LegacyEventsQuery, call?: CallOptions): Promise<LegacyEventsResponse> {
      return send(ctx, legacyRoute(query), call);
    },
    iterateLegacy(query?: Omit<LegacyEventsQuery, 'cursor'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v1/events/',
        legacyRoute(query),
        'cursor',
        legacyEvents,
        options,
        readLegacyNext,
      );
    },
  };
}

export type EventsApi = ReturnType<typeof eventsApi>;
