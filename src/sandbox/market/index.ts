/**
 * The sandbox market: an order book verified against and settled on the chain fixture (anvil +
 * Seaport 1.6 + conduit + WETH + SandboxSignedZone), implementing `Market` (types.ts).
 */
import type {
  BuildOfferResponse,
  CancelResponse,
  FulfillListingResponse,
  Listing,
  Offer,
} from '@opensea/api-types';
import { ZeroAddress, ZeroHash } from 'ethers';
import { isHash32 } from '../../domain/ids.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import { badRequest, notFound } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import { compareUnitPrice, isFinal, OrderBook, remainingPrice, type StoredOrder } from './book.ts';
import { ChainReader } from './chain.ts';
import {
  checkChain,
  checkProtocolAddress,
  criteriaInfo,
  type MarketContext,
  orderEventBase,
  priceInfo,
  sameAddress,
} from './context.ts';
import { parseCriteria, resolveCriteria, tokenMatches } from './criteria.ts';
import {
  assertNotFinal,
  buildFulfillment,
  fulfillmentError,
  parseFulfillmentRequest,
  planFulfillment,
} from './fulfill.ts';
import { DEFAULT_LEGACY_LIMIT, DEFAULT_PAGE_LIMIT, pageLimit, paginate } from './paging.ts';
import { legacyOrderOf, type RenderContext, renderListing, renderOffer, renderOrder } from './render.ts';
import {
  ItemType,
  orderHashDigest,
  ParseError,
  parseAddress,
  parseUint,
  recoverSigner,
  seaportDomain,
} from './seaport.ts';
import type {
  CancelOptions,
  CreateOrderBody,
  CriteriaOfferBody,
  FulfillmentTamper,
  LegacyOrderQuery,
  LegacyPage,
  Market,
  OrderSide,
  OrderStatus,
  Page,
  PageQuery,
  TraitQuery,
  WindowOrder,
} from './types.ts';
import { parseOrThrow, toStored, verifyOrder } from './verify.ts';
import { ChainWatcher, recheckOrder, type StatusCounters, sweepExpired, transition } from './watcher.ts';
import { zoneSigner } from './zone.ts';

export { legacyOrderOf } from './render.ts';
export { encodeFulfillmentCalldata, orderHash, parseOrderComponents, SEAPORT_ABI } from './seaport.ts';
export type * from './types.ts';

export interface MarketOptions {
  readonly fixture: ChainFixture;
  readonly catalog: Catalog;
  readonly events: EventLog;
  /** Sandbox clock, epoch ms (order creation times, cancel answers). Default `Date.now`. */
  readonly now?: () => number;
  /** Lifetime of zone signatures issued with fulfillment data, seconds. Default 300. */
  readonly zoneSignatureTtlSec?: number;
  /** The chain name the market serves. Default 'ethereum'. */
  readonly chain?: string;
  /** Log polling interval, ms. Default 250. */
  readonly pollIntervalMs?: number;
  /** First block whose logs are processed; default the latest block at creation (+1). */
  readonly startBlock?: number;
}

