import { isChainName } from '../../../domain/chains.ts';
import { type CollectionView, renderNftDetailed } from '../../data/collections.ts';
import { collectionFloor } from '../../data/floors.ts';
import { pageOf } from '../../data/paging.ts';
import type { MarketData } from '../../data/service.ts';
import { activityIn, salesOf } from '../../data/stats.ts';
import { HttpError } from '../../errors.ts';
import { enumParam, intParam, listParam, strParam } from '../http.ts';
import type { Route, ServerState } from '../types.ts';
import { collectionDetail, renderCtx, tokenIdsOf } from './market-data.ts';
import { batchItems, batchList } from './tokens.ts';

/**
 * Collection lists and batch reads, from the sandbox's own collections and activity:
 *
 * - `GET /api/v2/collections/trending`: ranked by ETH volume of the sales in `timeframe`
 *   (default one_day; ties: sales, then slug); `category`, `chains`, `limit` 1–100 (default 20),
 *   `cursor`.
 * - `GET /api/v2/collections/top`: ranked descending by `sort_by` (default one_day_volume; sales
 *   counts, volumes over 1/7/30 days or all time, or the floor price on the aggregated basis);
 *   `limit` default 50.
 *   On both, `chains` names that are not chains are ignored, unless all are (400), as documented.
 * - `POST /api/v2/collections/batch` `{slugs}` and `POST /api/v2/nfts/batch`
 *   `{identifiers: [{chain, contract_address, token_id}]}`: the known ones in request order (an
 *   unknown slug or NFT is left out); malformed entries are a 400 naming each.
 *
 * These fixed words are literal routes, so the router never takes them for a `{slug}`.
 */

const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;

export const TIMEFRAMES = {
  one_minute: MINUTE,
  five_minutes: 5 * MINUTE,
  fifteen_minutes: 15 * MINUTE,
  one_hour: 60 * MINUTE,
  one_day: DAY,
  seven_days: 7 * DAY,
  thirty_days: 30 * DAY,
  one_year: 365 * DAY,
  all_time: Number.POSITIVE_INFINITY,
} as const;
export type Timeframe = keyof typeof TIMEFRAMES;

export const TOP_SORTS = [
  'one_day_volume',
  'seven_days_volume',
  'thirty_days_volume',
  'floor_price',
  'one_day_sales',
  'seven_days_sales',
  'thirty_days_sales',
  'total_volume',
  'total_sales',
] as const;

/** The fields of CollectionResponse (the list shape), taken from the detailed body. */
const SUMMARY_FIELDS = [
  'collection',
  'name',
  'description',
  'image_url',
  'banner_image_url',
  'owner',
  'safelist_status',
  'category',
  'is_disabled',
  'is_nsfw',
  'trait_offers_enabled',
  'collection_offers_enabled',
  'opensea_url',
  'project_url',
  'wiki_url',
  'discord_url',
  'telegram_url',
  'twitter_username',
  'instagram_username',
  'contracts',
] as const;

export function summaryOf(detail: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of SUMMARY_FIELDS) if (detail[k] !== undefined) out[k] = detail[k];
  return out;
}

/** `chains` of the collection lists: names that are not chains are ignored unless all are (400). */
function chainsOf(state: ServerState, q: URLSearchParams): boolean {
  const given = listParam(q, 'chains');
  if (given.length === 0) return true;
  const known = given.filter((c) => isChainName(c));
  if (known.length === 0)
    throw new HttpError(400, `chains: none of ${given.join(', ')} is a chain identifier`);
  return (known as string[]).includes(state.chain);
}

