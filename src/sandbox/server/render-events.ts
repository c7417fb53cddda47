import { ZERO_ADDRESS } from '../../domain/ids.ts';
import { type Catalog, type CatalogCollection, MARKETPLACE_FEE_RECIPIENT } from '../catalog/catalog.ts';
import { hashString } from '../catalog/traits.ts';
import type { MarketEvent, MarketEventKind, NftRef, PriceInfo } from '../events/log.ts';

/**
 * Pure renderers from the event log's `MarketEvent` to the wire:
 * - `renderEvent`: one element of `asset_events` of `GET /api/v2/events*` (OpenAPI `OrderEvent`,
 *   `SaleEvent`, `TransferEvent`; order events are `event_type: "order"` with `order_type`).
 * - `renderLegacyEvent`: one element of `asset_events` of the legacy `GET /api/v1/events/`, in the
 *   spec's "Legacy event record" shape: every field present, null where the event type does not
 *   set it, timestamps without zone, amounts as decimal strings.
 */

// ── event types ─────────────────────────────────────────────────────────

/** `event_type` filter values of `GET /api/v2/events*`. */
export const REST_EVENT_TYPES = [
  'sale',
  'transfer',
  'mint',
  'listing',
  'offer',
  'trait_offer',
  'collection_offer',
] as const;
export type RestEventType = (typeof REST_EVENT_TYPES)[number];

/** Which log records each REST `event_type` filter selects. */
export const KINDS_OF_REST_TYPE: Readonly<Record<RestEventType, readonly MarketEventKind[]>> = Object.freeze({
  sale: ['sale'],
  transfer: ['transfer'],
  mint: ['mint'],
  listing: ['listing'],
  offer: ['item_offer'],
  trait_offer: ['trait_offer'],
  collection_offer: ['collection_offer'],
});

/** Log records the REST events endpoints serve (invalidations, cancels, metadata: stream only). */
export const REST_KINDS: readonly MarketEventKind[] = Object.freeze(
  REST_EVENT_TYPES.flatMap((t) => KINDS_OF_REST_TYPE[t]),
);

/** `event_type` values of the legacy `GET /api/v1/events/`. */
export const LEGACY_EVENT_TYPES = ['created', 'offer_entered', 'transfer', 'successful'] as const;
export type LegacyEventType = (typeof LEGACY_EVENT_TYPES)[number];

export const KINDS_OF_LEGACY_TYPE: Readonly<Record<LegacyEventType, readonly MarketEventKind[]>> =
  Object.freeze({
    created: ['listing'],
    offer_entered: ['item_offer', 'collection_offer', 'trait_offer'],
    transfer: ['transfer', 'mint'],
    successful: ['sale'],
  });

export const LEGACY_KINDS: readonly MarketEventKind[] = Object.freeze(
  LEGACY_EVENT_TYPES.flatMap((t) => KINDS_OF_LEGACY_TYPE[t]),
);

const ORDER_TYPE: Partial<Record<MarketEventKind, string>> = {
  listing: 'listing',
  item_offer: 'item_offer',
  collection_offer: 'collection_offer',
  trait_offer: 'trait_offer',
};

// ── context ─────────────────────────────────────────────────────────────

/** On-chain facts of a transaction the log does not keep (looked up from the chain by the route). */
export interface TxInfo {
  readonly blockHash: string;
  readonly transactionIndex: number;
  readonly from: string;
  readonly to: string | null;
}

export interface RenderContext {
  /** Names, traits and fees of the collections; without it NFTs are rendered from the event alone. */
  readonly catalog?: Catalog;
  /** Where the sandbox serves token metadata: `<metadataBaseUrl>/<slug>/<tokenId>`. */
  readonly metadataBaseUrl: string;
  /** Epoch ms the sandbox's collections were created (legacy `created_date` of contract and collection). */
  readonly createdAtMs: number;
  /** Legacy records: facts of a transaction by hash (block hash, index, from, to). */
  readonly tx?: (hash: string) => TxInfo | undefined;
  /** Legacy records: sales of an NFT so far (`num_sales`). */
  readonly numSales?: (contract: string, identifier: string) => number;
}

// ── shared pieces ───────────────────────────────────────────────────────

const lower = (a: string): string => a.toLowerCase();
const secs = (ms: number): number => Math.floor(ms / 1000);

function collectionOf(e: MarketEvent, ctx: RenderContext): CatalogCollection | undefined {
  return ctx.catalog?.bySlug(e.collection) ?? (e.nft ? ctx.catalog?.byContract(e.nft.contract) : undefined);
}

