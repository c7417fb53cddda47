import type {
  BuildOfferResponse,
  CancelResponse,
  FulfillListingResponse,
  Listing,
  Offer,
} from '@opensea/api-types';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import type {
  CreateOrderBody,
  CriteriaOfferBody,
  FulfillmentTamper,
  LegacyOrderQuery,
  LegacyPage,
  Market,
  OrderSide,
  Page,
  PageQuery,
  TraitQuery,
} from '../../../../src/sandbox/market/types.ts';

/**
 * A small in-memory Market for the server tests: it stores what it is given, answers the list
 * queries from memory in wire shape, and records every call so tests can check what the routes
 * parsed. It verifies nothing (the real market verifies signatures on the chain).
 */

export const SEAPORT = '0x0000000000000068f116a894984e2db1123eb395';

export interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
}

function hashOf(n: number): string {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

function parameters(offerer: string) {
  return {
    offerer,
    zone: '0x0000000000000000000000000000000000000000',
    offer: [],
    consideration: [],
    orderType: 0,
    startTime: '1700000000',
    endTime: '1800000000',
    zoneHash: `0x${'00'.repeat(32)}`,
    salt: '1',
    conduitKey: `0x${'00'.repeat(32)}`,
    totalOriginalConsiderationItems: 0,
    counter: 0,
  };
}

export function sampleListing(n: number, slug = 'harpoon-apes', tokenId = String(n)): Listing {
  return {
    order_hash: hashOf(n),
    chain: 'ethereum',
    type: 'basic',
    price: { current: { currency: 'ETH', decimals: 18, value: String(1_000_000_000_000_000n * BigInt(n)) } },
    protocol_data: { parameters: parameters('0x000000000000000000000000000000000000a11c'), signature: '0x' },
    protocol_address: SEAPORT,
    remaining_quantity: 1,
    asset: { contract: '0x1111111111111111111111111111111111111111', identifier: tokenId },
    status: 'ACTIVE',
    order_created_at: 1_700_000_000,
    ...({ collection_slug_for_tests: slug } as object),
  } as Listing;
}

export function sampleOffer(n: number): Offer {
  return {
    order_hash: hashOf(1000 + n),
    chain: 'ethereum',
    price: { currency: 'WETH', decimals: 18, value: String(500_000_000_000_000n * BigInt(n)) },
    protocol_data: { parameters: parameters('0x0000000000000000000000000000000000000b0b'), signature: '0x' },
    protocol_address: SEAPORT,
    remaining_quantity: 1,
    criteria: {
      collection: { slug: 'harpoon-apes' },
      contract: { address: '0x1111111111111111111111111111111111111111' },
    },
    status: 'ACTIVE',
  } as Offer;
}

function page<T>(items: readonly T[], q: PageQuery): Page<T> {
  const start = q.next ? Number(Buffer.from(q.next, 'base64url').toString()) : 0;
  const limit = q.limit ?? 100;
  const slice = items.slice(start, start + limit);
  const more = start + limit < items.length;
  return {
    items: slice,
    ...(more ? { next: Buffer.from(String(start + limit)).toString('base64url') } : {}),
  };
}

export class FakeMarket implements Market {
  readonly calls: Call[] = [];
  readonly listings: Listing[] = [];
  readonly offers: Offer[] = [];
  tamper: FulfillmentTamper = 'none';
  #n = 1;

  #record(method: string, ...args: unknown[]) {
    this.calls.push({ method, args });
  }

  callsOf(method: string): Call[] {
    return this.calls.filter((c) => c.method === method);
  }

  async createOrder(side: OrderSide, chain: string, protocol: string, body: CreateOrderBody) {
    this.#record('createOrder', side, chain, protocol, body);
    if (chain !== 'ethereum') throw new HttpError(400, `Unsupported chain ${chain}`);
    const n = this.#n++;
    if (side === 'listing') {
      const l = sampleListing(n);
      this.listings.push(l);
      return l;
    }
    const o = sampleOffer(n);
    this.offers.push(o);
    return o;
  }

  async buildOffer(body: unknown): Promise<BuildOfferResponse> {
    this.#record('buildOffer', body);
    return {
      partialParameters: {
        consideration: [
          {
            itemType: 4,
            token: '0x1111111111111111111111111111111111111111',
            identifierOrCriteria: '0',
            startAmount: '1',
            endAmount: '1',
            recipient: '0x0000000000000000000000000000000000000b0b',
          },
        ],
        zone: '0x0000000000000000000000000000000000000000',
        zoneHash: `0x${'00'.repeat(32)}`,
      },
      criteria: { collection: { slug: 'harpoon-apes' } },
    } as BuildOfferResponse;
  }

  async createCriteriaOffer(body: CriteriaOfferBody): Promise<Offer> {
    this.#record('createCriteriaOffer', body);
    const o = sampleOffer(this.#n++);
    this.offers.push(o);
    return o;
  }

  getOrder(chain: string, protocol: string, orderHash: string): Listing | Offer {
    this.#record('getOrder', chain, protocol, orderHash);
    const hit = [...this.listings, ...this.offers].find((o) => o.order_hash === orderHash);
    if (!hit) throw new HttpError(404, `Order ${orderHash} not found`);
    return hit;
  }

  bestListings(slug: string, q: PageQuery & { traits?: readonly { traitType: string; value: string }[] }) {
    this.#record('bestListings', slug, q);
    return page(this.listings, q);
  }
  allListings(slug: string, q: PageQuery & { maker?: string }) {
    this.#record('allListings', slug, q);
    return page(this.listings, q);
  }
  bestListingForNft(slug: string, identifier: string): Listing {
    this.#record('bestListingForNft', slug, identifier);
    const hit = this.listings.find((l) => l.asset?.identifier === identifier);
    if (!hit) throw new HttpError(404, `No listing for ${slug} #${identifier}`);
    return hit;
  }
  collectionOffers(slug: string, q: PageQuery) {
    this.#record('collectionOffers', slug, q);
    return page(this.offers, q);
  }
  traitOffers(slug: string, q: TraitQuery) {
    this.#record('traitOffers', slug, q);
    return page(this.offers, q);
  }
  itemOffers(slug: string, identifier: string, q: PageQuery) {
    this.#record('itemOffers', slug, identifier, q);
    return page(this.offers, q);
  }
  allOffers(slug: string, q: PageQuery & { maker?: string }) {
    this.#record('allOffers', slug, q);
    return page(this.offers, q);
  }
  bestOfferForNft(slug: string, identifier: string): Offer {
    this.#record('bestOfferForNft', slug, identifier);
    const hit = this.offers[0];
    if (!hit) throw new HttpError(404, `No offer for ${slug} #${identifier}`);
    return hit;
  }
  legacyOrders(side: OrderSide, chain: string, protocol: string, q: LegacyOrderQuery): LegacyPage {
    this.#record('legacyOrders', side, chain, protocol, q);
    return { orders: [{ order_hash: hashOf(7), side }], next: 'cursor-2', previous: null };
  }
  async fulfillmentData(side: OrderSide, body: unknown): Promise<FulfillListingResponse> {
    this.#record('fulfillmentData', side, body);
    const b = body as { listing?: { hash?: string }; offer?: { hash?: string } };
    const hash = side === 'listing' ? b.listing?.hash : b.offer?.hash;
    if (!hash) throw new HttpError(400, `${side}.hash is required`, { protocol: 'seaport' });
    return {
      protocol: 'seaport',
      fulfillment_data: {
        transaction: {
          function:
            'fulfillOrder(((address,address,(uint8,address,uint256,uint256,uint256)[],(uint8,address,uint256,uint256,uint256,address)[],uint8,uint256,uint256,bytes32,uint256,bytes32,uint256),bytes),bytes32)',
          chain: 1,
          to: SEAPORT,
          value: '0',
          // FulfillOrder in the document's (generator-shaped) schema
          input_data: {
            order: { chain: 'ethereum', remaining_quantity: 1 },
            fulfillerConduitKey: `0x${'00'.repeat(32)}`,
          },
        },
        orders: [],
      },
    } as unknown as FulfillListingResponse;
  }
  async cancel(
    chain: string,
    protocol: string,
    orderHash: string,
    body: unknown,
    caller?: string,
  ): Promise<CancelResponse> {
    this.#record('cancel', chain, protocol, orderHash, body, caller);
    return { last_signature_issued_valid_until: '2025-01-01T00:00:00Z' };
  }
  setTamper(mode: FulfillmentTamper): void {
    this.#record('setTamper', mode);
    this.tamper = mode;
  }
  stats() {
    return {
      orders: this.listings.length + this.offers.length,
      active: this.listings.length,
      fills: 3,
      cancels: 1,
    };
  }
  async close() {}
}
