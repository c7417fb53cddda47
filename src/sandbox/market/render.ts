/**
 * Wire renderings of orders: the current `Listing`/`Offer` shapes (opensea-wire.md §2) and the
 * deprecated legacy order (`order` field of create responses, legacy lists).
 */
import type { Listing, Offer } from '@opensea/api-types';
import { ZeroAddress } from 'ethers';
import { orderPrice, remainingPrice, type StoredOrder } from './book.ts';
import { ItemType, wireParameters } from './seaport.ts';
import type { LegacyOrder } from './types.ts';

export interface RenderContext {
  readonly chain: string;
  readonly seaport: string;
  /** Chain time, seconds (prices of time-varying orders). */
  readonly now: bigint;
}

function protocolData(o: StoredOrder) {
  return { parameters: wireParameters(o.components), signature: o.signature };
}

const createdAt = (o: StoredOrder) => Math.floor(o.createdAtMs / 1000);

export function renderListing(o: StoredOrder, ctx: RenderContext): Listing {
  const out = {
    order_hash: o.hash,
    chain: ctx.chain,
    type: 'basic',
    price: {
      current: {
        currency: o.currency.symbol,
        decimals: o.currency.decimals,
        value: remainingPrice(o, ctx.now).toString(),
      },
    },
    protocol_data: protocolData(o),
    protocol_address: ctx.seaport,
    remaining_quantity: Number(o.remaining),
    order_created_at: createdAt(o),
    asset: { identifier: (o.tokenId as bigint).toString(), contract: o.collection.contract },
    status: o.status,
  };
  return out as unknown as Listing;
}

export function renderOffer(o: StoredOrder, ctx: RenderContext): Offer {
  const criteria = o.criteria
    ? {
        collection: { slug: o.criteria.slug },
        contract: { address: o.criteria.contract },
        ...(o.criteria.traits.length > 0 ? { traits: o.criteria.traits.map((t) => ({ ...t })) } : {}),
        ...(o.criteria.numericTraits.length > 0
          ? { numeric_traits: o.criteria.numericTraits.map((t) => ({ ...t })) }
          : {}),
        encoded_token_ids: o.resolution?.encodedTokenIds ?? '*',
      }
    : undefined;
  const out = {
    order_hash: o.hash,
    chain: ctx.chain,
    price: {
      currency: o.currency.symbol,
      decimals: o.currency.decimals,
      value: remainingPrice(o, ctx.now).toString(),
    },
    protocol_data: protocolData(o),
    protocol_address: ctx.seaport,
    remaining_quantity: Number(o.remaining),
    order_created_at: createdAt(o),
    ...(o.tokenId !== undefined
      ? { asset: { identifier: o.tokenId.toString(), contract: o.collection.contract } }
      : {}),
    ...(criteria ? { criteria } : {}),
    status: o.status,
  };
  return out as unknown as Offer;
}

export function renderOrder(o: StoredOrder, ctx: RenderContext): Listing | Offer {
  return o.side === 'listing' ? renderListing(o, ctx) : renderOffer(o, ctx);
}

/** The total price of a stored order now (exposed for tests and stats). */
export const priceOf = orderPrice;

// ---------------------------------------------------------------------------------------------
// Legacy format

/** ISO 8601 without zone and with microseconds, as the legacy records spell dates. */
export function legacyDate(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 23)}000`;
}

const account = (address: string) => ({ address, user: null, profile_img_url: '', config: '' });

interface WireLike {
  readonly order_hash?: string;
  readonly chain?: string;
  readonly type?: string;
  readonly price?: { current?: { value?: string }; value?: string };
  readonly protocol_data?: {
    parameters?: {
      offerer?: string;
      startTime?: string;
      endTime?: string;
      offer?: readonly { itemType?: number; startAmount?: string }[];
      consideration?: readonly { itemType?: number; startAmount?: string; recipient?: string }[];
    };
    signature?: string;
  };
  readonly protocol_address?: string;
  readonly remaining_quantity?: number;
  readonly order_created_at?: number;
  readonly criteria?: unknown;
  readonly status?: string;
}

/**
 * The deprecated legacy rendering of an order (the `order` field of create responses and the
 * elements of the legacy lists), derived from the current wire `Listing` or `Offer`.
 */
export function legacyOrderOf(order: Listing | Offer): LegacyOrder {
  const w = order as unknown as WireLike;
  const isListing = w.type !== undefined || w.price?.current !== undefined;
  const params = w.protocol_data?.parameters ?? {};
  const offerer = params.offerer ?? ZeroAddress;
  const startTime = Number(params.startTime ?? 0);
  const endTime = Number(params.endTime ?? 0);
  const price = (isListing ? w.price?.current?.value : w.price?.value) ?? '0';
  const consideration = params.consideration ?? [];
  const currencyItems = consideration.filter(
    (c) => c.itemType === ItemType.NATIVE || c.itemType === ItemType.ERC20,
  );
  const total = currencyItems.reduce((s, c) => s + BigInt(c.startAmount ?? '0'), 0n);
  // Offers: fees are relative to the offered amount; listings: to everything the buyer pays.
  const offered = (params.offer ?? []).reduce((s, c) => s + BigInt(c.startAmount ?? '0'), 0n);
  const base = isListing ? total : offered;
  const makerFees = currencyItems
    .filter((c) => c.recipient !== undefined && c.recipient.toLowerCase() !== offerer.toLowerCase())
    .map((c) => ({
      account: account(c.recipient as string),
      basis_points: base === 0n ? '0' : ((BigInt(c.startAmount ?? '0') * 10000n) / base).toString(),
    }));
  const status = w.status ?? 'ACTIVE';
  return {
    created_date: legacyDate((w.order_created_at ?? 0) * 1000),
    closing_date: endTime > 0 ? legacyDate(endTime * 1000) : null,
    listing_time: startTime,
    expiration_time: endTime,
    order_hash: w.order_hash ?? null,
    protocol_data: w.protocol_data ?? null,
    protocol_address: w.protocol_address ?? null,
    current_price: price,
    maker: account(offerer),
    taker: null,
    maker_fees: makerFees,
    taker_fees: [],
    side: isListing ? 'ask' : 'bid',
    order_type: w.criteria !== undefined ? 'criteria' : 'basic',
    cancelled: status === 'CANCELLED',
    finalized: status === 'FULFILLED',
    marked_invalid: status === 'INACTIVE',
    client_signature: w.protocol_data?.signature ?? null,
    relay_id: w.order_hash ?? null,
    criteria_proof: null,
    remaining_quantity: w.remaining_quantity ?? 0,
  };
}
