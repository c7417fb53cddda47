import type { Listing, Offer } from '@opensea/api-types';
import { HttpError } from '../../errors.ts';
import type {
  CancelOptions,
  CreateOrderBody,
  CriteriaOfferBody,
  LegacyOrderQuery,
  Market,
  OrderSide,
  Page,
  PageQuery,
} from '../../market/types.ts';
import type { CancelRefuseStatus } from '../faults.ts';
import { boolParam, enumParam, intParam, listParam, strParam } from '../http.ts';
import type { PreparedWindowFill, Reply, RequestContext, Route, ServerState } from '../types.ts';

/**
 * Order, listing and offer routes: parse the request, call the `Market`, serialize its answer.
 * The market throws `HttpError` with the API's statuses; these routes add only request parsing.
 */

function market(state: ServerState): Market {
  if (!state.market) throw new HttpError(503, 'The sandbox market is not running (no order book attached)');
  return state.market;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function objectBody(ctx: RequestContext): Promise<Record<string, unknown>> {
  const body = await ctx.body();
  if (!isObject(body)) throw new HttpError(400, 'Request body must be a JSON object');
  return body;
}

function pageQuery(q: URLSearchParams): PageQuery {
  const limit = intParam(q, 'limit', { min: 1, max: 200 });
  const next = strParam(q, 'next');
  return { ...(limit !== undefined ? { limit } : {}), ...(next !== undefined ? { next } : {}) };
}

function listReply<T>(field: 'listings' | 'offers', page: Page<T>): Reply {
  return { json: { [field]: page.items, ...(page.next !== undefined ? { next: page.next } : {}) } };
}

/** `traits` of `/listings/collection/{slug}/best`: JSON `[{"traitType","value"}]`. */
function listingTraits(q: URLSearchParams): { traitType: string; value: string }[] | undefined {
  const raw = strParam(q, 'traits');
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'traits: must be a JSON array of {"traitType": ..., "value": ...}');
  }
  if (!Array.isArray(parsed)) throw new HttpError(400, 'traits: must be a JSON array');
  return parsed.map((t: unknown, i) => {
    const o = t as { traitType?: unknown; value?: unknown };
    if (!isObject(o) || typeof o.traitType !== 'string' || o.value === undefined || o.value === null) {
      throw new HttpError(400, `traits[${i}]: needs a string "traitType" and a "value"`);
    }
    return { traitType: o.traitType, value: String(o.value) };
  });
}

/** A date-time query value (ISO 8601 or Unix seconds), kept as given after validation. */
function dateParam(q: URLSearchParams, name: string): string | undefined {
  const raw = strParam(q, name);
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw) || !Number.isNaN(Date.parse(raw))) return raw;
  throw new HttpError(400, `${name}: "${raw}" is not a date-time`);
}

/** Query of the deprecated `GET /api/v2/orders/{chain}/{protocol}/listings|offers`. */
export function parseLegacyOrderQuery(q: URLSearchParams, side: OrderSide): LegacyOrderQuery {
  const out: { -readonly [K in keyof LegacyOrderQuery]: LegacyOrderQuery[K] } = {};
  const contract = strParam(q, 'asset_contract_address');
  if (contract !== undefined) out.asset_contract_address = contract;
  const tokenIds = listParam(q, 'token_ids');
  if (tokenIds.length > 0) {
    for (const t of tokenIds) {
      if (!/^\d+$/.test(t)) throw new HttpError(400, `token_ids: "${t}" is not a decimal token id`);
    }
    out.token_ids = tokenIds;
  }
  const maker = strParam(q, 'maker');
  if (maker !== undefined) out.maker = maker;
  const listedBefore = dateParam(q, 'listed_before');
  if (listedBefore !== undefined) out.listed_before = listedBefore;
  const listedAfter = dateParam(q, 'listed_after');
  if (listedAfter !== undefined) out.listed_after = listedAfter;
  const orderBy = enumParam(q, 'order_by', ['created_at', 'price'] as const);
  if (orderBy !== undefined) out.order_by = orderBy;
  const direction = enumParam(q, 'order_direction', ['asc', 'desc'] as const);
  if (direction !== undefined) out.order_direction = direction;
  if (side === 'offer') {
    const pt = strParam(q, 'payment_token_address');
    if (pt !== undefined) out.payment_token_address = pt;
  } else {
    const priv = boolParam(q, 'include_private_listings');
    if (priv !== undefined) out.include_private_listings = priv;
  }
  const limit = intParam(q, 'limit', { min: 1, max: 200 });
  if (limit !== undefined) out.limit = limit;
  const cursor = strParam(q, 'cursor.value');
  if (cursor !== undefined) out['cursor.value'] = cursor;
  return out;
}

