import { describe, expect, it } from 'vitest';
import type { ListingEvent, PaymentToken, SaleEvent } from '../../../src/domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../../../src/domain/ids.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import {
  acceptOutcome,
  buyOutcome,
  byListerChoice,
  feeBps,
  feeOf,
  listingCrossesOffer,
  listingTakenBySale,
  saleCrossesOffer,
  traitMatches,
} from '../../../src/execution/fill-model.ts';

const E = 10n ** 16n; // 0.01
const WALLET = '0x00000000000000000000000000000000000000aa';
const APES = '0x00000000000000000000000000000000000000a1' as Address;
const ETH: PaymentToken = {
  address: '0x0000000000000000000000000000000000000000' as Address,
  symbol: 'ETH',
  decimals: 18,
};
const WETH: PaymentToken = {
  address: '0x00000000000000000000000000000000000000e1' as Address,
  symbol: 'WETH',
  decimals: 18,
};
const USDC: PaymentToken = {
  address: '0x00000000000000000000000000000000000000c1' as Address,
  symbol: 'USDC',
  decimals: 6,
};
const nft = (id: string) => ({ chain: 'ethereum' as const, contract: APES, identifier: id as TokenId });
const H = (n: number) => `0x${String(n).padStart(64, '0')}` as OrderHash;

const listing = (over: Partial<ListingEvent> = {}): ListingEvent => ({
  kind: 'listing',
  id: 'l',
  collection: 'apes' as CollectionSlug,
  chain: 'ethereum',
  occurredAt: 0,
  receivedAt: 0,
  source: 'stream',
  orderHash: H(1),
  maker: '0x00000000000000000000000000000000000000bb' as Address,
  taker: null,
  quantity: 1n,
  price: 5n * E,
  paymentToken: ETH,
  expiresAt: null,
  nft: nft('7'),
  isPrivate: false,
  ...over,
});

const sale = (price: bigint, id = '9', over: Partial<SaleEvent> = {}): SaleEvent => ({
  kind: 'sale',
  id: 's',
  collection: 'apes' as CollectionSlug,
  chain: 'ethereum',
  occurredAt: 0,
  receivedAt: 0,
  source: 'stream',
  nft: nft(id),
  orderHash: null,
  txHash: null,
  seller: '0x00000000000000000000000000000000000000b1' as Address,
  buyer: '0x00000000000000000000000000000000000000b2' as Address,
  quantity: 1n,
  price,
  paymentToken: ETH,
  ...over,
});