/** The market with sandbox extras (beyond the `Market` interface). */
export interface SandboxMarket extends Market {
  /** Processes chain logs up to the latest block now (tests; after a known transaction). */
  sync(): Promise<void>;
  /** The chain-time estimate the market uses (seconds). */
  chainNow(): bigint;
  readonly chain: string;
  readonly seaportAddress: string;
  /**
   * Fulfillment data as `fulfillmentData` builds it, with the zone authorization valid until
   * `validUntil` (chain time, s) instead of the usual lifetime, never tampered with: what the
   * cancel-window fault hands its trader before the order is marked cancelled.
   */
  windowFulfillment(side: OrderSide, body: unknown, validUntil: bigint): Promise<FulfillListingResponse>;
  /** Whether offer `hash` can buy token `tokenId` of its collection (false for unknown orders and listings). */
  offerCovers(hash: string, tokenId: bigint): boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function createMarket(options: MarketOptions): SandboxMarket {
  const fx = options.fixture;
  const weth = String(fx.weth.target);
  const zone = String(fx.zone.target);
  const reader = new ChainReader(fx.provider, fx.seaport.seaport, weth);
  const ctx: MarketContext = {
    chain: options.chain ?? 'ethereum',
    chainId: fx.chainId,
    seaport: fx.seaport.seaport,
    conduit: fx.seaport.conduit,
    conduitKey: fx.seaport.conduitKey.toLowerCase(),
    zone,
    weth,
    catalog: options.catalog,
    events: options.events,
    book: new OrderBook(),
    reader,
    zoneSigner: zoneSigner(fx.zoneSigner, fx.chainId, zone),
    now: options.now ?? Date.now,
    zoneSignatureTtlSec: options.zoneSignatureTtlSec ?? 300,
    native: { address: ZeroAddress, symbol: 'ETH', decimals: 18, native: true },
    wethCurrency: { address: weth, symbol: 'WETH', decimals: 18, native: false },
  };
  const counters: StatusCounters = { fills: 0, cancels: 0 };
  const watcher = new ChainWatcher(ctx, counters, options.pollIntervalMs ?? 250, options.startBlock);
  watcher.start();
  let tamper: FulfillmentTamper = 'none';

  const renderCtx = (): RenderContext => ({ chain: ctx.chain, seaport: ctx.seaport, now: reader.now() });

  function collection(slug: string) {
    const c = ctx.catalog.bySlug(slug);
    if (!c) throw notFound(`collection '${slug}' not found`);
    return c;
  }

  /** Non-final orders of a side and collection after the expiry sweep, filtered to ACTIVE. */
  function active(
    side: OrderSide,
    slug: string,
    pred: (o: StoredOrder) => boolean = () => true,
  ): StoredOrder[] {
    sweepExpired(ctx, counters);
    const out: StoredOrder[] = [];
    for (const o of ctx.book.all()) {
      if (o.side === side && o.collection.slug === slug && o.status === 'ACTIVE' && pred(o)) out.push(o);
    }
    return out;
  }

  const byCreated = (a: StoredOrder, b: StoredOrder) =>
    a.createdAtMs - b.createdAtMs || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0);

  function sortListings(list: StoredOrder[]): StoredOrder[] {
    const now = reader.now();
    return list.sort((a, b) => compareUnitPrice(a, b, now) || byCreated(a, b));
  }

  function sortOffers(list: StoredOrder[]): StoredOrder[] {
    const now = reader.now();
    return list.sort((a, b) => compareUnitPrice(b, a, now) || byCreated(a, b));
  }

  function page<T>(list: StoredOrder[], tag: string, q: PageQuery, render: (o: StoredOrder) => T): Page<T> {
    const limit = pageLimit(q.limit, DEFAULT_PAGE_LIMIT);
    const s = paginate(list, tag, limit, q.next);
    return { items: s.items.map(render), ...(s.next ? { next: s.next } : {}) };
  }

  const listingOf = (o: StoredOrder) => renderListing(o, renderCtx());
  const offerOf = (o: StoredOrder) => renderOffer(o, renderCtx());

  function parseTokenId(identifier: string): bigint {
    return parseOrThrow(() => parseUint(identifier, 'identifier'));
  }

  /** Can this (ACTIVE) offer buy token `id` of its collection? */
  function offerCovers(o: StoredOrder, id: bigint): boolean {
    if (o.tokenId !== undefined) return o.tokenId === id;
    if (id < 1n || id > BigInt(o.collection.supply)) return false;
    const res = o.resolution;
    if (res?.tree) return res.tree.proof(id) !== undefined;
    if (o.criteria && (o.criteria.traits.length > 0 || o.criteria.numericTraits.length > 0)) {
      return tokenMatches(ctx.catalog, o.criteria, id);
    }
    return true;
  }

  function store(v: Awaited<ReturnType<typeof verifyOrder>>): StoredOrder {
    const existing = ctx.book.get(v.hash);
    if (existing) return existing;
    const o = toStored(v, ctx.now());
    ctx.book.add(o);
    const criteria = criteriaInfo(o);
    ctx.events.append({
      kind: o.kind,
      ...orderEventBase(ctx, o),
      price: priceInfo(o, reader.now()),
      quantity: Number(o.quantity),
      startDate: Number(o.components.startTime),
      expirationDate: Number(o.components.endTime),
      isPrivate: false,
      ...(criteria ? { criteria } : {}),
    });
    // Whatever happened on chain between the checks and now is caught by the next poll.
    watcher.touch(o.hash);
    return o;
  }

