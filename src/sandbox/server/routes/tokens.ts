import type { OperationQueryParams } from '@opensea/api-types';
import { Contract } from 'ethers';
import { isChainName } from '../../../domain/chains.ts';
import type { ChainFixture } from '../../chain/fixture.ts';
import { decimalString, type TokenInfo, tokenByAddress } from '../../data/currencies.ts';
import { pageOf } from '../../data/paging.ts';
import type { MarketData } from '../../data/service.ts';
import {
  CHANGE_WINDOWS,
  type ChangeWindow,
  figuresOf,
  PoolTape,
  type TokenFigures,
} from '../../data/token-market.ts';
import { HttpError } from '../../errors.ts';
import { enumParam, intParam, listParam, strParam } from '../http.ts';
import type { Handler, Route, ServerState } from '../types.ts';
import { tokenOfPath } from './market-data.ts';

/**
 * Token (currency) endpoints over the sandbox's own tokens — ETH, WETH and the swap venue's
 * ERC20s — with figures from the venue's history on the chain (src/sandbox/data/token-market.ts):
 *
 * - `GET /api/v2/tokens/trending`: ranked by the trending score, which in the sandbox is the
 *   last hour's USD volume (ties: the day's volume, then the symbol).
 * - `GET /api/v2/tokens/top`: ranked by the day's USD volume.
 *   Both take `limit` (1–100, default 20), `chains`, `sort_by`, `sort_direction` (default desc)
 *   and `cursor` (only valid for the query that produced it).
 * - `GET /api/v2/chain/{chain}/token/{address}`: one token in detail (404 unknown).
 * - `POST /api/v2/tokens/batch` `{contracts: [{chain, address}]}`: the known ones, in request order.
 */

export type TokenSortBy =
  | 'market_cap'
  | 'one_hour_volume'
  | 'one_day_volume'
  | `${ChangeWindow}_price_change`
  | 'price'
  | 'genesis_date'
  | 'score';

type DocumentedSort = NonNullable<OperationQueryParams<'get_trending_tokens'>['sort_by']>;
/** Compile-time check: the sandbox's sorts are exactly the documented ones. */
const sortsAsDocumented: [DocumentedSort] extends [TokenSortBy]
  ? [TokenSortBy] extends [DocumentedSort]
    ? true
    : false
  : false = true;
void sortsAsDocumented;

/** Every `sort_by` of the token lists: the figures, then a price change per window. */
export const TOKEN_SORTS: readonly TokenSortBy[] = [
  'market_cap',
  'one_hour_volume',
  'one_day_volume',
  ...(Object.keys(CHANGE_WINDOWS) as ChangeWindow[]).map((w) => `${w}_price_change` as const),
  'price',
  'genesis_date',
  'score',
];

/** Most identifiers one batch call takes. */
export const MAX_BATCH = 200;

/** The sort key of a token; tokens without the figure sort after all others. */
export function sortKey(f: TokenFigures, by: TokenSortBy): number | undefined {
  switch (by) {
    case 'market_cap':
      return f.marketCapUsd;
    case 'one_hour_volume':
    case 'score':
      return f.volumeUsd1h;
    case 'one_day_volume':
      return f.volumeUsd24h;
    case 'price':
      return f.usdPrice;
    case 'genesis_date':
      return f.genesisMs;
    default:
      return f.changes[by.replace(/_price_change$/, '') as ChangeWindow];
  }
}

/** Orders tokens by `by` in `direction`; missing figures last, then the day's volume, then symbol. */
export function rankTokens(
  rows: readonly TokenFigures[],
  by: TokenSortBy,
  direction: 'asc' | 'desc',
): TokenFigures[] {
  const sign = direction === 'desc' ? -1 : 1;
  return [...rows].sort((a, b) => {
    const ka = sortKey(a, by);
    const kb = sortKey(b, by);
    if (ka === undefined || kb === undefined) {
      if (ka !== kb) return ka === undefined ? 1 : -1;
    } else if (ka !== kb) return sign * (ka - kb);
    if (a.volumeUsd24h !== b.volumeUsd24h) return b.volumeUsd24h - a.volumeUsd24h;
    return a.token.symbol < b.token.symbol ? -1 : a.token.symbol > b.token.symbol ? 1 : 0;
  });
}