describe('fill model', () => {
  it('offers a listing crosses are taken highest first, then oldest, then by hash', () => {
    const o = (orderHash: string, price: bigint, placedAt: number) => ({ orderHash, price, placedAt });
    const got = byListerChoice([o('0xc', 4n, 1), o('0xb', 5n, 2), o('0xa', 5n, 2), o('0xd', 5n, 1)]);
    expect(got.map((x) => x.orderHash)).toEqual(['0xd', '0xa', '0xb', '0xc']);
  });

  it('an offer is crossed by a listing at or below it on what it is for', () => {
    const coll = {
      offer: { type: 'collection' as const, collection: 'apes' },
      price: 5n * E,
      paymentToken: WETH,
    };
    expect(listingCrossesOffer(coll, listing(), WALLET)).toBe(true); // at the price; ETH and WETH alike
    expect(listingCrossesOffer(coll, listing({ price: 5n * E + 1n }), WALLET)).toBe(false);
    expect(listingCrossesOffer(coll, listing({ price: 9n * E, quantity: 2n }), WALLET)).toBe(true); // per unit
    expect(listingCrossesOffer(coll, listing({ maker: WALLET as Address }), WALLET)).toBe(false); // ours
    expect(listingCrossesOffer(coll, listing({ isPrivate: true }), WALLET)).toBe(false);
    expect(listingCrossesOffer(coll, listing({ collection: 'punks' as CollectionSlug }), WALLET)).toBe(false);
    expect(listingCrossesOffer(coll, listing({ paymentToken: USDC, price: 1n }), WALLET)).toBe(false);
    const item = {
      offer: { type: 'item' as const, collection: 'apes', nft: nft('7') },
      price: 5n * E,
      paymentToken: WETH,
    };
    expect(listingCrossesOffer(item, listing(), WALLET)).toBe(true);
    expect(listingCrossesOffer(item, listing({ nft: nft('8') }), WALLET)).toBe(false);
    const trait = {
      offer: { type: 'trait' as const, collection: 'apes', traitType: 'Hat', value: 'Cap' },
      price: 5n * E,
      paymentToken: WETH,
    };
    expect(listingCrossesOffer(trait, listing(), WALLET)).toBe('traits');
    expect(traitMatches(trait.offer, [{ type: 'Hat', value: 'Cap' }])).toBe(true);
    expect(traitMatches(trait.offer, [{ type: 'Hat', value: 'Crown' }])).toBe(false);
    expect(traitMatches(trait.offer, undefined)).toBe(false);
  });

  it('an offer is crossed by a sale at or below it of what it is for, by others', () => {
    const coll = {
      offer: { type: 'collection' as const, collection: 'apes' },
      price: 5n * E,
      paymentToken: WETH,
    };
    expect(saleCrossesOffer(coll, sale(5n * E), WALLET)).toBe(true); // at the price; ETH and WETH alike
    expect(saleCrossesOffer(coll, sale(5n * E + 1n), WALLET)).toBe(false);
    expect(saleCrossesOffer(coll, sale(9n * E, '9', { quantity: 2n }), WALLET)).toBe(true); // per unit
    expect(saleCrossesOffer(coll, sale(E, '9', { seller: WALLET as Address }), WALLET)).toBe(false); // ours
    // to us: our own offer accepted on the tape of a trading daemon, which ours stands for
    expect(saleCrossesOffer(coll, sale(E, '9', { buyer: WALLET as Address }), WALLET)).toBe(true);
    expect(saleCrossesOffer(coll, sale(E, '9', { collection: 'punks' as CollectionSlug }), WALLET)).toBe(
      false,
    );
    expect(saleCrossesOffer(coll, sale(1n, '9', { paymentToken: USDC }), WALLET)).toBe(false);
    const item = { ...coll, offer: { type: 'item' as const, collection: 'apes', nft: nft('9') } };
    expect(saleCrossesOffer(item, sale(E), WALLET)).toBe(true);
    expect(saleCrossesOffer(item, sale(E, '8'), WALLET)).toBe(false);
    const trait = {
      ...coll,
      offer: { type: 'trait' as const, collection: 'apes', traitType: 'Hat', value: 'Cap' },
    };
    expect(saleCrossesOffer(trait, sale(E), WALLET)).toBe('traits');
  });

  it('a sale takes the cheapest of our listings at or under its price, never the NFT sold itself', () => {
    const ours = [
      { id: 'a', collection: 'apes', nft: nft('1'), price: 6n * E, paymentToken: ETH },
      { id: 'b', collection: 'apes', nft: nft('2'), price: 4n * E, paymentToken: ETH },
      { id: 'c', collection: 'punks', nft: nft('3'), price: 1n * E, paymentToken: ETH },
      { id: 'd', collection: 'apes', nft: nft('4'), price: 1n * E, paymentToken: USDC },
    ];
    expect(listingTakenBySale(ours, sale(5n * E))?.id).toBe('b');
    expect(listingTakenBySale(ours, sale(3n * E))).toBeUndefined();
    expect(listingTakenBySale(ours, sale(5n * E, '2'))).toBeUndefined(); // ours was the one sold
    expect(listingTakenBySale(ours, sale(12n * E, '9', { quantity: 2n }))?.id).toBe('b');
  });

  it('a buy fills at the book price if the listing still stands and is within the cap', () => {
    const intent = { orderHash: H(1), quantity: 1n, maxPrice: 5n * E };
    expect(buyOutcome({ price: 5n * E, orderHash: H(1) }, intent, true)).toEqual({ total: 5n * E });
    expect(buyOutcome({ price: 5n * E, orderHash: null }, intent, true)).toEqual({ total: 5n * E });
    expect(buyOutcome(undefined, intent, true)).toMatchObject({ code: 'paper_listing_gone' });
    expect(buyOutcome({ price: 4n * E, orderHash: H(2) }, intent, true)).toMatchObject({
      code: 'paper_listing_gone',
    });
    expect(buyOutcome({ price: 5n * E, orderHash: H(1) }, intent, false)).toMatchObject({
      code: 'paper_listing_gone',
    });
    expect(buyOutcome({ price: 6n * E, orderHash: H(1) }, intent, true)).toMatchObject({
      code: 'paper_price_above_cap',
    });
  });

  it('an accepted offer needs one that high in the book and the minimum after fees', () => {
    const fees = [
      { fee: 1, recipient: '0xm', required: true },
      { fee: 2.5, recipient: '0xc' },
      { fee: 5, recipient: '0xo', required: false },
    ];
    expect(feeOf(10n * E, fees)).toBe((10n * E * 350n) / 10_000n);
    const intent = { collection: 'apes', offerPrice: 10n * E, quantity: 2n, minProceeds: 9n * E };
    expect(acceptOutcome(5n * E, intent, fees)).toEqual({ fees: (10n * E * 350n) / 10_000n });
    expect(acceptOutcome(5n * E - 1n, intent, fees)).toMatchObject({ code: 'paper_offer_gone' });
    expect(acceptOutcome(5n * E, { ...intent, minProceeds: (97n * E) / 10n }, fees)).toMatchObject({
      code: 'paper_proceeds_below_min',
    });
  });
});

describe('feeBps: the fees a sale pays, as our orders carry them', () => {
  const R = '0x00000000000000000000000000000000000000fe';
  it('sums the required fees (a fraction of a bp rounds up, as percentToBps does); optional ones are left out', () => {
    expect(feeBps([])).toBe(0n);
    expect(
      feeBps([
        { fee: 1, recipient: R, required: true },
        { fee: 2.5, recipient: R },
        { fee: 5, recipient: R, required: false },
      ]),
    ).toBe(350n);
    expect(feeBps([{ fee: 0.555, recipient: R, required: true }])).toBe(56n);
    expect(feeBps([{ fee: 2.5001, recipient: R, required: true }])).toBe(251n);
    expect(feeOf(10n ** 18n, [{ fee: 2.5, recipient: R, required: true }])).toBe(25n * 10n ** 15n);
  });

  it('a percent no order would take is refused, as an order refuses it', () => {
    for (const fee of [-1, 101, Number.NaN])
      expect(() => feeBps([{ fee, recipient: R, required: true }])).toThrow(RejectedError);
  });
});
