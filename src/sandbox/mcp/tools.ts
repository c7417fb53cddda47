import { z } from 'zod';

/**
 * The agent-protocol tools of the sandbox (spec, Authentication rule 8), one row each: what the
 * tool needs (nothing, the API key, or the API key and a wallet JWT with a scope) and the REST
 * request(s) it makes. A tool is a named, typed view of REST routes: its answer is what the route
 * answers, from the same handler, through the same key check, rate bucket and faults
 * (src/sandbox/server/index.ts `invoke`). `GET /api/v2/auth/scopes` lists each scope's tools from
 * this table (`scopeTools`), so the tool list and the scopes never disagree.
 */

/** Who may call a tool: anyone, an API key, or an API key plus a wallet JWT carrying `scope`. */
export type ToolAccess =
  | { readonly kind: 'public' }
  | { readonly kind: 'key' }
  | { readonly kind: 'wallet'; readonly scope: string };

/** One REST request of a tool. */
export interface ToolRequest {
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly body?: unknown;
  /** A label of this request in a tool that makes several (`cancel_orders`: the order hash). */
  readonly label?: string;
}

export interface SandboxTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly access: ToolAccess;
  /** The tool's arguments (zod object shape; the MCP SDK publishes it as JSON Schema). */
  readonly input: z.ZodRawShape;
  /** Whether the tool only reads (MCP `readOnlyHint`). */
  readonly readOnly: boolean;
  /** The REST request(s); `chain` is the sandbox's chain (the default of `chain` arguments). */
  requests(args: Record<string, unknown>, chain: string): readonly ToolRequest[];
  /** The tool makes one request per element of a list (answers `{results: [...]}`). */
  readonly many?: boolean;
}

const PUBLIC: ToolAccess = { kind: 'public' };
const KEY: ToolAccess = { kind: 'key' };

/** A path template with `{name}` segments filled in (each value percent-encoded). */
export function fillPath(template: string, values: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined || v === null || v === '') throw new Error(`missing path value ${name}`);
    return encodeURIComponent(String(v));
  });
}

/** A query of the defined values (arrays repeat the parameter). */
export function queryOf(values: Readonly<Record<string, unknown>>): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const x of v) q.append(k, String(x));
    else q.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  return q;
}

const pick = (args: Readonly<Record<string, unknown>>, names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, args[n]]));

// ── argument shapes ───────────────────────────────────────────────────────────────────────────

const slug = z.string().min(1).describe('collection slug');
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte hex address');
const identifier = z.string().regex(/^\d+$/, 'a token id in decimal').describe('token id (decimal)');
const limit = z.number().int().positive().optional().describe('page size');
const next = z.string().optional().describe('cursor of the next page (`next` of the previous answer)');
const cursor = z.string().optional().describe('cursor of the next page (`next` of the previous answer)');
const chain = z.string().optional().describe('chain identifier (default the sandbox chain)');
const orderHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'a 0x-prefixed 32-byte hex hash');

/** A GET of one route: the path values and the query names taken from the arguments. */
function get(
  template: string,
  pathNames: readonly string[],
  queryNames: readonly string[],
): SandboxTool['requests'] {
  return (args, defaultChain) => {
    const values = { chain: defaultChain, ...pick(args, pathNames) };
    if (values.chain === undefined) values.chain = defaultChain;
    return [{ method: 'GET', path: fillPath(template, values), query: queryOf(pick(args, queryNames)) }];
  };
}

function tool(
  name: string,
  title: string,
  description: string,
  input: z.ZodRawShape,
  requests: SandboxTool['requests'],
  access: ToolAccess = KEY,
  readOnly = true,
): SandboxTool {
  return { name, title, description, access, input, readOnly, requests };
}

