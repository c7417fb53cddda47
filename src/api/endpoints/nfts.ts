/** NFT: single NFTs, lists by collection / contract / account, metadata validation and refresh, batch. */
import type {
  BatchNftsRequest,
  Nft,
  NftBatchResponse,
  NftListResponse,
  NftResponse,
  ValidateMetadataResponse,
} from '@opensea/api-types';
import { Priority } from '../../ratelimit/types.ts';
import { path } from '../path.ts';
import type { CallOptions, IterateOptions, TraitFilter } from '../types.ts';
import {
  checkLimit,
  encodeTraits,
  invalidInput,
  LIMITS,
  optional,
  requireAddress,
  requireBoolean,
  requireChain,
  requireCursor,
  requireObject,
  requireSlug,
  requireTokenId,
} from '../validate.ts';
import { MAX_BATCH } from './collections.ts';
import { type EndpointContext, iterate, read, send } from './context.ts';

export interface NftsByCollectionQuery {
  /** Trait filters, AND-combined; sent as a JSON array string. */
  readonly traits?: string | readonly TraitFilter[];
  readonly has_agent_binding?: boolean;
  readonly limit?: number;
  readonly next?: string;
}

export interface NftsByContractQuery {
  readonly limit?: number;
  readonly next?: string;
}

export interface NftsByAccountQuery {
  /** Collection slug filter. */
  readonly collection?: string;
  readonly include_auto_hidden?: boolean;
  readonly limit?: number;
  readonly next?: string;
}

export interface MetadataQuery {
  /** Bypass cached processed media URLs. */
  readonly ignoreCachedItemUrls?: boolean;
}

const limit = (v: unknown) => optional(v, (x) => checkLimit('limit', x, LIMITS.v2));
const next = (v: unknown) => optional(v, (x) => requireCursor('next', x));
const nfts = (page: NftListResponse): readonly Nft[] => page.nfts;

function nftPath(chain: unknown, address: unknown, identifier: unknown): string {
  const c = requireChain('chain', chain);
  const a = requireAddress('address', address);
  const id = requireTokenId('identifier', identifier);
  return path`/api/v2/chain/${c}/contract/${a}/nfts/${id}`;
}

