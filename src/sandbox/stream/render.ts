import type { Catalog } from '../catalog/catalog.ts';
import type { MarketEvent, MarketEventKind, PriceInfo } from '../events/log.ts';

/**
 * Renders event-log records as OpenSea stream messages `{event_type, payload, sent_at, version}`
 * with the payload shapes of `opensea-wire.md` §1 (the types of @opensea/stream-js and
 * @opensea/sdk/stream). One pure function, `renderStreamEvent`; the server serializes its result
 * once per event and fans it out.
 *
 * Conventions, as the real service sends them:
 * - addresses and order hashes lowercase; prices as wei (smallest-unit) decimal strings;
 * - dates as ISO strings with microseconds and `+00:00` (`2022-12-01T16:54:23.974000+00:00`);
 * - absent values are `null`, never missing keys (`taker: null` for an open order,
 *   `transaction: null` for an off-chain cancel);
 * - an event without an NFT (collection and trait offers) carries `item: {}`, as OpenSea does
 *   (stream-js issues #244 and #259 show `"item": {}` payloads).
 */

export type StreamEventType =
  | 'item_listed'
  | 'item_sold'
  | 'item_transferred'
  | 'item_cancelled'
  | 'item_received_bid'
  | 'collection_offer'
  | 'trait_offer'
  | 'item_metadata_updated'
  | 'order_invalidate'
  | 'order_revalidate';

/** Every event type the server emits. (`item_received_offer` is never emitted, like the real service.) */
export const STREAM_EVENT_TYPES: readonly StreamEventType[] = Object.freeze([
  'item_listed',
  'item_sold',
  'item_transferred',
  'item_cancelled',
  'item_received_bid',
  'collection_offer',
  'trait_offer',
  'item_metadata_updated',
  'order_invalidate',
  'order_revalidate',
]);

const TYPE_OF_KIND: Readonly<Record<MarketEventKind, StreamEventType>> = Object.freeze({
  listing: 'item_listed',
  item_offer: 'item_received_bid',
  collection_offer: 'collection_offer',
  trait_offer: 'trait_offer',
  sale: 'item_sold',
  transfer: 'item_transferred',
  mint: 'item_transferred',
  cancel: 'item_cancelled',
  metadata_update: 'item_metadata_updated',
  order_invalidate: 'order_invalidate',
  order_revalidate: 'order_revalidate',
});

/** The stream event type of an event-log kind. */
export function streamEventTypeOf(kind: MarketEventKind): StreamEventType {
  return TYPE_OF_KIND[kind];
}

export interface StreamMessage {
  readonly event_type: StreamEventType;
  readonly payload: Record<string, unknown>;
  readonly sent_at: string;
  readonly version: number;
}

/** What a payment token's stream object adds to the event's `{address, symbol, decimals}`. */
export interface PaymentTokenQuote {
  readonly name: string;
  /** Decimal string, e.g. `"1.000000000000000"`. */
  readonly eth_price: string;
  /** Decimal string, e.g. `"3000.000000000000000000"`. */
  readonly usd_price: string;
}

export type ItemUrl<T> = (contract: string, identifier: string, collection: string) => T;

export interface StreamRenderContext {
  /** Epoch ms stamped as `sent_at`. */
  readonly sentAtMs: number;
  /** Chain name used when an event carries none (events normally do). Default `ethereum`. */
  readonly chain?: string;
  /**
   * `item.permalink`. Default `https://opensea.io/assets/<chain>/<contract>/<id>`. URL callbacks get
   * the lowercase contract, the token id and the event's collection slug.
   */
  readonly itemUrl?: ItemUrl<string>;
  /** `item.metadata.metadata_url` (e.g. the sandbox's `/metadata/<slug>/<id>`). Default null. */
  readonly metadataUrl?: ItemUrl<string | null>;
  /** `item.metadata.image_url`. Default null. */
  readonly imageUrl?: ItemUrl<string | null>;
  /** Names items (`<collection name> #<id>`), resolves contracts and traits for metadata updates. */
  readonly catalog?: Catalog;
  /** Name and prices of a payment token. Default: ETH/WETH at 1 ETH, `DEFAULT_ETH_USD`. */
  readonly quote?: (token: PriceInfo['token']) => PaymentTokenQuote;
}