function tokenName(c: CatalogCollection | undefined, slug: string, id: string): string {
  return `${c?.name ?? slug} #${id}`;
}

function metadataUrl(ctx: RenderContext, slug: string, id: string): string {
  return `${ctx.metadataBaseUrl.replace(/\/$/, '')}/${slug}/${id}`;
}

function imageUrl(ctx: RenderContext, slug: string, id: string): string {
  return `${metadataUrl(ctx, slug, id)}/image.svg`;
}

function permalink(chain: string, contract: string, id: string): string {
  return `https://opensea.io/assets/${chain}/${lower(contract)}/${id}`;
}

function traitsOf(ctx: RenderContext, slug: string, id: string): Record<string, unknown>[] {
  if (!ctx.catalog || !/^\d+$/.test(id)) return [];
  return ctx.catalog.traits(slug, BigInt(id)).map((t) => ({
    trait_type: t.trait_type,
    value: t.value,
    ...(t.display_type !== undefined ? { display_type: t.display_type } : {}),
  }));
}

/** The OpenAPI `Nft` shape of an event's token. */
export function renderNft(
  nft: NftRef,
  slug: string,
  chain: string,
  ctx: RenderContext,
  updatedAtMs: number,
): Record<string, unknown> {
  const c = ctx.catalog?.bySlug(slug) ?? ctx.catalog?.byContract(nft.contract);
  const image = imageUrl(ctx, slug, nft.identifier);
  return {
    identifier: nft.identifier,
    collection: slug,
    contract: lower(nft.contract),
    token_standard: nft.standard,
    name: tokenName(c, slug, nft.identifier),
    description: c?.description ?? '',
    image_url: image,
    display_image_url: image,
    metadata_url: metadataUrl(ctx, slug, nft.identifier),
    opensea_url: permalink(chain, nft.contract, nft.identifier),
    updated_at: new Date(updatedAtMs).toISOString(),
    is_disabled: false,
    is_nsfw: false,
    traits: traitsOf(ctx, slug, nft.identifier),
  };
}

function payment(p: PriceInfo): Record<string, unknown> {
  return {
    quantity: p.amount.toString(),
    token_address: lower(p.token.address),
    decimals: p.token.decimals,
    symbol: p.token.symbol,
  };
}

// ── REST v2 ─────────────────────────────────────────────────────────────

/** One `asset_events` element of `GET /api/v2/events*`, or undefined for kinds REST does not serve. */
export function renderEvent(e: MarketEvent, ctx: RenderContext): Record<string, unknown> | undefined {
  const common: Record<string, unknown> = {
    event_type: e.kind,
    event_timestamp: secs(e.timestampMs),
    chain: e.chain,
    quantity: e.quantity ?? 1,
  };
  const orderType = ORDER_TYPE[e.kind];
  if (orderType !== undefined) {
    const out: Record<string, unknown> = {
      ...common,
      event_type: 'order',
      order_type: orderType,
      ...(e.orderHash !== undefined ? { order_hash: e.orderHash } : {}),
      ...(e.protocolAddress !== undefined ? { protocol_address: lower(e.protocolAddress) } : {}),
      ...(e.price ? { payment: payment(e.price) } : {}),
      ...(e.startDate !== undefined ? { start_date: e.startDate } : {}),
      ...(e.expirationDate !== undefined ? { expiration_date: e.expirationDate } : {}),
      maker: lower(e.maker ?? ZERO_ADDRESS),
      ...(e.taker !== undefined ? { taker: lower(e.taker) } : {}),
      is_private_listing: e.isPrivate ?? false,
    };
    if (e.nft && (e.kind === 'listing' || e.kind === 'item_offer')) {
      out['asset'] = renderNft(e.nft, e.collection, e.chain, ctx, e.timestampMs);
    }
    if (e.kind === 'collection_offer' || e.kind === 'trait_offer') {
      const contract = e.criteria?.contract ?? e.nft?.contract ?? collectionOf(e, ctx)?.contract;
      out['criteria'] = {
        collection: { slug: e.collection },
        ...(contract !== undefined ? { contract: { address: lower(contract) } } : {}),
        ...(e.criteria?.traits && e.criteria.traits.length > 0
          ? { traits: e.criteria.traits.map((t) => ({ type: t.type, value: t.value })) }
          : {}),
        ...(e.criteria?.encodedTokenIds !== undefined
          ? { encoded_token_ids: e.criteria.encodedTokenIds }
          : {}),
      };
    }
    return out;
  }
  if (e.kind === 'sale') {
    return {
      ...common,
      ...(e.txHash !== undefined ? { transaction: e.txHash } : {}),
      ...(e.orderHash !== undefined ? { order_hash: e.orderHash } : {}),
      ...(e.protocolAddress !== undefined ? { protocol_address: lower(e.protocolAddress) } : {}),
      ...(e.price ? { payment: payment(e.price) } : {}),
      closing_date: secs(e.timestampMs),
      seller: lower(e.seller ?? e.maker ?? ZERO_ADDRESS),
      buyer: lower(e.buyer ?? e.taker ?? ZERO_ADDRESS),
      ...(e.nft ? { nft: renderNft(e.nft, e.collection, e.chain, ctx, e.timestampMs) } : {}),
    };
  }
  if (e.kind === 'transfer' || e.kind === 'mint') {
    return {
      ...common,
      ...(e.txHash !== undefined ? { transaction: e.txHash } : {}),
      transfer_type: e.kind,
      from_address: lower(e.from ?? ZERO_ADDRESS),
      to_address: lower(e.to ?? ZERO_ADDRESS),
      ...(e.nft ? { nft: renderNft(e.nft, e.collection, e.chain, ctx, e.timestampMs) } : {}),
    };
  }
  return undefined;
}