  function windowOrderOf(o: StoredOrder): WindowOrder {
    return {
      hash: o.hash,
      side: o.side,
      kind: o.kind,
      slug: o.collection.slug,
      contract: o.collection.contract,
      standard: o.collection.standard,
      ...(o.tokenId !== undefined ? { tokenId: o.tokenId } : {}),
      maker: o.components.offerer,
      remaining: o.remaining,
      price: remainingPrice(o, reader.now()),
      currency: { address: o.currency.address, native: o.currency.native },
    };
  }

  const market: SandboxMarket = {
    chain: ctx.chain,
    seaportAddress: ctx.seaport,

    async createOrder(side: OrderSide, chain: string, protocol: string, body: CreateOrderBody) {
      if (side !== 'listing' && side !== 'offer') throw badRequest(`unknown order side '${String(side)}'`);
      checkChain(ctx, chain);
      if (typeof protocol !== 'string' || protocol.toLowerCase() !== 'seaport') {
        throw badRequest(`protocol '${protocol}' is not supported (use 'seaport')`);
      }
      if (!isRecord(body))
        throw badRequest('the body must be a JSON object {parameters, signature, protocol_address}');
      if (body.protocol_address !== undefined && body.protocol_address !== null) {
        checkProtocolAddress(ctx, body.protocol_address);
      }
      if (body.parameters === undefined) throw badRequest('parameters are required');
      await watcher.ready();
      const v = await verifyOrder(ctx, side, body.parameters, body.signature);
      return renderOrder(store(v), renderCtx());
    },

    async buildOffer(body: unknown): Promise<BuildOfferResponse> {
      if (!isRecord(body)) throw badRequest('the body must be a JSON object');
      const offerer = parseOrThrow(() => parseAddress(body.offerer, 'offerer'));
      const q = body.quantity;
      const quantity = typeof q === 'string' && /^[0-9]+$/.test(q) ? Number(q) : q;
      if (
        typeof quantity !== 'number' ||
        !Number.isInteger(quantity) ||
        quantity < 1 ||
        quantity > 1_000_000
      ) {
        throw badRequest('quantity must be a positive integer');
      }
      checkProtocolAddress(ctx, body.protocol_address);
      const ope = body.offer_protection_enabled;
      if (ope !== undefined && ope !== null && typeof ope !== 'boolean') {
        throw badRequest('offer_protection_enabled must be a boolean');
      }
      const criteria = parseOrThrow(() => parseCriteria(body.criteria, ctx.catalog));
      const coll = collection(criteria.slug);
      const res = parseOrThrow(() => resolveCriteria(ctx.catalog, coll, criteria));
      const out = {
        partialParameters: {
          consideration: [
            {
              itemType:
                coll.standard === 'erc721' ? ItemType.ERC721_WITH_CRITERIA : ItemType.ERC1155_WITH_CRITERIA,
              token: coll.contract,
              identifierOrCriteria: res.root.toString(),
              startAmount: String(quantity),
              endAmount: String(quantity),
              recipient: offerer,
            },
          ],
          // Offer protection is always on in the sandbox: offers must use the signed zone.
          zone: ctx.zone,
          zoneHash: ZeroHash,
        },
        criteria: {
          collection: { slug: coll.slug },
          contract: { address: coll.contract },
          ...(criteria.traits.length > 0 ? { traits: criteria.traits.map((t) => ({ ...t })) } : {}),
          ...(criteria.numericTraits.length > 0
            ? { numericTraits: criteria.numericTraits.map((t) => ({ ...t })) }
            : {}),
        },
        encodedTokenIds: res.encodedTokenIds,
      };
      return out;
    },

    async createCriteriaOffer(body: CriteriaOfferBody): Promise<Offer> {
      if (!isRecord(body))
        throw badRequest('the body must be a JSON object {protocol_data, criteria, protocol_address}');
      checkProtocolAddress(ctx, body.protocol_address);
      const pd = body.protocol_data;
      if (!isRecord(pd)) throw badRequest('protocol_data {parameters, signature} is required');
      const criteria = parseOrThrow(() => parseCriteria(body.criteria, ctx.catalog));
      const coll = collection(criteria.slug);
      const resolution = parseOrThrow(() => resolveCriteria(ctx.catalog, coll, criteria));
      await watcher.ready();
      const v = await verifyOrder(ctx, 'offer', pd.parameters, pd.signature, { criteria, resolution });
      return renderOffer(store(v), renderCtx());
    },

    getOrder(chain: string, protocol: string, hash: string): Listing | Offer {
      checkChain(ctx, chain);
      checkProtocolAddress(ctx, protocol);
      if (!isHash32(hash)) throw badRequest('order_hash must be a 32-byte hex string');
      sweepExpired(ctx, counters);
      const o = ctx.book.get(hash);
      if (!o) throw notFound(`order ${hash} not found`);
      return renderOrder(o, renderCtx());
    },

    bestListings(slug, q) {
      const coll = collection(slug);
      const traits = (q.traits ?? []).map((t) => ({ type: t.traitType, value: String(t.value) }));
      const list = active('listing', coll.slug, (o) =>
        traits.length === 0 ? true : ctx.catalog.matches(coll.slug, o.tokenId as bigint, traits),
      );
      return page(sortListings(list), 'best_listings', q, listingOf);
    },

    allListings(slug, q) {
      const coll = collection(slug);
      const maker = q.maker !== undefined ? parseOrThrow(() => parseAddress(q.maker, 'maker')) : undefined;
      const list = active(
        'listing',
        coll.slug,
        (o) => maker === undefined || sameAddress(o.components.offerer, maker),
      );
      return page(sortListings(list), 'all_listings', q, listingOf);
    },

    bestListingForNft(slug, identifier) {
      const coll = collection(slug);
      const id = parseTokenId(identifier);
      const best = sortListings(active('listing', coll.slug, (o) => o.tokenId === id))[0];
      if (!best) throw notFound(`no active listing for '${coll.slug}' #${id}`);
      return listingOf(best);
    },

    collectionOffers(slug, q) {
      const coll = collection(slug);
      return page(
        sortOffers(active('offer', coll.slug, (o) => o.kind === 'collection_offer')),
        'collection_offers',
        q,
        offerOf,
      );
    },

    traitOffers(slug, q: TraitQuery) {
      const coll = collection(slug);
      const list = active('offer', coll.slug, (o) => {
        if (o.kind !== 'trait_offer' || !o.criteria) return false;
        if (q.type === undefined) return true;
        const text = o.criteria.traits.some(
          (t) => t.type === q.type && (q.value === undefined || t.value === q.value),
        );
        const numeric = o.criteria.numericTraits.some((t) => {
          if (t.type !== q.type) return false;
          if (q.value === undefined) return true;
          const v = Number(q.value);
          return (
            Number.isFinite(v) && (t.min === undefined || v >= t.min) && (t.max === undefined || v <= t.max)
          );
        });
        return text || numeric;
      });
      return page(sortOffers(list), 'trait_offers', q, offerOf);
    },

    itemOffers(slug, identifier, q) {
      const coll = collection(slug);
      const id = parseTokenId(identifier);
      return page(
        sortOffers(active('offer', coll.slug, (o) => offerCovers(o, id))),
        'item_offers',
        q,
        offerOf,
      );
    },

    allOffers(slug, q) {
      const coll = collection(slug);
      const maker = q.maker !== undefined ? parseOrThrow(() => parseAddress(q.maker, 'maker')) : undefined;
      const list = active(
        'offer',
        coll.slug,
        (o) => maker === undefined || sameAddress(o.components.offerer, maker),
      );
      return page(sortOffers(list), 'all_offers', q, offerOf);
    },

    bestOfferForNft(slug, identifier) {
      const coll = collection(slug);
      const id = parseTokenId(identifier);
      const best = sortOffers(active('offer', coll.slug, (o) => offerCovers(o, id)))[0];
      if (!best) throw notFound(`no active offer for '${coll.slug}' #${id}`);
      return offerOf(best);
    },

    legacyOrders(side: OrderSide, chain: string, protocol: string, q: LegacyOrderQuery): LegacyPage {
      checkChain(ctx, chain);
      if (typeof protocol !== 'string' || protocol.toLowerCase() !== 'seaport') {
        throw badRequest(`protocol '${protocol}' is not supported (use 'seaport')`);
      }
      const addr = (v: string | undefined, name: string) =>
        v === undefined || v === '' ? undefined : parseOrThrow(() => parseAddress(v, name));
      const contract = addr(q.asset_contract_address, 'asset_contract_address');
      const maker = addr(q.maker, 'maker');
      const payment = addr(q.payment_token_address, 'payment_token_address');
      const tokenIds = (q.token_ids ?? []).map((t) => parseOrThrow(() => parseUint(t, 'token_ids')));
      if (tokenIds.length > 0 && contract === undefined) {
        throw badRequest('token_ids requires asset_contract_address');
      }
      const date = (v: string | undefined, name: string) => {
        if (v === undefined || v === '') return undefined;
        const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
        if (Number.isNaN(ms)) throw badRequest(`${name} must be an ISO 8601 date-time`);
        return ms;
      };
      const before = date(q.listed_before, 'listed_before');
      const after = date(q.listed_after, 'listed_after');
      const orderBy = q.order_by ?? 'created_at';
      if (orderBy !== 'created_at' && orderBy !== 'price')
        throw badRequest("order_by must be 'created_at' or 'price'");
      const direction = q.order_direction ?? 'desc';
      if (direction !== 'asc' && direction !== 'desc')
        throw badRequest("order_direction must be 'asc' or 'desc'");
      const limit = pageLimit(q.limit, DEFAULT_LEGACY_LIMIT);
      sweepExpired(ctx, counters);
      const list: StoredOrder[] = [];
      for (const o of ctx.book.all()) {
        if (o.side !== side || o.status !== 'ACTIVE') continue;
        if (contract !== undefined && !sameAddress(o.collection.contract, contract)) continue;
        if (tokenIds.length > 0 && (o.tokenId === undefined || !tokenIds.includes(o.tokenId))) continue;
        if (maker !== undefined && !sameAddress(o.components.offerer, maker)) continue;
        if (payment !== undefined && !sameAddress(o.currency.address, payment)) continue;
        if (before !== undefined && o.createdAtMs >= before) continue;
        if (after !== undefined && o.createdAtMs <= after) continue;
        list.push(o);
      }
      const now = reader.now();
      const sign = direction === 'asc' ? 1 : -1;
      list.sort((a, b) => {
        const primary = orderBy === 'price' ? compareUnitPrice(a, b, now) : a.createdAtMs - b.createdAtMs;
        return sign * (primary || byCreated(a, b));
      });
      const s = paginate(
        list,
        side === 'listing' ? 'legacy_listings' : 'legacy_offers',
        limit,
        q['cursor.value'],
      );
      const rc = renderCtx();
      return {
        orders: s.items.map((o) => legacyOrderOf(renderOrder(o, rc))),
        next: s.next ?? null,
        previous: s.previous ?? null,
      };
    },

    fulfillmentData(side: OrderSide, body: unknown): Promise<FulfillListingResponse> {
      return fulfillment(side, body, tamper);
    },

    windowFulfillment(side: OrderSide, body: unknown, validUntil: bigint): Promise<FulfillListingResponse> {
      return fulfillment(side, body, 'none', validUntil);
    },

    offerCovers(hash: string, tokenId: bigint): boolean {
      const o = ctx.book.get(hash);
      return o !== undefined && o.side === 'offer' && offerCovers(o, tokenId);
    },

    async cancel(
      chain: string,
      protocol: string,
      orderHash: string,
      body: unknown,
      caller?: string,
      options: CancelOptions = {},
    ): Promise<CancelResponse> {
      checkChain(ctx, chain);
      checkProtocolAddress(ctx, protocol);
      if (!isHash32(orderHash)) {
        throw badRequest('order_hash must be a 32-byte hex string');
      }
      const o = ctx.book.get(orderHash);
      if (!o) throw badRequest(`order_hash ${orderHash} does not exist`);
      if (!o.zoned) {
        throw badRequest(
          'only orders protected by the signed zone can be cancelled off-chain; cancel this one on chain (Seaport cancel or incrementCounter)',
        );
      }
      const offerer = o.components.offerer;
      const sig = isRecord(body) ? body.offererSignature : undefined;
      if (sig !== undefined && sig !== null && sig !== '') {
        let signer: string;
        try {
          signer = recoverSigner(orderHashDigest(o.hash, seaportDomain(ctx.chainId, ctx.seaport)), sig);
        } catch (e) {
          if (e instanceof ParseError) throw badRequest(`invalid offererSignature: ${e.message}`);
          throw e;
        }
        if (!sameAddress(signer, offerer)) {
          throw badRequest(
            `invalid offererSignature: recovered signer ${signer} is not the offerer ${offerer}`,
          );
        }
      } else if (caller === undefined || !sameAddress(caller, offerer)) {
        throw badRequest(
          caller === undefined
            ? 'cancelling needs the offerer: send offererSignature (EIP-712 OrderHash) or authenticate as the offerer'
            : `the authenticated wallet ${caller} is not the offerer of this order`,
        );
      }
      sweepExpired(ctx, counters);
      if (o.status === 'FULFILLED') throw badRequest(`order ${o.hash} is already filled`);
      const window = options.signatureWindowSec ?? 0;
      if (window > 0 && !isFinal(o.status)) {
        // Fault: as if a fulfillment signature valid until `validUntil` had been issued just now.
        const validUntil = reader.now() + BigInt(window);
        if (options.beforeCancel)
          await options.beforeCancel(windowOrderOf(o), validUntil).catch(() => undefined);
        if (o.lastSignatureExpiry === undefined || validUntil > o.lastSignatureExpiry) {
          o.lastSignatureExpiry = validUntil;
        }
        // The hook awaited: the chain may have filled the order meanwhile.
        if ((o.status as OrderStatus) === 'FULFILLED') throw badRequest(`order ${o.hash} is already filled`);
      }
      if (!isFinal(o.status)) transition(ctx, counters, o, 'CANCELLED');
      const until = o.lastSignatureExpiry;
      return {
        last_signature_issued_valid_until: new Date(
          until !== undefined ? Number(until) * 1000 : ctx.now(),
        ).toISOString(),
      };
    },

    setTamper(mode: FulfillmentTamper) {
      if (!['none', 'recipient', 'value', 'target', 'extra_item'].includes(mode)) {
        throw badRequest(`unknown tamper mode '${String(mode)}'`);
      }
      tamper = mode;
    },

    stats() {
      sweepExpired(ctx, counters);
      let activeCount = 0;
      for (const o of ctx.book.all()) if (o.status === 'ACTIVE') activeCount++;
      return { orders: ctx.book.size, active: activeCount, fills: counters.fills, cancels: counters.cancels };
    },

    sync: () => watcher.poll(),
    chainNow: () => reader.now(),

    async close() {
      await watcher.close();
    },
  };