/**
 * A minimal order in the deprecated legacy format, used for the `order` field of create responses
 * when the market module does not provide `legacyOrderOf`.
 */
export function minimalLegacyOrder(order: Listing | Offer, side: OrderSide): Record<string, unknown> {
  const o = order as Record<string, unknown>;
  const pd = (o['protocol_data'] ?? {}) as { parameters?: Record<string, unknown>; signature?: unknown };
  const params = pd.parameters ?? {};
  const price = o['price'] as { current?: { value?: string }; value?: string } | undefined;
  const value = price?.current?.value ?? price?.value ?? null;
  const created = typeof o['order_created_at'] === 'number' ? (o['order_created_at'] as number) : undefined;
  const toIso = (s: unknown) => {
    const n = typeof s === 'string' || typeof s === 'number' ? Number(s) : Number.NaN;
    return Number.isFinite(n) ? new Date(n * 1000).toISOString().slice(0, 19) : null;
  };
  return {
    created_date: created !== undefined ? new Date(created * 1000).toISOString().slice(0, 19) : null,
    closing_date: toIso(params['endTime']),
    listing_time: Number(params['startTime'] ?? 0) || null,
    expiration_time: Number(params['endTime'] ?? 0) || null,
    order_hash: o['order_hash'] ?? null,
    protocol_data: o['protocol_data'] ?? null,
    protocol_address: o['protocol_address'] ?? null,
    current_price: value,
    maker:
      typeof params['offerer'] === 'string' ? { address: (params['offerer'] as string).toLowerCase() } : null,
    taker: null,
    side: side === 'listing' ? 'ask' : 'bid',
    order_type: side === 'listing' ? 'basic' : o['criteria'] ? 'criteria' : 'basic',
    cancelled: o['status'] === 'CANCELLED',
    finalized: o['status'] === 'FULFILLED',
    marked_invalid: o['status'] === 'INACTIVE',
    remaining_quantity: o['remaining_quantity'] ?? null,
  };
}

/**
 * A cancel refused by the cancel fault: nothing is cancelled. 400/403/500 answer with the API's
 * error body; `'timeout'` holds the request open and drops its connection unanswered.
 */
async function refuseCancel(
  state: ServerState,
  ctx: RequestContext,
  how: CancelRefuseStatus,
): Promise<Reply> {
  const why = '(refused by the sandbox cancel fault)';
  if (how === 400) throw new HttpError(400, `apiKey is not from offerer ${why}`);
  if (how === 403) throw new HttpError(403, `Forbidden: this key may not cancel this order ${why}`);
  if (how === 500) throw new HttpError(500, `Internal server error ${why}`);
  await state.held.hold(ctx.res);
  return { json: null }; // the connection is gone by now: nothing is sent
}

/** The cancel options of the cancel faults; `prepared()` is the trader set up to fill in the window. */
function cancelFaultOptions(state: ServerState): {
  options: CancelOptions;
  prepared: () => PreparedWindowFill | undefined;
} {
  const { signatureWindowSec } = state.faults.settings.cancel;
  let prepared: PreparedWindowFill | undefined;
  if (signatureWindowSec <= 0) return { options: {}, prepared: () => undefined };
  const counts = state.faults.cancelCounts;
  return {
    prepared: () => prepared,
    options: {
      signatureWindowSec,
      beforeCancel: async (order, validUntil) => {
        counts.windowed++;
        if (!state.faults.rollFillInWindow()) return;
        try {
          prepared = await state.windowFiller?.prepare(order, validUntil);
          if (!prepared) counts.fillNoTarget++;
        } catch {
          counts.fillFailures++;
        }
      },
    },
  };
}