// ── legacy v1 ───────────────────────────────────────────────────────────

/** `2024-01-02T03:04:05.123000`: no zone, six fractional digits (the legacy API's spelling). */
export function legacyTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-01-02T03:04:05.123Z
  return `${iso.slice(0, 23)}000`;
}

/** `2024-01-02T03:04:05`: no zone, whole seconds (block times). */
export function legacyTimestampSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** A stable positive integer id from a 0x hash (the legacy API's numeric ids). */
export function numericId(hex: string): number {
  const digits = hex.replace(/^0x/i, '').slice(0, 12);
  const n = Number.parseInt(digits.length > 0 ? digits : '0', 16);
  return Number.isFinite(n) && n > 0 ? n : hashString(hex) + 1;
}

const PROFILE_IMG = 'https://storage.googleapis.com/opensea-static/opensea-profile/1.png';

export function legacyAccount(address: string): Record<string, unknown> {
  return { user: null, profile_img_url: PROFILE_IMG, address: lower(address), config: '', discord_id: '' };
}

function legacyPaymentToken(p: PriceInfo): Record<string, unknown> {
  const address = lower(p.token.address);
  const isEth = address === ZERO_ADDRESS;
  const isWeth = p.token.symbol.toUpperCase() === 'WETH';
  return {
    id: isEth ? 1 : isWeth ? 2 : hashString(address) + 3,
    symbol: p.token.symbol,
    address,
    image_url: null,
    name: isEth ? 'Ether' : isWeth ? 'Wrapped Ether' : p.token.symbol,
    decimals: p.token.decimals,
    eth_price: isEth || isWeth ? '1.000000000000000' : '0.000000000000000',
    usd_price: isEth || isWeth ? '3000.000000000000000000' : '0.000000000000000000',
  };
}

/**
 * The collection's current fees in basis points: the marketplace's, and the creator fees (`dev`,
 * every other recipient); `payout` is the first creator fee's recipient, else the owner.
 */
function feeBps(c: CatalogCollection | undefined): {
  dev: number;
  marketplace: number;
  payout: string | null;
} {
  let dev = 0;
  let marketplace = 0;
  let payout: string | undefined;
  for (const f of c?.fees ?? []) {
    const bps = Math.round(f.fee * 100);
    if (lower(f.recipient) === lower(MARKETPLACE_FEE_RECIPIENT)) marketplace += bps;
    else {
      dev += bps;
      payout ??= lower(f.recipient);
    }
  }
  return { dev, marketplace, payout: payout ?? (c ? lower(c.owner) : null) };
}

function legacyCollection(
  c: CatalogCollection | undefined,
  slug: string,
  ctx: RenderContext,
): Record<string, unknown> {
  const fees = feeBps(c);
  return {
    banner_image_url: null,
    chat_url: null,
    created_date: legacyTimestamp(ctx.createdAtMs),
    default_to_fiat: false,
    description: c?.description ?? null,
    dev_buyer_fee_basis_points: '0',
    dev_seller_fee_basis_points: String(fees.dev),
    discord_url: null,
    display_data: { card_display_style: 'contain' },
    external_url: null,
    featured: false,
    featured_image_url: null,
    hidden: false,
    safelist_request_status: 'not_requested',
    image_url: null,
    is_subject_to_whitelist: false,
    large_image_url: null,
    medium_username: null,
    name: c?.name ?? slug,
    only_proxied_transfers: false,
    opensea_buyer_fee_basis_points: '0',
    opensea_seller_fee_basis_points: String(fees.marketplace),
    payout_address: fees.payout,
    require_email: false,
    short_description: null,
    slug,
    telegram_url: null,
    twitter_username: null,
    wiki_url: null,
  };
}

function legacyAssetContract(
  c: CatalogCollection | undefined,
  contract: string,
  standard: 'erc721' | 'erc1155',
  ctx: RenderContext,
): Record<string, unknown> {
  const fees = feeBps(c);
  return {
    address: lower(contract),
    asset_contract_type: standard === 'erc721' ? 'non-fungible' : 'semi-fungible',
    created_date: legacyTimestamp(ctx.createdAtMs),
    name: c?.name ?? null,
    nft_version: standard === 'erc721' ? '3.0' : null,
    opensea_version: null,
    owner: null,
    schema_name: standard === 'erc721' ? 'ERC721' : 'ERC1155',
    symbol: c?.symbol ?? null,
    total_supply: c ? String(c.supply) : null,
    description: c?.description ?? null,
    external_link: null,
    image_url: null,
    default_to_fiat: false,
    dev_buyer_fee_basis_points: 0,
    dev_seller_fee_basis_points: fees.dev,
    only_proxied_transfers: false,
    opensea_buyer_fee_basis_points: 0,
    opensea_seller_fee_basis_points: fees.marketplace,
    buyer_fee_basis_points: 0,
    seller_fee_basis_points: fees.dev + fees.marketplace,
    payout_address: fees.payout,
  };
}

function legacyAsset(
  e: MarketEvent,
  nft: NftRef,
  owner: string,
  ctx: RenderContext,
): Record<string, unknown> {
  const c = collectionOf(e, ctx);
  const image = imageUrl(ctx, e.collection, nft.identifier);
  return {
    id: hashString(`${lower(nft.contract)}:${nft.identifier}`),
    token_id: nft.identifier,
    num_sales: ctx.numSales?.(nft.contract, nft.identifier) ?? 0,
    background_color: null,
    image_url: image,
    image_preview_url: image,
    image_thumbnail_url: image,
    image_original_url: image,
    animation_url: null,
    animation_original_url: null,
    name: tokenName(c, e.collection, nft.identifier),
    description: c?.description ?? null,
    external_link: null,
    asset_contract: legacyAssetContract(c, nft.contract, nft.standard, ctx),
    owner: legacyAccount(owner),
    permalink: permalink(e.chain, nft.contract, nft.identifier),
    collection: legacyCollection(c, e.collection, ctx),
    decimals: 0,
  };
}

function legacyTransaction(e: MarketEvent, ctx: RenderContext): Record<string, unknown> | null {
  if (e.txHash === undefined) return null;
  const info = ctx.tx?.(e.txHash);
  const from = info?.from ?? e.buyer ?? e.from ?? ZERO_ADDRESS;
  const to = info?.to ?? e.protocolAddress ?? e.nft?.contract ?? null;
  return {
    id: numericId(e.txHash),
    from_account: legacyAccount(from),
    to_account: to === null ? null : legacyAccount(to),
    created_date: legacyTimestamp(e.timestampMs),
    modified_date: legacyTimestamp(e.timestampMs),
    transaction_hash: e.txHash,
    transaction_index: String(info?.transactionIndex ?? 0),
    block_number: e.blockNumber !== undefined ? String(e.blockNumber) : null,
    block_hash: info?.blockHash ?? null,
    timestamp: legacyTimestampSeconds(e.timestampMs),
  };
}

/** The legacy event type of a log record, or undefined when the legacy endpoint does not serve it. */
export function legacyTypeOf(kind: MarketEventKind): LegacyEventType | undefined {
  for (const t of LEGACY_EVENT_TYPES) if (KINDS_OF_LEGACY_TYPE[t].includes(kind)) return t;
  return undefined;
}

/**
 * One `asset_events` element of `GET /api/v1/events/`, or undefined for kinds it does not serve.
 * Per type (spec): `created` sets sell_order, seller, auction_type, starting/ending price and
 * payment_token, total_price null; `offer_entered` sets buy_order and bid_amount, seller null;
 * `transfer` sets from/to account, log_index and transaction, payment_token null; `successful`
 * sets total_price, winner_account, seller, payment_token and transaction, from/to null.
 */
export function renderLegacyEvent(e: MarketEvent, ctx: RenderContext): Record<string, unknown> | undefined {
  const type = legacyTypeOf(e.kind);
  if (type === undefined) return undefined;
  const c = collectionOf(e, ctx);
  const contract = e.nft?.contract ?? e.criteria?.contract ?? c?.contract ?? ZERO_ADDRESS;
  const amount = e.price?.amount.toString() ?? null;
  const onChain = type === 'transfer' || type === 'successful';
  const owner =
    type === 'created'
      ? (e.maker ?? ZERO_ADDRESS)
      : type === 'successful'
        ? (e.buyer ?? e.taker ?? ZERO_ADDRESS)
        : type === 'transfer'
          ? (e.to ?? ZERO_ADDRESS)
          : ZERO_ADDRESS;
  const record: Record<string, unknown> = {
    id: e.id,
    asset: e.nft ? legacyAsset(e, e.nft, owner, ctx) : null,
    asset_bundle: null,
    transaction: onChain ? legacyTransaction(e, ctx) : null,
    payment_token: type !== 'transfer' && e.price ? legacyPaymentToken(e.price) : null,
    winner_account: null,
    from_account: null,
    to_account: null,
    owner_account: null,
    approved_account: null,
    seller: null,
    dev_fee_payment_event: null,
    collection_slug: e.collection,
    created_date: legacyTimestamp(e.timestampMs),
    modified_date: legacyTimestamp(e.timestampMs),
    contract_address: lower(contract),
    log_index: null,
    event_type: type,
    auction_type: null,
    starting_price: null,
    ending_price: null,
    min_price: null,
    bid_amount: null,
    total_price: null,
    payout_amount: null,
    duration: null,
    offered_to: null,
    custom_event_name: null,
    quantity: String(e.quantity ?? 1),
    event_timestamp: onChain ? legacyTimestampSeconds(e.timestampMs) : legacyTimestamp(e.timestampMs),
    relayer: null,
    collection: collectionNumber(ctx, e.collection),
    payout_account: null,
    payout_asset_contract: null,
    payout_collection: null,
    buy_order: null,
    sell_order: null,
  };
  switch (type) {
    case 'created':
      record['sell_order'] = e.orderHash !== undefined ? numericId(e.orderHash) : e.id;
      record['seller'] = legacyAccount(e.maker ?? ZERO_ADDRESS);
      record['from_account'] = legacyAccount(e.maker ?? ZERO_ADDRESS);
      record['auction_type'] = 'dutch';
      record['starting_price'] = amount ?? '0';
      record['ending_price'] = amount ?? '0';
      record['relayer'] = e.protocolAddress !== undefined ? lower(e.protocolAddress) : null;
      break;
    case 'offer_entered':
      record['buy_order'] = e.orderHash !== undefined ? numericId(e.orderHash) : e.id;
      record['bid_amount'] = amount ?? '0';
      record['from_account'] = legacyAccount(e.maker ?? ZERO_ADDRESS);
      record['relayer'] = e.protocolAddress !== undefined ? lower(e.protocolAddress) : null;
      break;
    case 'transfer':
      record['from_account'] = legacyAccount(e.from ?? ZERO_ADDRESS);
      record['to_account'] = legacyAccount(e.to ?? ZERO_ADDRESS);
      record['log_index'] = String(e.logIndex ?? 0);
      break;
    case 'successful':
      record['total_price'] = amount ?? '0';
      record['winner_account'] = legacyAccount(e.buyer ?? e.taker ?? ZERO_ADDRESS);
      record['seller'] = legacyAccount(e.seller ?? e.maker ?? ZERO_ADDRESS);
      record['log_index'] = e.logIndex !== undefined ? String(e.logIndex) : null;
      record['relayer'] = e.protocolAddress !== undefined ? lower(e.protocolAddress) : null;
      break;
  }
  return record;
}

function collectionNumber(ctx: RenderContext, slug: string): number {
  const list = ctx.catalog?.collections() ?? [];
  const i = list.findIndex((c) => c.slug === slug);
  return i >= 0 ? i + 1 : hashString(slug);
}
