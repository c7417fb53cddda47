import { parseUnits } from 'ethers';
import type { Catalog } from '../catalog/catalog.ts';
import { HttpError } from '../errors.ts';
import { type TokenInfo, tokenByAddress, tokenBySymbol } from './currencies.ts';

/**
 * Listings on other marketplaces the sandbox "aggregates". They count wherever the API's basis is
 * "each item's best listing across all aggregated marketplaces" — the collection stats'
 * `floor_price` and the trait floors — but they are not orders of the sandbox's book: the
 * listing endpoints (`/listings/collection/{slug}/best|all`, `/nfts/{id}/best`) and fulfillment
 * never see them. So a floor below the cheapest fulfillable listing is reproducible (spec, trait
 * floor prices rule 5).
 *
 * The store starts with a few seeded listings (EXTERNAL_SEEDS: some cheap, some in WETH or USDC);
 * `/_sandbox/external-listings` adds, lists and removes them. A listing past its expiry counts no
 * more. Prices are totals in the smallest unit of the currency; `quantity` > 1 only for ERC1155.
 */

export interface ExternalCurrency {
  readonly symbol: string;
  readonly address: string;
  readonly decimals: number;
}

export interface ExternalListing {
  /** `ext-<n>`. */
  readonly id: string;
  readonly marketplace: string;
  readonly collection: string;
  /** Decimal token id. */
  readonly tokenId: string;
  readonly quantity: number;
  /** Total price of the `quantity` units, smallest unit of `currency`. */
  readonly price: bigint;
  readonly currency: ExternalCurrency;
  /** Epoch ms. */
  readonly createdAtMs: number;
  readonly expiresAtMs?: number;
}

export type ExternalListingInput = Omit<ExternalListing, 'id' | 'createdAtMs'>;

export class ExternalListings {
  readonly #items = new Map<string, ExternalListing>();
  readonly #now: () => number;
  #next = 1;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  add(input: ExternalListingInput): ExternalListing {
    const l: ExternalListing = Object.freeze({
      ...input,
      currency: Object.freeze({ ...input.currency }),
      id: `ext-${this.#next++}`,
      createdAtMs: this.#now(),
    });
    this.#items.set(l.id, l);
    return l;
  }

  remove(id: string): boolean {
    return this.#items.delete(id);
  }

  /** Removes every listing (of one collection); returns how many. */
  clear(collection?: string): number {
    let n = 0;
    for (const [id, l] of this.#items) {
      if (collection === undefined || l.collection === collection) {
        this.#items.delete(id);
        n++;
      }
    }
    return n;
  }

  get(id: string): ExternalListing | undefined {
    return this.#items.get(id);
  }

  /** Unexpired listings (of one collection), oldest first. */
  active(collection?: string): ExternalListing[] {
    const now = this.#now();
    return [...this.#items.values()].filter(
      (l) =>
        (collection === undefined || l.collection === collection) &&
        (l.expiresAtMs === undefined || l.expiresAtMs > now),
    );
  }

  get size(): number {
    return this.#items.size;
  }
}

export interface ExternalSeed {
  readonly collection: string;
  readonly tokenId: number;
  readonly marketplace: string;
  /** Total price in display units of `currency`. */
  readonly price: string;
  readonly currency: string;
  readonly quantity?: number;
}

/**
 * Seeded listings, priced against the market simulator's floors (apes 0.05, punks 0.03, items
 * 0.005 ETH per unit; its snipes sit 20–40 % below): per collection one ETH listing at about half
 * the floor — below anything the simulator asks, so the aggregated floor starts under the cheapest
 * fulfillable listing — a few near the floor in ETH and WETH, and one in USDC.
 */
export const EXTERNAL_SEEDS: readonly ExternalSeed[] = Object.freeze([
  { collection: 'harpoon-apes', tokenId: 3, marketplace: 'blur', price: '0.025', currency: 'ETH' },
  { collection: 'harpoon-apes', tokenId: 8, marketplace: 'looksrare', price: '0.055', currency: 'ETH' },
  { collection: 'harpoon-apes', tokenId: 14, marketplace: 'x2y2', price: '0.048', currency: 'WETH' },
  { collection: 'harpoon-apes', tokenId: 21, marketplace: 'magiceden', price: '150', currency: 'USDC' },
  { collection: 'harpoon-apes', tokenId: 27, marketplace: 'blur', price: '0.09', currency: 'ETH' },
  { collection: 'harpoon-punks', tokenId: 2, marketplace: 'blur', price: '0.014', currency: 'ETH' },
  { collection: 'harpoon-punks', tokenId: 5, marketplace: 'looksrare', price: '0.028', currency: 'WETH' },
  { collection: 'harpoon-punks', tokenId: 9, marketplace: 'x2y2', price: '0.035', currency: 'ETH' },
  { collection: 'harpoon-punks', tokenId: 11, marketplace: 'magiceden', price: '95', currency: 'USDC' },
  {
    collection: 'harpoon-items',
    tokenId: 1,
    marketplace: 'magiceden',
    price: '0.004',
    currency: 'ETH',
    quantity: 2,
  },
  { collection: 'harpoon-items', tokenId: 3, marketplace: 'blur', price: '15', currency: 'USDC' },
]);

