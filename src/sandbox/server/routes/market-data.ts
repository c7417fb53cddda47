import { Contract, formatUnits, getAddress, isAddress } from 'ethers';
import { isChainName } from '../../../domain/chains.ts';
import type { ChainFixture } from '../../chain/fixture.ts';
import {
  applyMetadata,
  applyModify,
  creatorFeesOf,
  parseModifyCollection,
  parseUpdateMetadata,
} from '../../data/collection-edits.ts';
import {
  type CollectionView,
  type RenderContext,
  renderCollection,
  renderContract,
  renderNft,
  renderNftDetailed,
  renderPaymentToken,
} from '../../data/collections.ts';
import {
  decimalString,
  ETH_TOKEN,
  priceOf,
  type TokenInfo,
  tokenByAddress,
  tokenBySymbol,
} from '../../data/currencies.ts';
import { collectionFloor, traitFloors } from '../../data/floors.ts';
import { fetchMetadata, refreshCollection, refreshNft, renderValidation } from '../../data/metadata.ts';
import { pageOf } from '../../data/paging.ts';
import type { MarketData } from '../../data/service.ts';
import { collectionStats } from '../../data/stats.ts';
import { collectionTraits, traitCategories } from '../../data/traits.ts';
import { HttpError } from '../../errors.ts';
import { boolParam, enumParam, intParam, listParam, strParam } from '../http.ts';
import type { RequestContext, Route, ServerState } from '../types.ts';

/**
 * Market data: chains, collections (details, stats from the sandbox's own activity, traits,
 * trait floors), NFTs (one, by collection, by contract, by account; owners from the chain),
 * token balances, payment tokens, contracts, the metadata refresh/validate endpoints, and the
 * collection edits (`PATCH /api/v2/collections/{slug}` and `.../metadata`; saved values and the
 * refresh rules in src/sandbox/data/collection-edits.ts; `GET /_sandbox/collections/{slug}/profile`
 * shows what is saved, page content included, which no API read returns). Creator fees set by a
 * PATCH replace the catalog collection's, so the collection's `fees` and the checks of orders
 * posted from then on use them.
 *
 * Floors (stats `floor_price`, trait floors) are on the aggregated basis: the sandbox's book plus
 * the other marketplaces' listings (src/sandbox/data/external.ts). Errors: 400 for a malformed
 * chain, address, identifier or parameter; 404 for an unknown slug, contract or token, or a
 * well-formed chain the sandbox does not run.
 */

const CHAIN_INFO: Readonly<Record<string, readonly [string, string, string, string]>> = {
  ethereum: ['Ethereum', 'ETH', 'Etherscan', 'https://etherscan.io'],
  base: ['Base', 'ETH', 'Basescan', 'https://basescan.org'],
  optimism: ['Optimism', 'ETH', 'Optimistic Etherscan', 'https://optimistic.etherscan.io'],
  arbitrum: ['Arbitrum', 'ETH', 'Arbiscan', 'https://arbiscan.io'],
  polygon: ['Polygon', 'POL', 'Polygonscan', 'https://polygonscan.com'],
  zora: ['Zora', 'ETH', 'Zora Explorer', 'https://explorer.zora.energy'],
  blast: ['Blast', 'ETH', 'Blastscan', 'https://blastscan.io'],
};

export function renderChain(chain: string, supportsSwaps: boolean): Record<string, unknown> {
  const [name, symbol, explorer, url] = CHAIN_INFO[chain] ?? [
    chain.charAt(0).toUpperCase() + chain.slice(1).replace(/_/g, ' '),
    'ETH',
    '',
    '',
  ];
  return {
    chain,
    name,
    symbol,
    supports_swaps: supportsSwaps,
    block_explorer: explorer,
    block_explorer_url: url,
  };
}

function fixtureOf(state: ServerState): ChainFixture {
  if (!state.fixture)
    throw new HttpError(503, 'The sandbox chain is not running (no chain fixture attached)');
  return state.fixture;
}

/** A path chain: 400 when not a chain identifier, 404 when the sandbox does not run it. */
export function checkChainParam(state: ServerState, raw: string | undefined): string {
  const chain = raw ?? '';
  if (!isChainName(chain)) throw new HttpError(400, `chain: '${chain}' is not a supported chain identifier`);
  if (chain !== state.chain)
    throw new HttpError(404, `Nothing found on chain ${chain} (the sandbox runs ${state.chain})`);
  return chain;
}

export function addressParam(raw: string | undefined, name = 'address'): string {
  if (raw === undefined || !isAddress(raw))
    throw new HttpError(400, `${name}: '${raw ?? ''}' is not a valid address`);
  return getAddress(raw.toLowerCase());
}