export const SANDBOX_TOOLS: readonly SandboxTool[] = Object.freeze([
  tool(
    'create_api_key',
    'Create an instant API key',
    'Creates a free-tier API key usable at once (POST /api/v2/auth/keys): send it as X-API-KEY on the data tools. No credentials needed; 3 per hour per address.',
    {},
    () => [{ method: 'POST', path: '/api/v2/auth/keys' }],
    PUBLIC,
    false,
  ),
  tool(
    'get_chains',
    'Supported chains',
    'The chains the marketplace serves and what each supports (GET /api/v2/chains).',
    {},
    get('/api/v2/chains', [], []),
  ),
  tool(
    'get_collection',
    'Collection details',
    'One collection: name, description, contracts, fees, pricing currencies (GET /api/v2/collections/{slug}).',
    { slug },
    get('/api/v2/collections/{slug}', ['slug'], []),
  ),
  tool(
    'get_collection_stats',
    'Collection stats',
    'Floor price, volume, sales and owners of a collection, in total and per interval (GET /api/v2/collections/{slug}/stats).',
    { slug },
    get('/api/v2/collections/{slug}/stats', ['slug'], []),
  ),
  tool(
    'get_trending_collections',
    'Trending collections',
    'Collections ranked by volume in a timeframe (GET /api/v2/collections/trending).',
    {
      timeframe: z.string().optional().describe('one_minute … all_time (default one_day)'),
      limit,
      cursor,
    },
    get('/api/v2/collections/trending', [], ['timeframe', 'limit', 'cursor']),
  ),
  tool(
    'get_top_collections',
    'Top collections',
    'Collections ranked by a measure (GET /api/v2/collections/top).',
    { sort_by: z.string().optional().describe('default one_day_volume'), limit, cursor },
    get('/api/v2/collections/top', [], ['sort_by', 'limit', 'cursor']),
  ),
  tool(
    'get_traits',
    'Collection traits',
    'Each trait of a collection with its type and the count of each value (GET /api/v2/traits/{slug}).',
    { slug },
    get('/api/v2/traits/{slug}', ['slug'], []),
  ),
  tool(
    'get_trait_floors',
    'Trait floor prices',
    'The cheapest active listing of every text trait value of a collection (GET /api/v2/traits/{slug}/floors).',
    { slug },
    get('/api/v2/traits/{slug}/floors', ['slug'], []),
  ),
  tool(
    'get_collection_nfts',
    'NFTs of a collection',
    'The NFTs of a collection, a page at a time (GET /api/v2/collection/{slug}/nfts).',
    { slug, limit, next },
    get('/api/v2/collection/{slug}/nfts', ['slug'], ['limit', 'next']),
  ),
  tool(
    'get_nft',
    'One NFT',
    'One NFT with its traits, owners and rarity (GET /api/v2/chain/{chain}/contract/{address}/nfts/{identifier}).',
    { address, identifier, chain },
    get('/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}', ['address', 'identifier', 'chain'], []),
  ),
  tool(
    'get_account_nfts',
    'NFTs of an account',
    'The NFTs an address holds (GET /api/v2/chain/{chain}/account/{address}/nfts).',
    { address, chain, collection: z.string().optional().describe('only this collection slug'), limit, next },
    get(
      '/api/v2/chain/{chain}/account/{address}/nfts',
      ['address', 'chain'],
      ['collection', 'limit', 'next'],
    ),
  ),
  tool(
    'get_best_listings',
    'Best listings of a collection',
    'Active listings of a collection, cheapest first (GET /api/v2/listings/collection/{slug}/best).',
    { slug, limit, next },
    get('/api/v2/listings/collection/{slug}/best', ['slug'], ['limit', 'next']),
  ),
  tool(
    'get_all_listings',
    'All listings of a collection',
    'Every active listing of a collection (GET /api/v2/listings/collection/{slug}/all).',
    { slug, limit, next },
    get('/api/v2/listings/collection/{slug}/all', ['slug'], ['limit', 'next']),
  ),
  tool(
    'get_best_listing',
    'Best listing of an NFT',
    'The cheapest active listing of one NFT (GET /api/v2/listings/collection/{slug}/nfts/{identifier}/best).',
    { slug, identifier },
    get('/api/v2/listings/collection/{slug}/nfts/{identifier}/best', ['slug', 'identifier'], []),
  ),
  tool(
    'get_collection_offers',
    'Collection offers',
    'Offers on any NFT of a collection, best first (GET /api/v2/offers/collection/{slug}).',
    { slug },
    get('/api/v2/offers/collection/{slug}', ['slug'], []),
  ),
  tool(
    'get_all_offers',
    'All offers of a collection',
    'Item, collection and trait offers of a collection (GET /api/v2/offers/collection/{slug}/all).',
    { slug, limit, next },
    get('/api/v2/offers/collection/{slug}/all', ['slug'], ['limit', 'next']),
  ),
  tool(
    'get_trait_offers',
    'Trait offers',
    'Offers on NFTs with a trait (GET /api/v2/offers/collection/{slug}/traits).',
    {
      slug,
      type: z.string().optional().describe('trait type'),
      value: z.string().optional().describe('trait value'),
      limit,
      next,
    },
    get('/api/v2/offers/collection/{slug}/traits', ['slug'], ['type', 'value', 'limit', 'next']),
  ),
  tool(
    'get_item_offers',
    'Offers on an NFT',
    'Offers on one NFT, best first (GET /api/v2/offers/collection/{slug}/nfts/{identifier}).',
    { slug, identifier, limit, next },
    get('/api/v2/offers/collection/{slug}/nfts/{identifier}', ['slug', 'identifier'], ['limit', 'next']),
  ),
  tool(
    'get_order',
    'One order',
    'A listing or offer by its hash (GET /api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}).',
    { order_hash: orderHash, protocol_address: address, chain },
    get(
      '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}',
      ['order_hash', 'protocol_address', 'chain'],
      [],
    ),
  ),
  tool(
    'get_events',
    'Marketplace events',
    'Sales, transfers, mints, listings and offers, newest first; of one collection when `slug` is given (GET /api/v2/events, /api/v2/events/collection/{slug}).',
    {
      slug: slug.optional(),
      event_type: z
        .array(z.string())
        .optional()
        .describe('sale, transfer, mint, listing, offer, trait_offer, collection_offer'),
      after: z.number().int().optional().describe('Unix seconds'),
      before: z.number().int().optional().describe('Unix seconds'),
      limit,
      next,
    },
    (args) => {
      const query = queryOf(pick(args, ['event_type', 'after', 'before', 'limit', 'next']));
      const path =
        args['slug'] === undefined ? '/api/v2/events' : fillPath('/api/v2/events/collection/{slug}', args);
      return [{ method: 'GET', path, query }];
    },
  ),
  tool(
    'get_token',
    'Token details',
    'A fungible token: symbol, decimals, price (GET /api/v2/chain/{chain}/token/{address}).',
    { address, chain },
    get('/api/v2/chain/{chain}/token/{address}', ['address', 'chain'], []),
  ),
  tool(
    'get_trending_tokens',
    'Trending tokens',
    'Tokens ranked by a trending score (GET /api/v2/tokens/trending).',
    { limit, cursor },
    get('/api/v2/tokens/trending', [], ['limit', 'cursor']),
  ),
  tool(
    'get_top_tokens',
    'Top tokens',
    'Tokens ranked by 24-hour volume (GET /api/v2/tokens/top).',
    { limit, cursor },
    get('/api/v2/tokens/top', [], ['limit', 'cursor']),
  ),
  tool(
    'get_token_balances',
    'Token balances of an account',
    'The fungible tokens an address holds (GET /api/v2/account/{address}/tokens).',
    { address, limit, cursor },
    get('/api/v2/account/{address}/tokens', ['address'], ['limit', 'cursor']),
  ),
  tool(
    'search',
    'Search',
    'Collections, tokens, NFTs and accounts matching a query, by relevance (GET /api/v2/search).',
    {
      query: z.string().min(1),
      asset_types: z.array(z.string()).optional().describe('collection, token, nft, account'),
      limit,
    },
    get('/api/v2/search', [], ['query', 'asset_types', 'limit']),
  ),
  tool(
    'get_swap_quote',
    'Token swap quote',
    'A quote for swapping one token into another, with the transactions to sign (GET /api/v2/swap/quote). Nothing is sent.',
    {
      from_address: address.describe('token to sell (0x000… for ETH)'),
      to_address: address.describe('token to buy'),
      quantity: z.string().regex(/^\d+$/).describe("amount to sell in the token's smallest unit"),
      address: address.describe('wallet that would swap'),
      from_chain: chain,
      to_chain: chain,
      slippage: z.number().min(0).max(0.5).optional(),
      recipient: address.optional(),
    },
    (args, defaultChain) => [
      {
        method: 'GET',
        path: '/api/v2/swap/quote',
        query: queryOf({
          from_chain: args['from_chain'] ?? defaultChain,
          to_chain: args['to_chain'] ?? defaultChain,
          ...pick(args, ['from_address', 'to_address', 'quantity', 'address', 'slippage', 'recipient']),
        }),
      },
    ],
  ),
  tool(
    'get_drops',
    'Drops',
    'Featured, upcoming or recently minted drops (GET /api/v2/drops).',
    { type: z.enum(['featured', 'upcoming', 'recently_minted']).optional(), limit, cursor },
    get('/api/v2/drops', [], ['type', 'limit', 'cursor']),
  ),
  tool(
    'get_drop',
    'One drop',
    'A drop with its stages, prices and supply (GET /api/v2/drops/{slug}).',
    { slug },
    get('/api/v2/drops/{slug}', ['slug'], []),
  ),
  tool(
    'check_drop_eligibility',
    'Drop eligibility of the wallet',
    "Which stages of a drop the JWT's wallet may mint in (GET /api/v2/drops/{slug}/eligibility). Needs the wallet JWT with read:eligibility.",
    { slug },
    get('/api/v2/drops/{slug}/eligibility', ['slug'], []),
    { kind: 'wallet', scope: 'read:eligibility' },
  ),
  {
    ...tool(
      'cancel_orders',
      'Cancel orders',
      "Cancels orders of the JWT's wallet off-chain (POST /api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel, once per order). Needs the wallet JWT with write:orders.",
      {
        orders: z
          .array(z.object({ order_hash: orderHash, protocol_address: address, chain }))
          .min(1)
          .max(20),
      },
      (args, defaultChain) =>
        (args['orders'] as { order_hash: string; protocol_address: string; chain?: string }[]).map((o) => ({
          method: 'POST' as const,
          path: fillPath('/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel', {
            ...o,
            chain: o.chain ?? defaultChain,
          }),
          body: {},
          label: o.order_hash,
        })),
      { kind: 'wallet', scope: 'write:orders' },
      false,
    ),
    many: true,
  },
  tool(
    'manage_collections',
    'Edit a collection',
    "Saves collection fields — name, description, logo_image_token, banner_image_token, category, is_nsfw, authorized_editors, external_url, telegram_url, medium_username (PATCH /api/v2/collections/{slug}) — as the JWT's wallet, which must be the collection's owner or an authorized editor. Needs the wallet JWT with write:collections.",
    {
      slug,
      changes: z
        .record(z.string(), z.unknown())
        .describe('the fields to save (the request body of PATCH /api/v2/collections/{slug})'),
    },
    (args) => [
      { method: 'PATCH', path: fillPath('/api/v2/collections/{slug}', args), body: args['changes'] },
    ],
    { kind: 'wallet', scope: 'write:collections' },
    false,
  ),
]);

/** The tools of each scope (the `mcpTools` of `GET /api/v2/auth/scopes`). */
export function scopeTools(scope: string): string[] {
  return SANDBOX_TOOLS.filter((t) => t.access.kind === 'wallet' && t.access.scope === scope).map(
    (t) => t.name,
  );
}
