import type { Listing, Offer } from '@opensea/api-types';
import { getAddress, ZeroAddress, ZeroHash } from 'ethers';
import { describe, expect, it } from 'vitest';
import { compareUnitPrice, orderPrice, type StoredOrder } from '../../../../src/sandbox/market/book.ts';
import {
  legacyDate,
  legacyOrderOf,
  renderListing,
  renderOffer,
} from '../../../../src/sandbox/market/render.ts';
import { orderHash, parseOrderComponents } from '../../../../src/sandbox/market/seaport.ts';
import { CREATOR, FEE_RECIPIENT, testCatalog } from './catalog-fixture.ts';

const catalog = testCatalog();
const apes = catalog.bySlug('harpoon-apes');
if (!apes) throw new Error('catalog');
const SELLER = getAddress('0x00000000000000000000000000000000000a11ce');
const WETH = getAddress('0x00000000000000000000000000000000000beef0');
const ctx = {
  chain: 'ethereum',
  seaport: getAddress('0x0000000000000068f116a894984e2db1123eb395'),
  now: 1_500n,
};

function listing(start: bigint, end: bigint, quantity = 1n): StoredOrder {
  const fee = (x: bigint) => x / 100n;
  const components = parseOrderComponents({
    offerer: SELLER,
    zone: ZeroAddress,
    offer: [
      { itemType: 2, token: apes?.contract, identifierOrCriteria: '5', startAmount: '1', endAmount: '1' },
    ],
    consideration: [
      {
        itemType: 0,
        token: ZeroAddress,
        identifierOrCriteria: '0',
        startAmount: (start - fee(start)).toString(),
        endAmount: (end - fee(end)).toString(),
        recipient: SELLER,
      },
      {
        itemType: 0,
        token: ZeroAddress,
        identifierOrCriteria: '0',
        startAmount: fee(start).toString(),
        endAmount: fee(end).toString(),
        recipient: FEE_RECIPIENT,
      },
    ],
    orderType: 1,
    startTime: '1000',
    endTime: '2000',
    zoneHash: ZeroHash,
    salt: '1',
    conduitKey: ZeroHash,
    counter: '0',
  });
  return {
    hash: orderHash(components),
    side: 'listing',
    kind: 'listing',
    components,
    signature: '0xabcd',
    collection: apes as NonNullable<typeof apes>,
    tokenId: 5n,
    nftIndex: 0,
    quantity,
    currency: { address: ZeroAddress, symbol: 'ETH', decimals: 18, native: true },
    zoned: false,
    createdAtMs: 1_700_000_000_123,
    verifiedAtBlock: 1,
    status: 'ACTIVE',
    remaining: quantity,
  };
}

describe('prices', () => {
  it('interpolates a descending (dutch) listing at chain time', () => {
    const o = listing(2000n, 1000n);
    expect(orderPrice(o, 1000n)).toBe(2000n);
    expect(orderPrice(o, 1500n)).toBe(1500n);
    expect(orderPrice(o, 2000n)).toBe(1000n);
    expect(renderListing(o, ctx).price.current.value).toBe('1500');
  });

  it('compares unit prices across quantities exactly', () => {
    const a = listing(300n, 300n, 3n); // 100 per unit
    const b = listing(150n, 150n, 1n);
    expect(compareUnitPrice(a, b, 0n)).toBeLessThan(0);
    expect(compareUnitPrice(b, a, 0n)).toBeGreaterThan(0);
  });
});

describe('legacy rendering', () => {
  it('derives the legacy order from the wire listing', () => {
    const wire = renderListing(listing(1000n, 1000n), ctx) as Listing;
    const legacy = legacyOrderOf(wire);
    expect(legacy).toMatchObject({
      created_date: '2023-11-14T22:13:20.000000', // order_created_at has whole seconds
      closing_date: legacyDate(2_000_000),
      listing_time: 1000,
      expiration_time: 2000,
      order_hash: wire.order_hash,
      current_price: '1000',
      side: 'ask',
      order_type: 'basic',
      cancelled: false,
      finalized: false,
      marked_invalid: false,
      remaining_quantity: 1,
      taker: null,
      client_signature: '0xabcd',
    });
    expect(legacy.maker_fees).toEqual([expect.objectContaining({ basis_points: '100' })]);
  });

  it('marks criteria offers and maps statuses to flags', () => {
    const base = listing(1000n, 1000n);
    const components = parseOrderComponents({
      offerer: SELLER,
      zone: SELLER,
      offer: [
        { itemType: 1, token: WETH, identifierOrCriteria: '0', startAmount: '1000', endAmount: '1000' },
      ],
      consideration: [
        {
          itemType: 4,
          token: apes?.contract,
          identifierOrCriteria: '0',
          startAmount: '1',
          endAmount: '1',
          recipient: SELLER,
        },
        {
          itemType: 1,
          token: WETH,
          identifierOrCriteria: '0',
          startAmount: '10',
          endAmount: '10',
          recipient: FEE_RECIPIENT,
        },
        {
          itemType: 1,
          token: WETH,
          identifierOrCriteria: '0',
          startAmount: '25',
          endAmount: '25',
          recipient: CREATOR,
        },
      ],
      orderType: 3,
      startTime: '1000',
      endTime: '2000',
      salt: '2',
      counter: '0',
    });
    const offer: StoredOrder = {
      ...base,
      side: 'offer',
      kind: 'collection_offer',
      components,
      hash: orderHash(components),
      nftIndex: 0,
      currency: { address: WETH, symbol: 'WETH', decimals: 18, native: false },
      criteria: { slug: 'harpoon-apes', contract: apes?.contract as string, traits: [], numericTraits: [] },
      status: 'CANCELLED',
    };
    delete (offer as { tokenId?: bigint }).tokenId;
    const wire = renderOffer(offer, ctx) as Offer;
    expect(wire.criteria).toEqual({
      collection: { slug: 'harpoon-apes' },
      contract: { address: apes?.contract },
      encoded_token_ids: '*',
    });
    expect(wire.asset).toBeUndefined();
    const legacy = legacyOrderOf(wire);
    expect(legacy).toMatchObject({
      side: 'bid',
      order_type: 'criteria',
      cancelled: true,
      current_price: '1000',
    });
    expect((legacy.maker_fees as { basis_points: string }[]).map((f) => f.basis_points)).toEqual([
      '100',
      '250',
    ]);
  });
});