export const DEFAULT_ETH_USD = '3000.000000000000000000';
export const SEAPORT_1_6 = '0x0000000000000068f116a894984e2db1123eb395';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Epoch ms → `2022-12-01T16:54:23.974000+00:00` (the service's Python-style ISO format). */
export function isoMicros(ms: number): string {
  // toISOString is `YYYY-MM-DDTHH:mm:ss.sssZ` for years 0000–9999
  return `${new Date(ms).toISOString().slice(0, 23)}000+00:00`;
}

function isoSeconds(secs: number | undefined): string | null {
  return secs === undefined ? null : isoMicros(secs * 1000);
}

function lower(a: string | undefined): string | null {
  return a === undefined ? null : a.toLowerCase();
}

function account(a: string | undefined): { address: string } | null {
  if (a === undefined || a === '') return null;
  return { address: a.toLowerCase() };
}

/** A taker is only shown when the order is restricted to one (zero address = anyone). */
function takerOf(a: string | undefined): { address: string } | null {
  if (a === undefined || a.toLowerCase() === ZERO_ADDRESS) return null;
  return account(a);
}

export function defaultQuote(token: PriceInfo['token']): PaymentTokenQuote {
  const symbol = token.symbol.toUpperCase();
  if (token.address.toLowerCase() === ZERO_ADDRESS || symbol === 'ETH') {
    return { name: 'Ether', eth_price: '1.000000000000000', usd_price: DEFAULT_ETH_USD };
  }
  if (symbol === 'WETH') {
    return { name: 'Wrapped Ether', eth_price: '1.000000000000000', usd_price: DEFAULT_ETH_USD };
  }
  if (symbol.includes('USD')) {
    return { name: token.symbol, eth_price: '0.000333333333333', usd_price: '1.000000000000000000' };
  }
  return { name: token.symbol, eth_price: '0.000000000000000', usd_price: '0.000000000000000000' };
}

function paymentToken(
  price: PriceInfo | undefined,
  ctx: StreamRenderContext,
): Record<string, unknown> | null {
  if (!price) return null;
  const q = (ctx.quote ?? defaultQuote)(price.token);
  return {
    address: price.token.address.toLowerCase(),
    decimals: price.token.decimals,
    eth_price: q.eth_price,
    name: q.name,
    symbol: price.token.symbol,
    usd_price: q.usd_price,
  };
}

function amount(price: PriceInfo | undefined): string | null {
  return price ? price.amount.toString() : null;
}

function transaction(e: MarketEvent): { hash: string; timestamp: string } | null {
  if (!e.txHash) return null;
  return { hash: e.txHash.toLowerCase(), timestamp: isoMicros(e.timestampMs) };
}

function chainOf(e: MarketEvent, ctx: StreamRenderContext): string {
  return e.chain || ctx.chain || 'ethereum';
}

function itemName(e: MarketEvent, ctx: StreamRenderContext): string | null {
  if (!e.nft) return null;
  const c = ctx.catalog?.byContract(e.nft.contract) ?? ctx.catalog?.bySlug(e.collection);
  return c ? `${c.name} #${e.nft.identifier}` : (e.metadata?.name ?? null);
}

/** `item` of a payload: the NFT, or `{}` when the event has none (criteria offers). */
function item(
  e: MarketEvent,
  ctx: StreamRenderContext,
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  if (!e.nft) return {};
  const chain = chainOf(e, ctx);
  const contract = e.nft.contract.toLowerCase();
  const id = e.nft.identifier;
  return {
    nft_id: `${chain}/${contract}/${id}`,
    permalink: ctx.itemUrl
      ? ctx.itemUrl(contract, id, e.collection)
      : `https://opensea.io/assets/${chain}/${contract}/${id}`,
    metadata: {
      name: itemName(e, ctx),
      image_url: ctx.imageUrl ? ctx.imageUrl(contract, id, e.collection) : null,
      animation_url: null,
      metadata_url: ctx.metadataUrl ? ctx.metadataUrl(contract, id, e.collection) : null,
      ...extra,
    },
    chain: { name: chain },
  };
}

function base(e: MarketEvent, ctx: StreamRenderContext): Record<string, unknown> {
  return { item: item(e, ctx), collection: { slug: e.collection }, chain: chainOf(e, ctx) };
}

function traitsOf(e: MarketEvent, ctx: StreamRenderContext): Record<string, unknown>[] {
  const catalog = ctx.catalog;
  const spec = catalog?.bySlug(e.collection);
  let tokenId: bigint | undefined;
  try {
    tokenId = e.nft ? BigInt(e.nft.identifier) : undefined;
  } catch {
    tokenId = undefined;
  }
  const source: readonly { trait_type: string; value: string | number; display_type?: string }[] =
    e.traits ?? (catalog && tokenId !== undefined ? catalog.traits(e.collection, tokenId) : []);
  return source.map((t) => {
    const numericRange = spec?.traits.numeric[t.trait_type];
    const numeric = numericRange !== undefined || typeof t.value === 'number';
    const count =
      !numeric && catalog && spec
        ? catalog.tokensMatching(e.collection, [{ type: t.trait_type, value: String(t.value) }]).length
        : null;
    return {
      trait_type: t.trait_type,
      value: String(t.value),
      display_type: numeric ? 'number' : null,
      max_value: numericRange ? numericRange[1] : null,
      trait_count: count,
      order: null,
    };
  });
}

function orderFields(e: MarketEvent, ctx: StreamRenderContext): Record<string, unknown> {
  return {
    quantity: e.quantity ?? 1,
    maker: account(e.maker),
    taker: takerOf(e.taker),
    order_hash: lower(e.orderHash),
    base_price: amount(e.price),
    payment_token: paymentToken(e.price, ctx),
    event_timestamp: isoMicros(e.timestampMs),
  };
}

function criteriaFields(e: MarketEvent, ctx: StreamRenderContext): Record<string, unknown> {
  const contract =
    e.criteria?.contract ?? ctx.catalog?.bySlug(e.collection)?.contract ?? e.nft?.contract ?? undefined;
  return {
    created_date: isoSeconds(e.startDate) ?? isoMicros(e.timestampMs),
    expiration_date: isoSeconds(e.expirationDate),
    collection_criteria: { slug: e.collection },
    asset_contract_criteria: contract === undefined ? null : { address: contract.toLowerCase() },
  };
}

/**
 * One event-log record as a stream message; `sent_at` is `ctx.sentAtMs`. Pure: the same event
 * and context always give the same message.
 */
export function renderStreamEvent(e: MarketEvent, ctx: StreamRenderContext): StreamMessage {
  const eventType = streamEventTypeOf(e.kind);
  let payload: Record<string, unknown>;
  switch (e.kind) {
    case 'listing':
      payload = {
        ...base(e, ctx),
        ...orderFields(e, ctx),
        listing_type: null,
        listing_date: isoSeconds(e.startDate) ?? isoMicros(e.timestampMs),
        expiration_date: isoSeconds(e.expirationDate),
        is_private: e.isPrivate ?? false,
      };
      break;
    case 'item_offer':
      payload = {
        ...base(e, ctx),
        ...orderFields(e, ctx),
        created_date: isoSeconds(e.startDate) ?? isoMicros(e.timestampMs),
        expiration_date: isoSeconds(e.expirationDate),
      };
      break;
    case 'collection_offer':
      payload = { ...base(e, ctx), ...orderFields(e, ctx), ...criteriaFields(e, ctx) };
      break;
    case 'trait_offer': {
      const list = (e.criteria?.traits ?? []).map((t) => ({ trait_type: t.type, trait_name: t.value }));
      payload = {
        ...base(e, ctx),
        ...orderFields(e, ctx),
        ...criteriaFields(e, ctx),
        trait_criteria: list[0] ?? null,
        trait_criteria_list: list,
      };
      break;
    }
    case 'sale': {
      const { base_price: salePrice, ...fields } = orderFields(e, ctx);
      payload = {
        ...base(e, ctx),
        ...fields,
        maker: account(e.maker ?? e.seller),
        taker: account(e.taker ?? e.buyer),
        sale_price: salePrice,
        listing_type: null,
        closing_date: isoMicros(e.timestampMs),
        transaction: transaction(e),
        is_private: e.isPrivate ?? false,
      };
      break;
    }
    case 'transfer':
    case 'mint':
      payload = {
        ...base(e, ctx),
        from_account: account(e.from ?? (e.kind === 'mint' ? ZERO_ADDRESS : undefined)),
        to_account: account(e.to),
        quantity: e.quantity ?? 1,
        transaction: transaction(e),
        event_timestamp: isoMicros(e.timestampMs),
      };
      break;
    case 'cancel':
      payload = {
        ...base(e, ctx),
        ...orderFields(e, ctx),
        listing_type: null,
        listing_date: isoSeconds(e.startDate),
        expiration_date: isoSeconds(e.expirationDate),
        transaction: transaction(e),
        is_private: e.isPrivate ?? false,
      };
      break;
    case 'metadata_update': {
      const spec = ctx.catalog?.bySlug(e.collection);
      payload = {
        item: item(e, ctx, {
          description: e.metadata?.description ?? spec?.description ?? null,
          background_color: e.metadata?.backgroundColor ?? null,
          traits: traitsOf(e, ctx),
        }),
        collection: { slug: e.collection },
        chain: chainOf(e, ctx),
      };
      break;
    }
    case 'order_invalidate':
    case 'order_revalidate':
      payload = {
        event_timestamp: isoMicros(e.timestampMs),
        order_hash: lower(e.orderHash),
        protocol_address: (e.protocolAddress ?? SEAPORT_1_6).toLowerCase(),
        chain: { name: chainOf(e, ctx) },
        collection: { slug: e.collection },
        item: item(e, ctx),
      };
      break;
  }
  return { event_type: eventType, payload, sent_at: isoMicros(ctx.sentAtMs), version: e.version };
}

/**
 * A copy of a message whose payload is broken the way a faulty upstream breaks it: prices that
 * are not integers, a missing item. Used by the `malformedRate` fault.
 */
export function breakMessage(m: StreamMessage): StreamMessage {
  const payload: Record<string, unknown> = { ...m.payload };
  let broke = false;
  for (const key of ['base_price', 'sale_price']) {
    if (key in payload) {
      payload[key] = 'abc';
      broke = true;
    }
  }
  if (!broke) payload['item'] = 'abc';
  return { ...m, payload };
}