export function collectionListRoutes(state: ServerState, data: MarketData): Route[] {
  interface Row {
    readonly v: CollectionView;
    readonly detail: Record<string, unknown>;
  }

  async function rowsFor(q: URLSearchParams): Promise<Row[]> {
    const category = strParam(q, 'category');
    if (!chainsOf(state, q)) return [];
    const rows = await Promise.all(
      (await data.views()).map(async (v) => ({ v, detail: await collectionDetail(state, data, v) })),
    );
    return category === undefined ? rows : rows.filter((r) => r.detail['category'] === category);
  }

  function ranked(rows: Row[], key: (r: Row) => [bigint | number, bigint | number]): Row[] {
    const keyed = rows.map((r) => ({ r, k: key(r) }));
    keyed.sort((a, b) => {
      for (let i = 0; i < 2; i++) {
        const x = a.k[i] as bigint | number;
        const y = b.k[i] as bigint | number;
        if (x !== y) return x > y ? -1 : 1;
      }
      return a.r.v.slug < b.r.v.slug ? -1 : 1;
    });
    return keyed.map((x) => x.r);
  }

  function page(rows: Row[], q: URLSearchParams, tag: string, defaultLimit: number) {
    const limit = intParam(q, 'limit', { min: 1, max: 100 }, defaultLimit) as number;
    const p = pageOf(rows, tag, limit, strParam(q, 'cursor'), 'cursor');
    return {
      json: {
        collections: p.items.map((r) => summaryOf(r.detail)),
        ...(p.next !== undefined ? { next: p.next } : {}),
      },
    };
  }

  const salesIn = (slug: string, windowMs: number) =>
    activityIn(salesOf(state.events.all(), slug), windowMs, data.now());

  return [
    {
      method: 'GET',
      pattern: '/api/v2/collections/trending',
      access: 'key',
      handler: async (ctx) => {
        const q = ctx.query;
        const timeframe =
          enumParam(q, 'timeframe', Object.keys(TIMEFRAMES) as Timeframe[]) ?? ('one_day' as Timeframe);
        intParam(q, 'limit', { min: 1, max: 100 });
        const w = TIMEFRAMES[timeframe];
        const rows = ranked(await rowsFor(q), (r) => {
          const a = salesIn(r.v.slug, w);
          return [a.volume, a.sales];
        });
        return page(
          rows,
          q,
          `collections:trending:${timeframe}:${q.get('category') ?? ''}:${q.get('chains') ?? ''}`,
          20,
        );
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/collections/top',
      access: 'key',
      handler: async (ctx) => {
        const q = ctx.query;
        const by = enumParam(q, 'sort_by', TOP_SORTS) ?? 'one_day_volume';
        intParam(q, 'limit', { min: 1, max: 100 });
        const windowOf = (s: string) =>
          s.startsWith('one_day')
            ? DAY
            : s.startsWith('seven_days')
              ? 7 * DAY
              : s.startsWith('thirty_days')
                ? 30 * DAY
                : Number.POSITIVE_INFINITY;
        const rows = ranked(await rowsFor(q), (r) => {
          if (by === 'floor_price') {
            return [collectionFloor(data.pricePoints(r.v.slug))?.price ?? -1, 0];
          }
          const a = salesIn(r.v.slug, windowOf(by));
          return by.endsWith('_sales') ? [a.sales, a.volume] : [a.volume, a.sales];
        });
        return page(rows, q, `collections:top:${by}:${q.get('category') ?? ''}:${q.get('chains') ?? ''}`, 50);
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/collections/batch',
      access: 'key',
      handler: async (ctx) => {
        const slugs = batchStrings(await ctx.body(), 'slugs');
        const out: Record<string, unknown>[] = [];
        for (const slug of new Set(slugs)) {
          const v = await data.view(slug);
          if (v) out.push(summaryOf(await collectionDetail(state, data, v)));
        }
        return { json: { collections: out } };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/nfts/batch',
      access: 'key',
      handler: async (ctx) => {
        const wanted = parseNftBatch(await ctx.body());
        const h = await data.holdings();
        const rctx = renderCtx(state);
        const out: Record<string, unknown>[] = [];
        const seen = new Set<string>();
        for (const w of wanted) {
          const key = `${w.contract.toLowerCase()}:${w.tokenId}`;
          if (w.chain !== state.chain || seen.has(key)) continue;
          seen.add(key);
          const v = await data.viewByContract(w.contract);
          if (!v || !(await tokenIdsOf(data, v)).includes(w.tokenId)) continue;
          const owners = v.kind === 'offchain' ? [] : (h?.owners(v.contract, w.tokenId) ?? []);
          out.push(renderNftDetailed(v, w.tokenId, rctx, data.nftUpdatedAt(v.contract, w.tokenId), owners));
        }
        return { json: { nfts: out } };
      },
    },
  ];
}

/** A batch body's list of non-empty strings (400 otherwise). */
function batchStrings(body: unknown, field: string): string[] {
  const list = batchList(body, field);
  const bad = list.flatMap((s, i) =>
    typeof s === 'string' && s.trim() !== '' ? [] : [`${field}[${i}]: must be a non-empty string`],
  );
  if (bad.length > 0) throw new HttpError(400, bad);
  return list as string[];
}

/** `{identifiers: [{chain, contract_address, token_id}]}`: every entry checked (400 with each problem). */
export function parseNftBatch(body: unknown): { chain: string; contract: string; tokenId: string }[] {
  const problems: string[] = [];
  const out = batchItems(body, 'identifiers').map((o, i) => {
    const { chain, contract_address: contract, token_id: tokenId } = o;
    if (!isChainName(chain))
      problems.push(`identifiers[${i}].chain: '${String(chain)}' is not a chain identifier`);
    if (typeof contract !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(contract)) {
      problems.push(`identifiers[${i}].contract_address: '${String(contract)}' is not a valid address`);
    }
    if (typeof tokenId !== 'string' || !/^\d{1,78}$/.test(tokenId)) {
      problems.push(`identifiers[${i}].token_id: '${String(tokenId)}' is not a decimal token id`);
    }
    return {
      chain: String(chain),
      contract: String(contract),
      tokenId: String(tokenId).replace(/^0+(?=\d)/, ''),
    };
  });
  if (problems.length > 0) throw new HttpError(400, problems);
  return out;
}