export function nftsApi(ctx: EndpointContext) {
  const byCollectionRoute = (slug: string, q: NftsByCollectionQuery = {}) =>
    read(path`/api/v2/collection/${requireSlug('slug', slug)}/nfts`, {
      traits: optional(q.traits, (x) => encodeTraits('traits', x)),
      has_agent_binding: optional(q.has_agent_binding, (x) => requireBoolean('has_agent_binding', x)),
      limit: limit(q.limit),
      next: next(q.next),
    });
  const byContractRoute = (chain: string, address: string, q: NftsByContractQuery = {}) =>
    read(
      path`/api/v2/chain/${requireChain('chain', chain)}/contract/${requireAddress('address', address)}/nfts`,
      {
        limit: limit(q.limit),
        next: next(q.next),
      },
    );
  const byAccountRoute = (chain: string, address: string, q: NftsByAccountQuery = {}) =>
    read(
      path`/api/v2/chain/${requireChain('chain', chain)}/account/${requireAddress('address', address)}/nfts`,
      {
        collection: optional(q.collection, (x) => requireSlug('collection', x)),
        include_auto_hidden: optional(q.include_auto_hidden, (x) => requireBoolean('include_auto_hidden', x)),
        limit: limit(q.limit),
        next: next(q.next),
      },
    );
  const metadataQuery = (q: MetadataQuery = {}) => ({
    ignoreCachedItemUrls: optional(q.ignoreCachedItemUrls, (x) => requireBoolean('ignoreCachedItemUrls', x)),
  });

  return {
    /** `GET /api/v2/chain/{chain}/contract/{address}/nfts/{identifier}` */
    async get(chain: string, address: string, identifier: string, call?: CallOptions): Promise<NftResponse> {
      return send(ctx, read(nftPath(chain, address, identifier)), call);
    },

    /** `GET /api/v2/collection/{slug}/nfts` (one page). */
    async byCollection(
      slug: string,
      query?: NftsByCollectionQuery,
      call?: CallOptions,
    ): Promise<NftListResponse> {
      return send(ctx, byCollectionRoute(slug, query), call);
    },
    iterateByCollection(slug: string, query?: Omit<NftsByCollectionQuery, 'next'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/collection/{slug}/nfts',
        byCollectionRoute(slug, query),
        'next',
        nfts,
        options,
      );
    },

    /** `GET /api/v2/chain/{chain}/contract/{address}/nfts` (one page). */
    async byContract(
      chain: string,
      address: string,
      query?: NftsByContractQuery,
      call?: CallOptions,
    ): Promise<NftListResponse> {
      return send(ctx, byContractRoute(chain, address, query), call);
    },
    iterateByContract(
      chain: string,
      address: string,
      query?: Omit<NftsByContractQuery, 'next'>,
      options?: IterateOptions,
    ) {
      const route = byContractRoute(chain, address, query);
      return iterate(ctx, '/api/v2/chain/{chain}/contract/{address}/nfts', route, 'next', nfts, options);
    },

    /** `GET /api/v2/chain/{chain}/account/{address}/nfts` (one page). */
    async byAccount(
      chain: string,
      address: string,
      query?: NftsByAccountQuery,
      call?: CallOptions,
    ): Promise<NftListResponse> {
      return send(ctx, byAccountRoute(chain, address, query), call);
    },
    iterateByAccount(
      chain: string,
      address: string,
      query?: Omit<NftsByAccountQuery, 'next'>,
      options?: IterateOptions,
    ) {
      const route = byAccountRoute(chain, address, query);
      return iterate(ctx, '/api/v2/chain/{chain}/account/{address}/nfts', route, 'next', nfts, options);
    },

    /**
     * `POST …/nfts/{identifier}/validate-metadata`: fetches metadata from the chain and shows how it
     * would be ingested; persists nothing (safe to repeat).
     */
    async validateMetadata(
      chain: string,
      address: string,
      identifier: string,
      query?: MetadataQuery,
      call?: CallOptions,
    ): Promise<ValidateMetadataResponse> {
      const p = `${nftPath(chain, address, identifier)}/validate-metadata`;
      return send(
        ctx,
        {
          method: 'POST',
          path: p,
          group: 'write',
          priority: Priority.analytics,
          query: metadataQuery(query),
          idempotent: true,
        },
        call,
      );
    },

    /** `POST …/nfts/{identifier}/refresh`: queues a metadata refresh; the answer is plain text. */
    async refreshMetadata(
      chain: string,
      address: string,
      identifier: string,
      query?: MetadataQuery,
      call?: CallOptions,
    ): Promise<string> {
      const p = `${nftPath(chain, address, identifier)}/refresh`;
      return send(
        ctx,
        {
          method: 'POST',
          path: p,
          group: 'write',
          priority: Priority.analytics,
          query: metadataQuery(query),
          text: true,
          idempotent: true,
        },
        call,
      );
    },

    /** `POST /api/v2/nfts/batch`: several NFTs by (chain, contract, token id) in one (read) call. */
    async batch(identifiers: BatchNftsRequest['identifiers'], call?: CallOptions): Promise<NftBatchResponse> {
      if (!Array.isArray(identifiers) || identifiers.length === 0 || identifiers.length > MAX_BATCH) {
        throw invalidInput(
          'identifiers',
          identifiers,
          `an array of 1 to ${MAX_BATCH} {chain, contract_address, token_id}`,
        );
      }
      const body: BatchNftsRequest = {
        identifiers: identifiers.map((raw, i) => {
          const o = requireObject(`identifiers[${i}]`, raw);
          return {
            chain: requireChain(`identifiers[${i}].chain`, o['chain']),
            contract_address: requireAddress(`identifiers[${i}].contract_address`, o['contract_address']),
            token_id: requireTokenId(`identifiers[${i}].token_id`, o['token_id']),
          };
        }),
      };
      return send(
        ctx,
        {
          method: 'POST',
          path: '/api/v2/nfts/batch',
          group: 'read',
          priority: Priority.read,
          body,
          idempotent: true,
        },
        call,
      );
    },
  };
}

export type NftsApi = ReturnType<typeof nftsApi>;
