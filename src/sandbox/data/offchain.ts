import { getAddress, keccak256, parseEther, toUtf8Bytes } from 'ethers';
import { COLLECTION_SPECS, type TokenStandard } from '../catalog/catalog.ts';
import { hashString, prng, type TokenTrait, type TraitSchema, traitsFor } from '../catalog/traits.ts';
import type { TokenInfo } from './currencies.ts';
import { tokenBySymbol } from './currencies.ts';
import type { ExternalListings } from './external.ts';

/**
 * An off-chain collection: a large collection the sandbox knows only from the other marketplaces
 * it aggregates — its items (ids 1..items, deterministic traits) and their listings live in the
 * sandbox's data, not on anvil (minting 10 000 tokens one transaction at a time would take
 * minutes). The market-data routes treat it like any collection: details, traits, trait floors and
 * stats compute over all its items and listings at every request; the NFT endpoints show its
 * items (no owners: nothing is on chain); the metadata host serves their metadata. Its listings
 * are external listings, so the book, the listing endpoints and fulfillment never see them.
 *
 * Made for the sandbox benchmark (`traitFloorsP50Ms` over 10 000 items), and usable by tests.
 */

export interface OffchainCollectionOptions {
  /** Default `harpoon-bench`. */
  readonly slug?: string;
  /** Number of items (ids 1..items). */
  readonly items: number;
  /** External listings spread over the items (some items get several). Default `items / 2`. */
  readonly listings?: number;
  /** Floor around which listings are priced (wei). Default 0.02 ETH. */
  readonly floorWei?: bigint;
}

export interface OffchainCollection {
  readonly slug: string;
  readonly name: string;
  readonly symbol: string;
  readonly description: string;
  /** A pseudo contract address derived from the slug (checksummed); nothing is deployed there. */
  readonly contract: string;
  readonly standard: TokenStandard;
  readonly items: number;
  readonly listings: number;
  readonly floorWei: bigint;
  readonly schema: TraitSchema;
  traits(id: bigint): readonly TokenTrait[];
}

export const DEFAULT_OFFCHAIN_SLUG = 'harpoon-bench';

/** The trait schema of an off-chain collection: the apes' (text and numeric traits). */
function schemaOf(): TraitSchema {
  const apes = COLLECTION_SPECS.find((c) => c.slug === 'harpoon-apes');
  return apes ? apes.traits : { text: {}, numeric: {} };
}

export function offchainCollection(seed: number, o: OffchainCollectionOptions): OffchainCollection {
  if (!Number.isSafeInteger(o.items) || o.items < 1 || o.items > 1_000_000) {
    throw new Error(`off-chain collection: items must be 1..1000000, got ${o.items}`);
  }
  const listings = o.listings ?? Math.floor(o.items / 2);
  if (!Number.isSafeInteger(listings) || listings < 0) {
    throw new Error(`off-chain collection: listings must be a non-negative integer, got ${listings}`);
  }
  const slug = o.slug ?? DEFAULT_OFFCHAIN_SLUG;
  const schema = schemaOf();
  let items: (readonly TokenTrait[])[] | undefined;
  const contract = getAddress(`0x${keccak256(toUtf8Bytes(`harpoon offchain ${slug}`)).slice(-40)}`);
  return {
    slug,
    name: 'Harpoon Bench',
    symbol: 'HBENCH',
    description: `An off-chain collection of ${o.items} items known from other marketplaces' listings.`,
    contract,
    standard: 'erc721',
    items: o.items,
    listings,
    floorWei: o.floorWei ?? parseEther('0.02'),
    schema,
    traits: (id) => {
      if (id < 1n || id > BigInt(o.items)) return [];
      // The items are the collection's stored data: generated once, on first read.
      items ??= Array.from({ length: o.items }, (_, i) =>
        Object.freeze(traitsFor(schema, seed, slug, BigInt(i + 1))),
      );
      return items[Number(id) - 1] ?? [];
    },
  };
}

const MARKETPLACES = ['blur', 'looksrare', 'x2y2', 'magiceden'] as const;
/** Prices are multiples of this (1e-6 ETH). */
const STEP = 10n ** 12n;

/**
 * Adds the collection's listings to the external store, deterministic in (seed, slug): each on a
 * drawn item, priced log-normally at or above the floor (a tenth of them up to 30 % under it), in
 * ETH, or in WETH for about a quarter. Returns how many were added.
 */
export function seedOffchainListings(
  store: ExternalListings,
  c: OffchainCollection,
  tokens: readonly TokenInfo[],
  seed: number,
): number {
  const eth = tokenBySymbol(tokens, 'ETH');
  const weth = tokenBySymbol(tokens, 'WETH');
  if (!eth) return 0;
  const rand = prng(hashString(`${seed}:offchain:${c.slug}`));
  for (let i = 0; i < c.listings; i++) {
    const id = 1 + Math.min(c.items - 1, Math.floor(rand() * c.items));
    const u = rand();
    const spread = rand();
    const factor = u < 0.1 ? 0.7 + 0.3 * spread : Math.exp(0.4 * spread * spread * 3);
    const ppm = BigInt(Math.round(factor * 1_000_000));
    const raw = (c.floorWei * ppm) / 1_000_000n;
    const price = raw / STEP > 0n ? (raw / STEP) * STEP : STEP;
    const t = weth && rand() < 0.25 ? weth : eth;
    store.add({
      marketplace: MARKETPLACES[i % MARKETPLACES.length] as string,
      collection: c.slug,
      tokenId: String(id),
      quantity: 1,
      price,
      currency: { symbol: t.symbol, address: t.address, decimals: t.decimals },
    });
  }
  return c.listings;
}