/** Adds the seeds whose collection, token and currency exist; returns how many. */
export function seedExternalListings(
  store: ExternalListings,
  catalog: Catalog,
  tokens: readonly TokenInfo[],
  seeds: readonly ExternalSeed[] = EXTERNAL_SEEDS,
): number {
  let n = 0;
  for (const s of seeds) {
    const c = catalog.bySlug(s.collection);
    const t = tokenBySymbol(tokens, s.currency);
    if (!c || !t || s.tokenId < 1 || s.tokenId > c.supply) continue;
    store.add({
      marketplace: s.marketplace,
      collection: c.slug,
      tokenId: String(s.tokenId),
      quantity: s.quantity ?? 1,
      price: parseUnits(s.price, t.decimals),
      currency: { symbol: t.symbol, address: t.address, decimals: t.decimals },
    });
    n++;
  }
  return n;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Body of `POST /_sandbox/external-listings` (one listing): `collection`, `token_id`, exactly one
 * of `price` (display units, "0.05") or `amount` (smallest units, "50000000000000000"), optional
 * `currency` (symbol or token address; default ETH), `quantity` (default 1), `marketplace`
 * (default "external"), `expires_at` (epoch seconds). 400 on anything else.
 */
/** The collections external listings may name (the catalog satisfies it). */
export interface ListableCollections {
  bySlug(
    slug: string,
  ): { readonly slug: string; readonly supply: number; readonly standard: 'erc721' | 'erc1155' } | undefined;
}

export function parseExternalListingInput(
  body: unknown,
  catalog: ListableCollections,
  tokens: readonly TokenInfo[],
): ExternalListingInput {
  if (!isRecord(body)) throw new HttpError(400, 'external listing: the body must be a JSON object');
  const slug = body['collection'];
  if (typeof slug !== 'string') throw new HttpError(400, 'collection: required (a collection slug)');
  const c = catalog.bySlug(slug);
  if (!c) throw new HttpError(400, `collection: unknown slug '${slug}'`);
  const rawId = body['token_id'];
  const tokenId = typeof rawId === 'number' ? String(rawId) : rawId;
  if (typeof tokenId !== 'string' || !/^\d+$/.test(tokenId)) {
    throw new HttpError(400, 'token_id: required (a decimal token id)');
  }
  if (BigInt(tokenId) < 1n || BigInt(tokenId) > BigInt(c.supply)) {
    throw new HttpError(400, `token_id: ${slug} has no token ${tokenId}`);
  }
  const cur = body['currency'] ?? 'ETH';
  if (typeof cur !== 'string') throw new HttpError(400, 'currency: a symbol or a token address');
  const token = cur.startsWith('0x') ? tokenByAddress(tokens, cur) : tokenBySymbol(tokens, cur);
  if (!token) {
    throw new HttpError(400, `currency: unknown '${cur}' (one of ${tokens.map((t) => t.symbol).join(', ')})`);
  }
  const q = body['quantity'] ?? 1;
  if (typeof q !== 'number' || !Number.isInteger(q) || q < 1 || q > 1_000_000) {
    throw new HttpError(400, 'quantity: a positive integer');
  }
  if (c.standard === 'erc721' && q !== 1) throw new HttpError(400, 'quantity: must be 1 for an ERC721 token');
  const hasPrice = body['price'] !== undefined;
  const hasAmount = body['amount'] !== undefined;
  if (hasPrice === hasAmount) throw new HttpError(400, 'give exactly one of price (display units) or amount');
  let price: bigint;
  if (hasAmount) {
    const a = body['amount'];
    if (typeof a !== 'string' || !/^\d+$/.test(a))
      throw new HttpError(400, 'amount: a decimal integer string');
    price = BigInt(a);
  } else {
    const p = body['price'];
    const text = typeof p === 'number' ? String(p) : p;
    if (typeof text !== 'string' || !/^\d+(\.\d+)?$/.test(text)) {
      throw new HttpError(400, 'price: a non-negative decimal ("0.05")');
    }
    try {
      price = parseUnits(text, token.decimals);
    } catch {
      throw new HttpError(400, `price: more than ${token.decimals} decimals`);
    }
  }
  if (price <= 0n) throw new HttpError(400, 'price: must be positive');
  const marketplace = body['marketplace'] ?? 'external';
  if (typeof marketplace !== 'string' || marketplace === '') {
    throw new HttpError(400, 'marketplace: a non-empty string');
  }
  const exp = body['expires_at'];
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= 0)) {
    throw new HttpError(400, 'expires_at: epoch seconds');
  }
  return {
    marketplace,
    collection: c.slug,
    tokenId: BigInt(tokenId).toString(),
    quantity: q,
    price,
    currency: { symbol: token.symbol, address: token.address, decimals: token.decimals },
    ...(typeof exp === 'number' ? { expiresAtMs: Math.round(exp * 1000) } : {}),
  };
}

/** Admin rendering of an external listing. */
export function renderExternalListing(l: ExternalListing): Record<string, unknown> {
  return {
    id: l.id,
    marketplace: l.marketplace,
    collection: l.collection,
    token_id: l.tokenId,
    quantity: l.quantity,
    price: { currency: l.currency.symbol, decimals: l.currency.decimals, value: l.price.toString() },
    payment_token_symbol: l.currency.symbol,
    payment_token_address: l.currency.address.toLowerCase(),
    created_at: Math.floor(l.createdAtMs / 1000),
    expires_at: l.expiresAtMs !== undefined ? Math.floor(l.expiresAtMs / 1000) : null,
  };
}
