/** Search across collections, tokens, NFTs and accounts, ranked by relevance. */
import type { SearchResponse } from '@opensea/api-types';
import type { CallOptions } from '../types.ts';
import {
  checkEnumList,
  checkLimit,
  LIMITS,
  optional,
  requireChains,
  requireString,
  SEARCH_ASSET_TYPES,
  type SearchAssetType,
} from '../validate.ts';
import { type EndpointContext, read, send } from './context.ts';

export interface SearchQuery {
  /** Search text (required). */
  readonly query: string;
  readonly chains?: readonly string[];
  /** Default on the server: collection and token. */
  readonly asset_types?: readonly SearchAssetType[];
  readonly limit?: number;
}

export function searchApi(ctx: EndpointContext) {
  return {
    /** `GET /api/v2/search` */
    async query(query: SearchQuery, call?: CallOptions): Promise<SearchResponse> {
      const q = query ?? ({} as Partial<SearchQuery>);
      return send(
        ctx,
        read('/api/v2/search', {
          query: requireString('query', q.query),
          chains: optional(q.chains, (x) => requireChains('chains', x)),
          asset_types: optional(q.asset_types, (x) => checkEnumList('asset_types', x, SEARCH_ASSET_TYPES)),
          limit: optional(q.limit, (x) => checkLimit('limit', x, LIMITS.v2)),
        }),
        call,
      );
    },
  };
}

export type SearchApi = ReturnType<typeof searchApi>;