const ERC20_SUPPLY = ['function totalSupply() view returns (uint256)'];

async function supplyOf(fx: ChainFixture, t: TokenInfo): Promise<bigint | undefined> {
  if (t.native) return undefined;
  return (await new Contract(t.address, ERC20_SUPPLY, fx.provider).getFunction('totalSupply')()) as bigint;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const tokenUrl = (chain: string, t: TokenInfo) =>
  `https://opensea.io/token/${chain}/${t.address.toLowerCase()}`;

/** TokenResponse (the list shape). */
export function renderToken(f: TokenFigures, chain: string, createdAtMs: number): Record<string, unknown> {
  const t = f.token;
  const change = f.changes.one_day;
  return {
    address: t.address.toLowerCase(),
    chain,
    name: t.name,
    symbol: t.symbol,
    usd_price: decimalString(f.usdPrice, 6),
    decimals: t.decimals,
    opensea_url: tokenUrl(chain, t),
    ...(f.marketCapUsd !== undefined ? { market_cap_usd: round2(f.marketCapUsd) } : {}),
    volume_24h: round2(f.volumeUsd24h),
    ...(change !== undefined ? { price_change_24h: round2(change) } : {}),
    is_verified: true,
    created_at: Math.floor(createdAtMs / 1000),
    ...(f.genesisMs !== undefined ? { genesis_date: Math.floor(f.genesisMs / 1000) } : {}),
  };
}

/** TokenDetailedResponse (one token, batch). */
export function renderTokenDetailed(
  f: TokenFigures,
  chain: string,
  createdAtMs: number,
): Record<string, unknown> {
  const {
    market_cap_usd: _cap,
    volume_24h: _vol,
    price_change_24h: _chg,
    ...base
  } = renderToken(f, chain, createdAtMs);
  const c = f.changes;
  const stats: Record<string, number> = {};
  const put = (k: string, v: number | undefined) => {
    if (v !== undefined) stats[k] = round2(v);
  };
  put('market_cap_usd', f.marketCapUsd);
  put('total_supply', f.totalSupply);
  put('circulating_supply', f.totalSupply);
  put('volume_24h', f.volumeUsd24h);
  put('price_change_1h', c.one_hour);
  put('price_change_24h', c.one_day);
  put('price_change_7d', c.seven_day);
  put('price_change_30d', c.thirty_day);
  return {
    ...base,
    description: f.token.native
      ? 'The native currency of the sandbox chain.'
      : f.token.symbol === 'WETH'
        ? 'Wrapped Ether (WETH9): ETH as an ERC20, the currency of offers.'
        : `${f.token.name}: a token of the sandbox's swap venue (paired with WETH).`,
    description_source: 'TOKEN_METADATA',
    stats,
    status: 'OK',
  };
}

/** `chains` of a list query: 400 for a name that is not a chain; whether the sandbox's chain is in. */
export function chainsCover(state: ServerState, q: URLSearchParams): boolean {
  const chains = listParam(q, 'chains');
  for (const c of chains)
    if (!isChainName(c)) throw new HttpError(400, `chains: '${c}' is not a chain identifier`);
  return chains.length === 0 || chains.includes(state.chain);
}

export function tokenRoutes(state: ServerState, data: MarketData): Route[] {
  let tape: PoolTape | undefined;

  /** The figures of `tokens` now (no chain: no figures). */
  async function figures(tokens: readonly TokenInfo[]): Promise<TokenFigures[]> {
    const fx = state.fixture;
    if (!fx) return [];
    if (tape?.fixture !== fx) tape = new PoolTape(fx);
    const [pools, prices] = await Promise.all([tape.history(), data.prices()]);
    const now = data.now();
    return Promise.all(tokens.map(async (t) => figuresOf(t, pools, now, prices, await supplyOf(fx, t))));
  }

  function list(pattern: string, defaultSort: TokenSortBy): Handler {
    return async (ctx) => {
      const q = ctx.query;
      const limit = intParam(q, 'limit', { min: 1, max: 100 }, 20) as number;
      const covered = chainsCover(state, q);
      const by = enumParam(q, 'sort_by', TOKEN_SORTS) ?? defaultSort;
      const direction = enumParam(q, 'sort_direction', ['asc', 'desc'] as const) ?? 'desc';
      const cursor = strParam(q, 'cursor');
      const tag = `${pattern}:${by}:${direction}:${listParam(q, 'chains').join(',')}`;
      const ranked = covered ? rankTokens(await figures(data.tokens()), by, direction) : [];
      const page = pageOf(ranked, tag, limit, cursor, 'cursor');
      return {
        json: {
          tokens: page.items.map((f) => renderToken(f, state.chain, state.createdAtMs)),
          ...(page.next !== undefined ? { next: page.next } : {}),
        },
      };
    };
  }

  return [
    {
      method: 'GET',
      pattern: '/api/v2/tokens/trending',
      access: 'key',
      handler: list('/api/v2/tokens/trending', 'score'),
    },
    {
      method: 'GET',
      pattern: '/api/v2/tokens/top',
      access: 'key',
      handler: list('/api/v2/tokens/top', 'one_day_volume'),
    },
    {
      method: 'GET',
      pattern: '/api/v2/chain/{chain}/token/{address}',
      access: 'key',
      handler: async (ctx) => {
        const [f] = await figures([tokenOfPath(state, data, ctx, 'Token')]);
        if (!f) throw new HttpError(503, 'The sandbox chain is not running (no chain fixture attached)');
        return { json: renderTokenDetailed(f, state.chain, state.createdAtMs) };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/tokens/batch',
      access: 'key',
      handler: async (ctx) => {
        const wanted = parseTokenBatch(await ctx.body());
        const tokens = data.tokens();
        const found: TokenInfo[] = [];
        for (const w of wanted) {
          const t = w.chain === state.chain ? tokenByAddress(tokens, w.address) : undefined;
          if (t && !found.includes(t)) found.push(t);
        }
        const fs = await figures(found);
        return { json: { tokens: fs.map((f) => renderTokenDetailed(f, state.chain, state.createdAtMs)) } };
      },
    },
  ];
}

/** A batch body's `field`: an array of 1 to MAX_BATCH entries (400 otherwise). */
export function batchList(body: unknown, field: string): unknown[] {
  const list =
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(list)) throw new HttpError(400, `${field}: required, an array`);
  if (list.length === 0 || list.length > MAX_BATCH) {
    throw new HttpError(400, `${field}: must hold 1 to ${MAX_BATCH} entries, got ${list.length}`);
  }
  return list;
}

/** A batch body's `field` as objects (400 for an entry that is not one). */
export function batchItems(body: unknown, field: string): Record<string, unknown>[] {
  return batchList(body, field).map((x, i) => {
    if (x === null || typeof x !== 'object' || Array.isArray(x)) {
      throw new HttpError(400, `${field}[${i}]: must be an object`);
    }
    return x as Record<string, unknown>;
  });
}

/** `{contracts: [{chain, address}]}`: every entry checked (400 with each problem). */
export function parseTokenBatch(body: unknown): { chain: string; address: string }[] {
  const problems: string[] = [];
  const out = batchItems(body, 'contracts').map((o, i) => {
    const chain = o['chain'];
    const address = o['address'];
    if (!isChainName(chain))
      problems.push(`contracts[${i}].chain: '${String(chain)}' is not a chain identifier`);
    if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) {
      problems.push(`contracts[${i}].address: '${String(address)}' is not a valid address`);
    }
    return { chain: String(chain), address: String(address) };
  });
  if (problems.length > 0) throw new HttpError(400, problems);
  return out;
}