export function identifierParam(raw: string | undefined): bigint {
  if (raw === undefined || !/^\d{1,78}$/.test(raw)) {
    throw new HttpError(400, `identifier: '${raw ?? ''}' is not a decimal token id`);
  }
  return BigInt(raw);
}

/** The token of a path (`{chain}`, `{address}`): 400 malformed, 404 not one of the sandbox's. */
export function tokenOfPath(
  state: ServerState,
  data: MarketData,
  ctx: RequestContext,
  what: string,
): TokenInfo {
  const chain = checkChainParam(state, ctx.params['chain']);
  const address = addressParam(ctx.params['address']);
  const t = tokenByAddress(data.tokens(), address);
  if (!t) throw new HttpError(404, `${what} ${address.toLowerCase()} not found on ${chain}`);
  return t;
}

export function renderCtx(state: ServerState): RenderContext {
  return { chain: state.chain, publicUrl: state.publicUrl, createdAtMs: state.createdAtMs };
}

/** `traits` of the collection NFT list: JSON `[{"traitType","value"}]`, AND-combined. */
function traitFilter(q: URLSearchParams): { type: string; value: string }[] {
  const raw = strParam(q, 'traits');
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'traits: must be a JSON array of {"traitType": ..., "value": ...}');
  }
  if (!Array.isArray(parsed)) throw new HttpError(400, 'traits: must be a JSON array');
  return parsed.map((t: unknown, i) => {
    const o = (typeof t === 'object' && t !== null ? t : {}) as { traitType?: unknown; value?: unknown };
    if (typeof o.traitType !== 'string' || o.value === undefined || o.value === null) {
      throw new HttpError(400, `traits[${i}]: needs a string "traitType" and a "value"`);
    }
    return { type: o.traitType, value: String(o.value) };
  });
}

async function balanceOf(fx: ChainFixture, t: TokenInfo, owner: string): Promise<bigint> {
  if (t.native) return fx.provider.getBalance(owner);
  const c = new Contract(t.address, ['function balanceOf(address) view returns (uint256)'], fx.provider);
  return (await c.getFunction('balanceOf')(owner)) as bigint;
}

/** The token ids of a collection in circulation (from the chain). */
export async function tokenIdsOf(data: MarketData, v: CollectionView): Promise<string[]> {
  if (v.kind === 'offchain') return Array.from({ length: v.presetSupply ?? 0 }, (_, i) => String(i + 1));
  const h = await data.holdings();
  if (h) return h.tokenIds(v.contract);
  return Array.from({ length: v.presetSupply ?? 0 }, (_, i) => String(i + 1));
}

/** `GET /api/v2/collections/{slug}`'s body: the collection with what its owner saved. */
export async function collectionDetail(
  state: ServerState,
  data: MarketData,
  v: CollectionView,
): Promise<Record<string, unknown>> {
  const prices = await data.prices();
  const listing = renderPaymentToken(ETH_TOKEN, state.chain, prices);
  const wethToken = tokenBySymbol(data.tokens(), 'WETH');
  const offer = wethToken ? renderPaymentToken(wethToken, state.chain, prices) : listing;
  const items = (await tokenIdsOf(data, v)).length;
  const body = renderCollection(v, renderCtx(state), { items }, { listing, offer });
  const profile = data.profileIfAny(v.slug);
  if (!profile) return body;
  const { medium_username: _medium, ...shown } = profile.fields;
  const editors = [...new Set([...(body['editors'] as string[]), ...profile.editors])];
  return { ...body, ...shown, editors };
}

