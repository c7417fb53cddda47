import { getAddress } from 'ethers';
import type { Catalog, FeeSpec, TokenStandard } from '../catalog/catalog.ts';
import { MARKETPLACE_FEE } from '../catalog/catalog.ts';
import type { TokenTrait } from '../catalog/traits.ts';
import type { DropDeployment } from '../chain/drops.ts';
import { decimalString, type PriceBook, priceOf, type TokenInfo } from './currencies.ts';
import type { OwnerUnits } from './holdings.ts';
import type { OffchainCollection } from './offchain.ts';

/**
 * One view over the sandbox's NFT collections: the catalog's (traits, fees, book) and the drops'
 * (staged mints, no traits), with the wire renderings of collections, contracts, NFTs and payment
 * tokens. Addresses leave lower-case, as the API spells them in these resources.
 */

export interface CollectionView {
  /** `offchain`: items and listings only in the sandbox's data (src/sandbox/data/offchain.ts). */
  readonly kind: 'catalog' | 'drop' | 'offchain';
  readonly slug: string;
  readonly name: string;
  readonly symbol: string;
  readonly description: string;
  /** Checksummed. */
  readonly contract: string;
  readonly standard: TokenStandard;
  readonly owner: string;
  readonly fees: readonly FeeSpec[];
  readonly traitOffersSupported: boolean;
  /** Catalog collections: ids 1..supply are minted at start; drops mint as they go. */
  readonly presetSupply: number | undefined;
  traits(id: bigint): readonly TokenTrait[];
}

export function catalogViews(catalog: Catalog | undefined): CollectionView[] {
  return (catalog?.collections() ?? []).map((c) => ({
    kind: 'catalog',
    slug: c.slug,
    name: c.name,
    symbol: c.symbol,
    description: c.description,
    contract: getAddress(c.contract),
    standard: c.standard,
    owner: c.owner,
    fees: c.fees,
    traitOffersSupported: c.traitOffersSupported,
    presetSupply: c.supply,
    traits: (id: bigint) => catalog?.traits(c.slug, id) ?? [],
  }));
}

export function dropViews(drops: readonly DropDeployment[], owner: string): CollectionView[] {
  return drops.map((d) => ({
    kind: 'drop',
    slug: d.slug,
    name: d.name,
    symbol: d.symbol,
    description: d.description,
    contract: getAddress(d.address),
    standard: 'erc721',
    owner,
    fees: [MARKETPLACE_FEE],
    traitOffersSupported: false,
    presetSupply: undefined,
    traits: () => [],
  }));
}

export function offchainView(c: OffchainCollection, owner: string): CollectionView {
  return {
    kind: 'offchain',
    slug: c.slug,
    name: c.name,
    symbol: c.symbol,
    description: c.description,
    contract: c.contract,
    standard: c.standard,
    owner,
    fees: [MARKETPLACE_FEE],
    traitOffersSupported: false,
    presetSupply: c.items,
    traits: (id: bigint) => c.traits(id),
  };
}

export interface RenderContext {
  readonly chain: string;
  /** Base URL of the sandbox (metadata links). */
  readonly publicUrl: string;
  /** Epoch ms the collections count as created. */
  readonly createdAtMs: number;
}

export const lower = (a: string): string => a.toLowerCase();

export const collectionUrl = (slug: string): string => `https://opensea.io/collection/${slug}`;

export const nftUrl = (chain: string, contract: string, id: string): string =>
  `https://opensea.io/assets/${chain}/${lower(contract)}/${id}`;

export const metadataUrl = (ctx: RenderContext, slug: string, id: string): string =>
  `${ctx.publicUrl}/metadata/${slug}/${id}`;

