/** Token: trending and top tokens, token details, balances, batch. */
import type {
  BatchTokensRequest,
  OperationQueryParams,
  TokenBalancePaginatedResponse,
  TokenBalanceResponse,
  TokenBatchResponse,
  TokenDetailedResponse,
  TokenPaginatedResponse,
  TokenResponse,
} from '@opensea/api-types';
import { Priority } from '../../ratelimit/types.ts';
import { path } from '../path.ts';
import type { CallOptions, IterateOptions } from '../types.ts';
import {
  checkEnum,
  checkLimit,
  invalidInput,
  LIMITS,
  optional,
  requireAddress,
  requireBoolean,
  requireChain,
  requireChains,
  requireCursor,
  requireObject,
} from '../validate.ts';
import { MAX_BATCH } from './collections.ts';
import { type EndpointContext, iterate, read, send } from './context.ts';

export type TokenSortBy = NonNullable<OperationQueryParams<'get_trending_tokens'>['sort_by']>;
export type BalanceSortBy = NonNullable<OperationQueryParams<'get_token_balances_by_account'>['sort_by']>;
export type SortDirection = 'asc' | 'desc';

export const TOKEN_SORT_BY: readonly TokenSortBy[] = Object.freeze([
  'market_cap',
  'one_hour_volume',
  'one_day_volume',
  'one_hour_price_change',
  'one_day_price_change',
  'seven_day_price_change',
  'fourteen_day_price_change',
  'thirty_day_price_change',
  'two_hundred_day_price_change',
  'one_year_price_change',
  'price',
  'genesis_date',
  'score',
] satisfies TokenSortBy[]);
export const BALANCE_SORT_BY: readonly BalanceSortBy[] = Object.freeze([
  'usd_value',
  'market_cap',
  'one_day_volume',
  'price',
  'one_day_price_change',
  'seven_day_price_change',
] satisfies BalanceSortBy[]);
const SORT_DIRECTIONS: readonly SortDirection[] = ['asc', 'desc'];

export interface TokenListQuery {
  /** 1 to 100, default 20. */
  readonly limit?: number;
  readonly chains?: readonly string[];
  readonly sort_by?: TokenSortBy;
  readonly sort_direction?: SortDirection;
  readonly cursor?: string;
}

export interface TokenBalancesQuery {
  readonly limit?: number;
  readonly chains?: readonly string[];
  readonly sort_by?: BalanceSortBy;
  readonly sort_direction?: SortDirection;
  readonly disable_spam_filtering?: boolean;
  readonly cursor?: string;
}

const tokens = (page: TokenPaginatedResponse): readonly TokenResponse[] => page.tokens;
const balances = (page: TokenBalancePaginatedResponse): readonly TokenBalanceResponse[] =>
  page.token_balances;

function listQuery(q: TokenListQuery = {}) {
  return {
    limit: optional(q.limit, (x) => checkLimit('limit', x, LIMITS.tokens)),
    chains: optional(q.chains, (x) => requireChains('chains', x)),
    sort_by: optional(q.sort_by, (x) => checkEnum('sort_by', x, TOKEN_SORT_BY)),
    sort_direction: optional(q.sort_direction, (x) => checkEnum('sort_direction', x, SORT_DIRECTIONS)),
    cursor: optional(q.cursor, (x) => requireCursor('cursor', x)),
  };
}

export function tokensApi(ctx: EndpointContext) {
  const balancesRoute = (address: string, q: TokenBalancesQuery = {}) =>
    read(path`/api/v2/account/${requireAddress('address', address)}/tokens`, {
      limit: optional(q.limit, (x) => checkLimit('limit', x, LIMITS.tokens)),
      chains: optional(q.chains, (x) => requireChains('chains', x)),
      sort_by: optional(q.sort_by, (x) => checkEnum('sort_by', x, BALANCE_SORT_BY)),
      sort_direction: optional(q.sort_direction, (x) => checkEnum('sort_direction', x, SORT_DIRECTIONS)),
      disable_spam_filtering: optional(q.disable_spam_filtering, (x) =>
        requireBoolean('disable_spam_filtering', x),
      ),
      cursor: optional(q.cursor, (x) => requireCursor('cursor', x)),
    });

  return {
    /** `GET /api/v2/tokens/trending` (one page; cursor parameter `cursor`). */
    async trending(query?: TokenListQuery, call?: CallOptions): Promise<TokenPaginatedResponse> {
      return send(ctx, read('/api/v2/tokens/trending', listQuery(query)), call);
    },
    iterateTrending(query?: Omit<TokenListQuery, 'cursor'>, options?: IterateOptions) {
      const route = read('/api/v2/tokens/trending', listQuery(query));
      return iterate(ctx, '/api/v2/tokens/trending', route, 'cursor', tokens, options);
    },

    /** `GET /api/v2/tokens/top` (one page; ranked by 24 h volume). */
    async top(query?: TokenListQuery, call?: CallOptions): Promise<TokenPaginatedResponse> {
      return send(ctx, read('/api/v2/tokens/top', listQuery(query)), call);
    },
    iterateTop(query?: Omit<TokenListQuery, 'cursor'>, options?: IterateOptions) {
      const route = read('/api/v2/tokens/top', listQuery(query));
      return iterate(ctx, '/api/v2/tokens/top', route, 'cursor', tokens, options);
    },

    /** `GET /api/v2/chain/{chain}/token/{address}` */
    async get(chain: string, address: string, call?: CallOptions): Promise<TokenDetailedResponse> {
      const c = requireChain('chain', chain);
      const a = requireAddress('address', address);
      return send(ctx, read(path`/api/v2/chain/${c}/token/${a}`), call);
    },

    /** `GET /api/v2/account/{address}/tokens`: token balances of a wallet (one page). */
    async balances(
      address: string,
      query?: TokenBalancesQuery,
      call?: CallOptions,
    ): Promise<TokenBalancePaginatedResponse> {
      return send(ctx, balancesRoute(address, query), call);
    },
    iterateBalances(address: string, query?: Omit<TokenBalancesQuery, 'cursor'>, options?: IterateOptions) {
      return iterate(
        ctx,
        '/api/v2/account/{address}/tokens',
        balancesRoute(address, query),
        'cursor',
        balances,
        options,
      );
    },

    /** `POST /api/v2/tokens/batch`: several tokens by (chain, address) in one (read) call. */
    async batch(contracts: BatchTokensRequest['contracts'], call?: CallOptions): Promise<TokenBatchResponse> {
      if (!Array.isArray(contracts) || contracts.length === 0 || contracts.length > MAX_BATCH) {
        throw invalidInput('contracts', contracts, `an array of 1 to ${MAX_BATCH} {chain, address}`);
      }
      const body: BatchTokensRequest = {
        contracts: contracts.map((raw, i) => {
          const o = requireObject(`contracts[${i}]`, raw);
          return {
            chain: requireChain(`contracts[${i}].chain`, o['chain']),
            address: requireAddress(`contracts[${i}].address`, o['address']),
          };
        }),
      };
      return send(
        ctx,
        {
          method: 'POST',
          path: '/api/v2/tokens/batch',
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

export type TokensApi = ReturnType<typeof tokensApi>;
