import { lower } from '../../data/collections.ts';
import { decimalString, priceOf } from '../../data/currencies.ts';
import { rank, SEARCH_TYPES, type SearchCandidate, type SearchType } from '../../data/search.ts';
import type { MarketData } from '../../data/service.ts';
import { HttpError } from '../../errors.ts';
import { intParam, listParam, strParam } from '../http.ts';
import type { Route, ServerState } from '../types.ts';
import { sandboxAccounts } from './accounts.ts';
import { collectionDetail, tokenIdsOf } from './market-data.ts';
import { chainsCover } from './tokens.ts';

/**
 * `GET /api/v2/search`: the sandbox's collections (name, slug, symbol), tokens (symbol, name,
 * address), NFTs (name, token id) and named accounts (username, address), ranked by relevance
 * (src/sandbox/data/search.ts). `query` is required; `asset_types` ⊆ {collection, nft, token,
 * account} (default collection and token); `chains`; `limit` 1–50 (default 20). 400 for a missing
 * query, an unknown asset type or chain, or a limit out of range.
 */

type Result = Record<string, unknown>;

export function searchRoutes(state: ServerState, data: MarketData): Route[] {
  async function candidates(types: readonly SearchType[]): Promise<SearchCandidate<Result>[]> {
    const out: SearchCandidate<Result>[] = [];
    const views = await data.views();
    if (types.includes('collection')) {
      for (const v of views) {
        const d = await collectionDetail(state, data, v);
        const name = String(d['name']);
        out.push({
          type: 'collection',
          fields: [name, v.slug, v.symbol],
          label: name,
          value: {
            collection: v.slug,
            name,
            ...(d['image_url'] !== undefined ? { image_url: d['image_url'] } : {}),
            is_disabled: d['is_disabled'],
            is_nsfw: d['is_nsfw'],
            opensea_url: d['opensea_url'],
          },
        });
      }
    }
    if (types.includes('token')) {
      const prices = await data.prices();
      for (const t of data.tokens()) {
        out.push({
          type: 'token',
          fields: [t.symbol, t.name, t.address],
          label: t.symbol,
          value: {
            address: lower(t.address),
            chain: state.chain,
            name: t.name,
            symbol: t.symbol,
            usd_price: decimalString(priceOf(prices, t.symbol)?.usd ?? 0, 6),
            decimals: t.decimals,
            opensea_url: `https://opensea.io/token/${state.chain}/${lower(t.address)}`,
          },
        });
      }
    }
    if (types.includes('nft')) {
      for (const v of views) {
        for (const id of await tokenIdsOf(data, v)) {
          const name = `${v.name} #${id}`;
          out.push({
            type: 'nft',
            fields: [name, id],
            label: name,
            value: {
              identifier: id,
              collection: v.slug,
              contract: lower(v.contract),
              name,
              image_url: `${state.publicUrl}/metadata/${v.slug}/${id}/image.svg`,
              opensea_url: `https://opensea.io/assets/${state.chain}/${lower(v.contract)}/${id}`,
            },
          });
        }
      }
    }
    if (types.includes('account')) {
      for (const a of await sandboxAccounts(state, data)) {
        out.push({
          type: 'account',
          fields: [a.username ?? '', a.address.toLowerCase()],
          label: a.username ?? a.address,
          value: {
            address: lower(a.address),
            ...(a.username !== undefined ? { username: a.username } : {}),
            opensea_url: `https://opensea.io/${a.username ?? lower(a.address)}`,
          },
        });
      }
    }
    return out;
  }

  return [
    {
      method: 'GET',
      pattern: '/api/v2/search',
      access: 'key',
      handler: async (ctx) => {
        const q = ctx.query;
        const query = strParam(q, 'query');
        if (query === undefined || query.trim() === '') throw new HttpError(400, 'query: required');
        const limit = intParam(q, 'limit', { min: 1, max: 50 }, 20) as number;
        const types = listParam(q, 'asset_types');
        for (const t of types) {
          if (!(SEARCH_TYPES as readonly string[]).includes(t)) {
            throw new HttpError(400, `asset_types: '${t}' is not one of ${SEARCH_TYPES.join(', ')}`);
          }
        }
        if (!chainsCover(state, q)) return { json: { results: [] } };
        const wanted = (types.length > 0 ? types : ['collection', 'token']) as SearchType[];
        const results = rank(query, await candidates(wanted), limit).map((r) => ({
          type: r.type,
          [r.type]: r.value,
        }));
        return { json: { results } };
      },
    },
  ];
}