  async function fulfillment(
    side: OrderSide,
    body: unknown,
    mode: FulfillmentTamper,
    zoneExpiration?: bigint,
  ): Promise<FulfillListingResponse> {
    const req = parseFulfillmentRequest(ctx, side, body);
    const o = ctx.book.get(req.hash);
    if (!o) throw fulfillmentError(`order_hash ${req.hash} does not exist`);
    if (o.side !== side) {
      throw fulfillmentError(
        `order_hash ${req.hash} is ${o.side === 'listing' ? 'a listing' : 'an offer'}, not ${side === 'listing' ? 'a listing' : 'an offer'}`,
      );
    }
    assertNotFinal(o);
    // Fresh status: process the chain up to its latest block, then re-check the order there.
    await watcher.poll();
    await recheckOrder(ctx, counters, o, watcher.lastProcessedBlock);
    const plan = await planFulfillment(ctx, o, req);
    const fulfillerConduitKey = await chooseFulfillerConduitKey(o, req.fulfiller, plan.consideration);
    return buildFulfillment(ctx, plan, req, fulfillerConduitKey, mode, zoneExpiration);
  }

  /** The conduit key for the fulfiller's side: where their approvals point. */
  async function chooseFulfillerConduitKey(
    o: StoredOrder,
    fulfiller: string,
    consideration: readonly { itemType: number; startAmount: bigint }[],
  ): Promise<string> {
    if (o.side === 'listing') {
      if (o.currency.native) return ZeroHash;
      const need = consideration.reduce((s, i) => s + i.startAmount, 0n);
      if ((await reader.erc20Allowance(ctx.weth, fulfiller, ctx.conduit)) >= need) return ctx.conduitKey;
      if ((await reader.erc20Allowance(ctx.weth, fulfiller, ctx.seaport)) >= need) return ZeroHash;
      return ctx.conduitKey;
    }
    const contract = o.collection.contract;
    if (await reader.isApprovedForAll(contract, fulfiller, ctx.conduit)) return ctx.conduitKey;
    if (await reader.isApprovedForAll(contract, fulfiller, ctx.seaport)) return ZeroHash;
    return ctx.conduitKey;
  }

  return market;
}