/** Sends a prepared window fill in the background and counts how it ends. */
function startWindowFill(state: ServerState, p: PreparedWindowFill): void {
  const counts = state.faults.cancelCounts;
  counts.fillAttempts++;
  p.fill().then(
    () => {
      counts.filledInWindow++;
    },
    () => {
      counts.fillFailures++;
    },
  );
}

export function orderRoutes(state: ServerState): Route[] {
  const legacyOf = (order: Listing | Offer, side: OrderSide) =>
    state.legacyOrderOf ? state.legacyOrderOf(order) : minimalLegacyOrder(order, side);

  const create =
    (side: OrderSide) =>
    async (ctx: RequestContext): Promise<Reply> => {
      const body = await objectBody(ctx);
      if (!isObject(body['parameters']))
        throw new HttpError(400, 'parameters: required (Seaport order components)');
      const order = await market(state).createOrder(
        side,
        ctx.params['chain'] as string,
        ctx.params['protocol'] as string,
        body as unknown as CreateOrderBody,
      );
      // The OpenAPI document and the official SDK read the order itself; the spec names `order`
      // (legacy) and `listing`/`offer`: the body is the order plus both fields.
      return { json: { ...order, order: legacyOf(order, side), [side]: order } };
    };

  const fulfillment = (side: OrderSide) => async (ctx: RequestContext) => {
    const body = await objectBody(ctx);
    return { json: await market(state).fulfillmentData(side, body) };
  };

  const legacyList = (side: OrderSide) => (ctx: RequestContext) => {
    const q = parseLegacyOrderQuery(ctx.query, side);
    const page = market(state).legacyOrders(
      side,
      ctx.params['chain'] as string,
      ctx.params['protocol'] as string,
      q,
    );
    return { json: { next: page.next, previous: page.previous, orders: page.orders } };
  };

  const slug = (ctx: RequestContext) => ctx.params['slug'] as string;
  const identifier = (ctx: RequestContext) => ctx.params['identifier'] as string;

  return [
    {
      method: 'POST',
      pattern: '/api/v2/orders/{chain}/{protocol}/listings',
      access: 'key',
      handler: create('listing'),
    },
    {
      method: 'POST',
      pattern: '/api/v2/orders/{chain}/{protocol}/offers',
      access: 'key',
      handler: create('offer'),
    },
    {
      method: 'GET',
      pattern: '/api/v2/orders/{chain}/{protocol}/listings',
      access: 'key',
      handler: legacyList('listing'),
    },
    {
      method: 'GET',
      pattern: '/api/v2/orders/{chain}/{protocol}/offers',
      access: 'key',
      handler: legacyList('offer'),
    },
    {
      method: 'POST',
      pattern: '/api/v2/offers/build',
      access: 'key',
      handler: async (ctx) => ({ json: await market(state).buildOffer(await objectBody(ctx)) }),
    },
    {
      method: 'POST',
      pattern: '/api/v2/offers',
      access: 'key',
      handler: async (ctx) => ({
        json: await market(state).createCriteriaOffer((await objectBody(ctx)) as CriteriaOfferBody),
      }),
    },
    {
      method: 'GET',
      pattern: '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}',
      access: 'key',
      handler: ({ params }) => ({
        json: {
          order: market(state).getOrder(
            params['chain'] as string,
            params['protocol_address'] as string,
            params['order_hash'] as string,
          ),
        },
      }),
    },
    {
      method: 'POST',
      pattern: '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel',
      access: 'key',
      // API key alone, or API key + wallet JWT with `write:orders` (the JWT's wallet is the caller);
      // the `requireJwtOnCancel` switch makes the JWT mandatory.
      wallet: { scope: 'write:orders', required: () => state.auth.requireJwtOnCancel },
      handler: async (ctx) => {
        const body = await ctx.body();
        if (body !== undefined && !isObject(body))
          throw new HttpError(400, 'Request body must be a JSON object');
        const m = market(state);
        const refusal = state.faults.rollCancelRefusal();
        if (refusal !== undefined) return refuseCancel(state, ctx, refusal);
        const faults = cancelFaultOptions(state);
        const answer = await m.cancel(
          ctx.params['chain'] as string,
          ctx.params['protocol_address'] as string,
          ctx.params['order_hash'] as string,
          body ?? {},
          ctx.wallet?.address ?? ctx.principal?.account,
          faults.options,
        );
        const fill = faults.prepared();
        if (fill) startWindowFill(state, fill);
        return { json: answer };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/listings/fulfillment_data',
      access: 'key',
      handler: fulfillment('listing'),
    },
    {
      method: 'POST',
      pattern: '/api/v2/offers/fulfillment_data',
      access: 'key',
      handler: fulfillment('offer'),
    },
    {
      method: 'GET',
      pattern: '/api/v2/listings/collection/{slug}/best',
      access: 'key',
      handler: (ctx) => {
        const traits = listingTraits(ctx.query);
        const priv = boolParam(ctx.query, 'include_private_listings');
        return listReply(
          'listings',
          market(state).bestListings(slug(ctx), {
            ...pageQuery(ctx.query),
            ...(traits !== undefined ? { traits } : {}),
            ...(priv !== undefined ? { include_private_listings: priv } : {}),
          }),
        );
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/listings/collection/{slug}/all',
      access: 'key',
      handler: (ctx) => {
        const maker = strParam(ctx.query, 'maker');
        const priv = boolParam(ctx.query, 'include_private_listings');
        return listReply(
          'listings',
          market(state).allListings(slug(ctx), {
            ...pageQuery(ctx.query),
            ...(maker !== undefined ? { maker } : {}),
            ...(priv !== undefined ? { include_private_listings: priv } : {}),
          }),
        );
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/listings/collection/{slug}/nfts/{identifier}/best',
      access: 'key',
      handler: (ctx) => ({ json: market(state).bestListingForNft(slug(ctx), identifier(ctx)) }),
    },
    {
      method: 'GET',
      pattern: '/api/v2/offers/collection/{slug}',
      access: 'key',
      handler: (ctx) => listReply('offers', market(state).collectionOffers(slug(ctx), pageQuery(ctx.query))),
    },
    {
      method: 'GET',
      pattern: '/api/v2/offers/collection/{slug}/all',
      access: 'key',
      handler: (ctx) => {
        const maker = strParam(ctx.query, 'maker');
        return listReply(
          'offers',
          market(state).allOffers(slug(ctx), {
            ...pageQuery(ctx.query),
            ...(maker !== undefined ? { maker } : {}),
          }),
        );
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/offers/collection/{slug}/traits',
      access: 'key',
      handler: (ctx) => {
        const type = strParam(ctx.query, 'type');
        const value = strParam(ctx.query, 'value');
        return listReply(
          'offers',
          market(state).traitOffers(slug(ctx), {
            ...pageQuery(ctx.query),
            ...(type !== undefined ? { type } : {}),
            ...(value !== undefined ? { value } : {}),
          }),
        );
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/offers/collection/{slug}/nfts/{identifier}',
      access: 'key',
      handler: (ctx) =>
        listReply('offers', market(state).itemOffers(slug(ctx), identifier(ctx), pageQuery(ctx.query))),
    },
    {
      method: 'GET',
      pattern: '/api/v2/offers/collection/{slug}/nfts/{identifier}/best',
      access: 'key',
      handler: (ctx) => ({ json: market(state).bestOfferForNft(slug(ctx), identifier(ctx)) }),
    },
  ];
}