export function marketDataRoutes(state: ServerState, data: MarketData): Route[] {
  async function collection(slug: string): Promise<CollectionView> {
    const v = await data.view(slug);
    if (!v) throw new HttpError(404, `Collection '${slug}' not found`);
    return v;
  }

  /**
   * Whether the caller may edit or refresh a collection. Without wallet authentication the caller
   * is the key's account: the key the sandbox prints (account 'sandbox', its operator) or a key
   * whose account is the owner's or an authorized editor's address.
   */
  /** The caller is the wallet JWT's wallet when one came (write:collections), else the key's account. */
  function mayEdit(ctx: RequestContext, v: CollectionView): boolean {
    const account = (ctx.wallet?.address ?? ctx.principal?.account ?? '').toLowerCase();
    if (account === 'sandbox' || account === v.owner.toLowerCase()) return true;
    return data.profileIfAny(v.slug)?.editors.includes(account) ?? false;
  }

  /** The 403 of the PATCH endpoints: their documented 403 body (`success: false`) plus the reason. */
  function forbidden(v: CollectionView): HttpError {
    return new HttpError(403, `Only the owner or an authorized editor of '${v.slug}' can edit it`, {
      success: false,
    });
  }

  /** The NFT contract of a path; `missing` is the status of an unknown one (404, or 400 where the
   * API documents no 404). */
  async function byContract(ctx: RequestContext, missing: 400 | 404 = 404): Promise<CollectionView> {
    try {
      checkChainParam(state, ctx.params['chain']);
    } catch (e) {
      if (e instanceof HttpError && e.status === 404) throw new HttpError(missing, e.reasons);
      throw e;
    }
    const address = addressParam(ctx.params['address']);
    const v = await data.viewByContract(address);
    if (!v) throw new HttpError(missing, `Contract ${address.toLowerCase()} not found on ${state.chain}`);
    return v;
  }

  const tokenIds = (v: CollectionView) => tokenIdsOf(data, v);

  /** The NFT of a path (chain, address, identifier); 404 unless it is in circulation. */
  async function nftOf(ctx: RequestContext): Promise<{ v: CollectionView; id: bigint }> {
    const v = await byContract(ctx);
    const id = identifierParam(ctx.params['identifier']);
    const h = v.kind === 'offchain' ? undefined : await data.holdings();
    const exists = h
      ? h.supply(v.contract, id.toString()) > 0n
      : id >= 1n && id <= BigInt(v.presetSupply ?? 0);
    if (!exists) throw new HttpError(404, `NFT ${v.contract.toLowerCase()}/${id} not found`);
    return { v, id };
  }

  function nftPage(ids: readonly { v: CollectionView; id: string }[], q: URLSearchParams, tag: string) {
    const limit = intParam(q, 'limit', { min: 1, max: 200 }, 50) as number;
    const page = pageOf(ids, tag, limit, strParam(q, 'next'));
    const ctx = renderCtx(state);
    const updated = new Map<string, Map<string, number>>();
    const updatedAt = (c: CollectionView, id: string) => {
      let m = updated.get(c.contract);
      if (!m) {
        m = data.nftUpdatedAtMap(c.contract);
        updated.set(c.contract, m);
      }
      return Math.max(state.createdAtMs, m.get(id) ?? 0);
    };
    return {
      json: {
        nfts: page.items.map((x) => renderNft(x.v, x.id, ctx, updatedAt(x.v, x.id))),
        ...(page.next !== undefined ? { next: page.next } : {}),
      },
    };
  }

  return [
    {
      method: 'GET',
      pattern: '/api/v2/chains',
      access: 'key',
      handler: () => ({ json: { chains: [renderChain(state.chain, state.fixture?.uniswap !== undefined)] } }),
    },
    {
      method: 'GET',
      pattern: '/api/v2/collections/{slug}',
      access: 'key',
      handler: async (ctx) => ({
        json: await collectionDetail(state, data, await collection(ctx.params['slug'] as string)),
      }),
    },
    {
      method: 'GET',
      pattern: '/api/v2/collections/{slug}/stats',
      access: 'key',
      handler: async (ctx) => {
        const v = await collection(ctx.params['slug'] as string);
        const h = await data.holdings();
        const floor = collectionFloor(data.pricePoints(v.slug));
        return {
          json: collectionStats(state.events.all(), v.slug, data.now(), h?.numOwners(v.contract) ?? 0, floor),
        };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/traits/{slug}',
      access: 'key',
      handler: async (ctx) => {
        const v = await collection(ctx.params['slug'] as string);
        const ids = await tokenIds(v);
        return { json: collectionTraits(ids.map((id) => v.traits(BigInt(id)))) };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/traits/{slug}/floors',
      access: 'key',
      handler: async (ctx) => {
        const v = await collection(ctx.params['slug'] as string);
        const ids = await tokenIds(v);
        // Every item's traits once per request (the categories need them all; the floors reuse them).
        const byId = new Map(ids.map((id) => [id, v.traits(BigInt(id))] as const));
        const categories = traitCategories([...byId.values()]);
        const floors = traitFloors(
          data.pricePoints(v.slug),
          (id) => byId.get(id) ?? v.traits(BigInt(id)),
          categories,
        );
        return { json: { chain: state.chain, floors } };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}',
      access: 'key',
      handler: async (ctx) => {
        const { v, id } = await nftOf(ctx);
        const h = await data.holdings();
        const owners = h?.owners(v.contract, id.toString()) ?? [];
        return {
          json: {
            nft: renderNftDetailed(
              v,
              id.toString(),
              renderCtx(state),
              data.nftUpdatedAt(v.contract, id.toString()),
              owners,
            ),
          },
        };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/collection/{slug}/nfts',
      access: 'key',
      handler: async (ctx) => {
        const v = await collection(ctx.params['slug'] as string);
        const wanted = traitFilter(ctx.query);
        const ids = (await tokenIds(v)).filter((id) => {
          if (wanted.length === 0) return true;
          const have = v.traits(BigInt(id));
          return wanted.every((w) =>
            have.some((t) => t.trait_type === w.type && String(t.value) === w.value),
          );
        });
        return nftPage(
          ids.map((id) => ({ v, id })),
          ctx.query,
          `collection:${v.slug}:${JSON.stringify(wanted)}`,
        );
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/chain/{chain}/contract/{address}/nfts',
      access: 'key',
      handler: async (ctx) => {
        // The API documents no 404 here: an unknown contract is a bad request.
        const v = await byContract(ctx, 400);
        const ids = await tokenIds(v);
        return nftPage(
          ids.map((id) => ({ v, id })),
          ctx.query,
          `contract:${v.contract}`,
        );
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/chain/{chain}/account/{address}/nfts',
      access: 'key',
      handler: async (ctx) => {
        checkChainParam(state, ctx.params['chain']);
        const account = addressParam(ctx.params['address']);
        const slug = strParam(ctx.query, 'collection');
        boolParam(ctx.query, 'include_auto_hidden');
        const only = slug !== undefined ? await collection(slug) : undefined;
        const h = await data.holdings();
        const views = await data.views();
        const items: { v: CollectionView; id: string }[] = [];
        for (const held of h?.holdingsOf(account) ?? []) {
          const v = views.find((x) => x.contract.toLowerCase() === held.contract.toLowerCase());
          if (!v || (only && only.slug !== v.slug)) continue;
          items.push({ v, id: held.identifier });
        }
        return nftPage(items, ctx.query, `account:${account}:${slug ?? ''}`);
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/account/{address}/tokens',
      access: 'key',
      handler: async (ctx) => {
        const account = addressParam(ctx.params['address']);
        const q = ctx.query;
        const limit = intParam(q, 'limit', { min: 1, max: 100 }, 20) as number;
        const chains = listParam(q, 'chains');
        for (const c of chains)
          if (!isChainName(c)) throw new HttpError(400, `chains: '${c}' is not a chain identifier`);
        const sortBy =
          enumParam(q, 'sort_by', [
            'usd_value',
            'market_cap',
            'one_day_volume',
            'price',
            'one_day_price_change',
            'seven_day_price_change',
          ] as const) ?? 'usd_value';
        const direction = enumParam(q, 'sort_direction', ['asc', 'desc'] as const) ?? 'desc';
        boolParam(q, 'disable_spam_filtering');
        const cursor = strParam(q, 'cursor');
        const fx = state.fixture;
        if (!fx || (chains.length > 0 && !chains.includes(state.chain))) {
          const page = pageOf([], 'tokens', limit, cursor, 'cursor');
          return { json: { token_balances: page.items } };
        }
        const prices = await data.prices();
        const rows: { usd: number; price: number; body: Record<string, unknown> & { symbol: string } }[] = [];
        for (const t of data.tokens()) {
          const bal = await balanceOf(fx, t, account);
          if (bal === 0n) continue;
          const p = priceOf(prices, t.symbol);
          const qty = formatUnits(bal, t.decimals);
          const usd = Number(qty) * (p?.usd ?? 0);
          rows.push({
            usd,
            price: p?.usd ?? 0,
            body: {
              address: t.address.toLowerCase(),
              chain: state.chain,
              name: t.name,
              symbol: t.symbol,
              usd_price: decimalString(p?.usd ?? 0, 6),
              decimals: t.decimals,
              opensea_url: `https://opensea.io/token/${state.chain}/${t.address.toLowerCase()}`,
              quantity: qty.replace(/\.0$/, ''),
              usd_value: decimalString(usd, 6),
              status: 'OK',
            },
          });
        }
        // Only usd_value and price are known to the sandbox; the other orders fall back to usd_value.
        const key = (r: (typeof rows)[number]) => (sortBy === 'price' ? r.price : r.usd);
        rows.sort(
          (a, b) =>
            (direction === 'desc' ? key(b) - key(a) : key(a) - key(b)) ||
            (a.body.symbol < b.body.symbol ? -1 : 1),
        );
        const page = pageOf(
          rows.map((r) => r.body),
          `tokens:${account}:${sortBy}:${direction}`,
          limit,
          cursor,
          'cursor',
        );
        return {
          json: { token_balances: page.items, ...(page.next !== undefined ? { next: page.next } : {}) },
        };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/chain/{chain}/payment_token/{address}',
      access: 'key',
      handler: async (ctx) => {
        const t = tokenOfPath(state, data, ctx, 'Payment token');
        return { json: renderPaymentToken(t, state.chain, await data.prices()) };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/chain/{chain}/contract/{address}',
      access: 'key',
      handler: async (ctx) => ({ json: renderContract(await byContract(ctx), state.chain) }),
    },
    {
      method: 'POST',
      pattern: '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/validate-metadata',
      access: 'key',
      handler: async (ctx) => {
        boolParam(ctx.query, 'ignoreCachedItemUrls');
        const { v, id } = await nftOf(ctx);
        const r = await fetchMetadata(fixtureOf(state), v, id);
        return { json: renderValidation(state.chain, v, id, r) };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/refresh',
      access: 'key',
      handler: async (ctx) => {
        boolParam(ctx.query, 'ignoreCachedItemUrls');
        const { v, id } = await nftOf(ctx);
        fixtureOf(state);
        // Queued: the re-read runs after the answer; a failed fetch leaves everything as it was.
        setImmediate(() => {
          refreshNft(data, v, id).catch(() => undefined);
        });
        return { json: `Metadata refresh queued for ${state.chain}/${v.contract.toLowerCase()}/${id}` };
      },
    },
    {
      method: 'PATCH',
      pattern: '/api/v2/collections/{slug}',
      access: 'key',
      // a wallet JWT is optional here; one sent must carry write:collections, and its wallet edits
      wallet: { scope: 'write:collections', required: () => false },
      handler: async (ctx) => {
        const v = await collection(ctx.params['slug'] as string);
        if (!mayEdit(ctx, v)) throw forbidden(v);
        const m = parseModifyCollection(await ctx.body());
        // Everything is checked before anything is applied: a refused request changes nothing.
        const fees = creatorFeesOf(m);
        const catalog = state.catalog;
        if (fees !== undefined && (v.kind !== 'catalog' || !catalog)) {
          throw new HttpError(
            400,
            `creator_fees: the sandbox keeps creator fees for its catalog collections only ('${v.slug}' is ${v.kind === 'drop' ? 'a drop' : 'known only from other marketplaces'})`,
          );
        }
        if (fees !== undefined) catalog?.setCreatorFees(v.slug, fees);
        applyModify(data.profile(v.slug), m);
        return { json: { success: true } };
      },
    },
    {
      method: 'PATCH',
      pattern: '/api/v2/collections/{slug}/metadata',
      access: 'key',
      // a wallet JWT is optional here; one sent must carry write:collections, and its wallet edits
      wallet: { scope: 'write:collections', required: () => false },
      handler: async (ctx) => {
        const v = await collection(ctx.params['slug'] as string);
        if (!mayEdit(ctx, v)) throw forbidden(v);
        applyMetadata(data.profile(v.slug), parseUpdateMetadata(await ctx.body()));
        return { json: { success: true } };
      },
    },
    {
      method: 'GET',
      pattern: '/_sandbox/collections/{slug}/profile',
      access: 'admin',
      handler: async (ctx) => {
        const v = await collection(ctx.params['slug'] as string);
        const p = data.profileIfAny(v.slug);
        return {
          json: {
            slug: v.slug,
            fields: p?.fields ?? {},
            editors: p?.editors ?? [],
            page: p?.page ?? {},
            refreshedAt: p?.refreshedAtMs !== undefined ? new Date(p.refreshedAtMs).toISOString() : null,
            missingItems: [...data.nftMissing]
              .filter((k) => k.startsWith(`${v.contract.toLowerCase()}:`))
              .map((k) => k.split(':')[1]),
          },
        };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/collections/{slug}/refresh',
      access: 'key',
      handler: async (ctx) => {
        const v = await collection(ctx.params['slug'] as string);
        // Without wallet authentication the caller is the key's account: the key the sandbox
        // prints (account 'sandbox', its operator) or a key whose account is the owner's or an
        // editor's address.
        if (!mayEdit(ctx, v)) {
          throw new HttpError(403, `Only the owner or an authorized editor of '${v.slug}' can refresh it`);
        }
        fixtureOf(state);
        setImmediate(() => {
          refreshCollection(data, v).catch(() => undefined);
        });
        return { json: `Collection refresh queued for ${v.slug}` };
      },
    },
  ];
}