export function renderPaymentToken(t: TokenInfo, chain: string, prices: PriceBook): Record<string, unknown> {
  const p = priceOf(prices, t.symbol);
  return {
    symbol: t.symbol,
    address: lower(t.address),
    chain,
    image: '',
    name: t.name,
    decimals: t.decimals,
    eth_price: decimalString(p?.eth ?? 0),
    usd_price: decimalString(p?.usd ?? 0, 6),
  };
}

export interface SupplyFacts {
  /** Items (token ids) in circulation. */
  readonly items: number;
}

/** `GET /api/v2/collections/{slug}` (CollectionDetailedResponse). */
export function renderCollection(
  v: CollectionView,
  ctx: RenderContext,
  supply: SupplyFacts,
  currencies: { readonly listing: Record<string, unknown>; readonly offer: Record<string, unknown> },
): Record<string, unknown> {
  return {
    collection: v.slug,
    name: v.name,
    description: v.description,
    // Drops have no collection picture: their token 1 may not be minted yet.
    ...(v.kind === 'catalog' ? { image_url: `${metadataUrl(ctx, v.slug, '1')}/image.svg` } : {}),
    owner: lower(v.owner),
    safelist_status: 'verified',
    category: v.kind === 'drop' ? 'art' : 'pfps',
    is_disabled: false,
    is_nsfw: false,
    trait_offers_enabled: v.traitOffersSupported,
    collection_offers_enabled: v.kind === 'catalog',
    opensea_url: collectionUrl(v.slug),
    contracts: [{ address: lower(v.contract), chain: ctx.chain }],
    editors: [lower(v.owner)],
    fees: v.fees.map((f) => ({ fee: f.fee, recipient: lower(f.recipient), required: f.required })),
    total_supply: supply.items,
    unique_item_count: supply.items,
    created_date: new Date(ctx.createdAtMs).toISOString().slice(0, 10),
    pricing_currencies: { listing_currency: currencies.listing, offer_currency: currencies.offer },
  };
}

/** `GET /api/v2/chain/{chain}/contract/{address}` (ContractResponse). */
export function renderContract(v: CollectionView, chain: string): Record<string, unknown> {
  return {
    address: lower(v.contract),
    chain,
    collection: v.slug,
    contract_standard: v.standard,
    name: v.name,
  };
}

function wireTraits(traits: readonly TokenTrait[]): Record<string, unknown>[] {
  return traits.map((t) => ({
    trait_type: t.trait_type,
    value: t.value,
    ...(t.display_type !== undefined ? { display_type: t.display_type } : {}),
  }));
}

/** The `Nft` shape (lists). */
export function renderNft(
  v: CollectionView,
  id: string,
  ctx: RenderContext,
  updatedAtMs: number,
): Record<string, unknown> {
  const image = `${metadataUrl(ctx, v.slug, id)}/image.svg`;
  return {
    identifier: id,
    collection: v.slug,
    contract: lower(v.contract),
    token_standard: v.standard,
    name: `${v.name} #${id}`,
    description: v.description,
    image_url: image,
    display_image_url: image,
    original_image_url: image,
    metadata_url: metadataUrl(ctx, v.slug, id),
    opensea_url: nftUrl(ctx.chain, v.contract, id),
    updated_at: new Date(updatedAtMs).toISOString(),
    is_disabled: false,
    is_nsfw: false,
    traits: wireTraits(v.traits(BigInt(id))),
  };
}

/** The `NftDetailed` shape (single NFT): owners from the chain, creator = the collection owner. */
export function renderNftDetailed(
  v: CollectionView,
  id: string,
  ctx: RenderContext,
  updatedAtMs: number,
  owners: readonly OwnerUnits[],
): Record<string, unknown> {
  return {
    ...renderNft(v, id, ctx, updatedAtMs),
    is_suspicious: false,
    creator: lower(v.owner),
    owners: owners.map((o) => ({
      address: lower(o.address),
      quantity: o.quantity > 2_147_483_647n ? 2_147_483_647 : Number(o.quantity),
      quantity_string: o.quantity.toString(),
    })),
  };
}
