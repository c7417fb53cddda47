import { describe, expect, it } from 'vitest';
import type { WireParameters } from '../../../../src/sandbox/market/seaport.ts';
import { PRICE_STEP } from '../../../../src/sandbox/simulator/plan.ts';
import {
  attractionLimit,
  attractiveListings,
  chooseUnits,
  DEFAULT_TRADER_SETTINGS,
  fillableUnits,
  heldItems,
  heldOfferPrice,
  type ListingCandidate,
  planTakerTick,
  traderFor,
} from '../../../../src/sandbox/simulator/taker-plan.ts';

const ETH = 10n ** 18n;
const FLOOR = ETH / 20n; // 0.05
const OURS = '0x00000000000000000000000000000000000000aa';
const SIM_A = '0x00000000000000000000000000000000000000b1';
const SIM_B = '0x00000000000000000000000000000000000000b2';
const simulated = new Set([SIM_A, SIM_B]);

function params(quantity: bigint, price: bigint, fees: readonly bigint[] = []): WireParameters {
  const feeSum = fees.reduce((a, f) => a + f, 0n);
  const item = (amount: bigint) => ({
    itemType: 0,
    token: '0x0000000000000000000000000000000000000000',
    identifierOrCriteria: '0',
    startAmount: amount.toString(),
    endAmount: amount.toString(),
    recipient: OURS,
  });
  return {
    offerer: OURS,
    zone: '0x0000000000000000000000000000000000000000',
    offer: [
      {
        itemType: 3,
        token: '0x00000000000000000000000000000000000000cc',
        identifierOrCriteria: '1',
        startAmount: quantity.toString(),
        endAmount: quantity.toString(),
      },
    ],
    consideration: [item(price - feeSum), ...fees.map(item)],
    orderType: 1,
    startTime: '0',
    endTime: '1',
    zoneHash: `0x${'0'.repeat(64)}`,
    salt: '1',
    conduitKey: `0x${'0'.repeat(64)}`,
    totalOriginalConsiderationItems: 1 + fees.length,
    counter: 0,
  } as unknown as WireParameters;
}

const listing = (
  hash: string,
  maker: string,
  unitPrice: bigint,
  over: Partial<ListingCandidate> = {},
): ListingCandidate => ({
  orderHash: hash,
  slug: 'apes',
  maker,
  unitPrice,
  remaining: 1n,
  parameters: params(1n, unitPrice),
  ...over,
});

const judge = (ls: readonly ListingCandidate[], premiumBps = 500, floors: Record<string, bigint> = {}) =>
  attractiveListings(ls, {
    simulated,
    premiumBps,
    floorOf: (slug) => floors[slug] ?? FLOOR,
  }).map((l) => l.orderHash);

describe('attractive listings', () => {
  it('at or below floor × (1 + premiumBps/10000) per unit is attractive; one wei more is not', () => {
    const limit = attractionLimit(FLOOR, 500);
    expect(limit).toBe((FLOOR * 105n) / 100n);
    expect(judge([listing('0x01', OURS, limit), listing('0x02', OURS, limit + 1n)])).toEqual(['0x01']);
    expect(judge([listing('0x01', OURS, FLOOR), listing('0x02', OURS, FLOOR + 1n)], 0)).toEqual(['0x01']);
    // far above the floor: never
    expect(judge([listing('0x03', OURS, FLOOR * 3n)], 5_000)).toEqual([]);
  });

  it('only listings of wallets that are not simulated traders (a trader never buys its own)', () => {
    const ls = [listing('0x01', SIM_A, FLOOR / 2n), listing('0x02', SIM_B.toUpperCase(), FLOOR / 2n)];
    expect(judge(ls)).toEqual([]);
    expect(judge([...ls, listing('0x03', OURS, FLOOR)])).toEqual(['0x03']);
  });

  it('best deal first: the lowest price relative to its collection floor, ties by order hash', () => {
    const ls = [
      listing('0x0b', OURS, FLOOR),
      listing('0x0a', OURS, FLOOR),
      listing('0x0c', OURS, (FLOOR * 9n) / 10n),
      // half the floor of a cheaper collection: the best deal although the lowest price is elsewhere
      listing('0x0d', OURS, ETH / 200n, { slug: 'items' }),
    ];
    expect(judge(ls, 500, { items: ETH / 100n })).toEqual(['0x0d', '0x0c', '0x0a', '0x0b']);
  });

  it('listings with no unit left, or in a collection without a floor, are skipped', () => {
    expect(judge([listing('0x01', OURS, 1n, { remaining: 0n })])).toEqual([]);
    expect(judge([listing('0x01', OURS, 1n, { slug: 'x' })], 500, { x: 0n })).toEqual([]);
  });
});

describe('who takes, how many units', () => {
  const traders = [{ address: SIM_A }, { address: SIM_B }, { address: OURS }];

  it('the drawn trader, or the next one when the drawn one is excluded; none when all are', () => {
    expect(traderFor(traders, OURS, 0)?.address).toBe(SIM_A);
    expect(traderFor(traders, OURS, 0.5)?.address).toBe(SIM_B);
    expect(traderFor(traders, OURS, 0.99)?.address).toBe(SIM_A); // wraps past the excluded one
    expect(traderFor(traders, SIM_A.toUpperCase(), 0)?.address).toBe(SIM_B);
    expect(traderFor([{ address: SIM_A }], SIM_A, 0.3)).toBeUndefined();
    expect(traderFor([], SIM_A, 0.3)).toBeUndefined();
  });

  it('ERC1155 partial fills: only unit counts that divide every amount evenly', () => {
    // 3 units for 0.03 with a 1 % fee: every count divides
    expect(fillableUnits(params(3n, 3n * 10n ** 16n, [3n * 10n ** 14n]), 3n)).toEqual([1n, 2n, 3n]);
    // 3 units for 10 wei: only all three
    expect(fillableUnits(params(3n, 10n), 3n)).toEqual([3n]);
    // 4 units for 6 wei: 2 and 4 (1 × 6 / 4 is not whole)
    expect(fillableUnits(params(4n, 6n), 4n)).toEqual([2n, 4n]);
    // no more than what remains
    expect(fillableUnits(params(4n, 8n), 2n)).toEqual([1n, 2n]);
    // an ERC721 (quantity 1): one
    expect(fillableUnits(params(1n, 7n), 1n)).toEqual([1n]);
    expect(chooseUnits([1n, 2n, 3n], 0)).toBe(1n);
    expect(chooseUnits([1n, 2n, 3n], 0.999)).toBe(3n);
    expect(chooseUnits([], 0.5)).toBeUndefined();
  });
});

describe('held-item offers', () => {
  it('near the floor without a better offer: 85–97 % of it, a multiple of the price step', () => {
    for (const u of [0, 0.25, 0.5, 0.999]) {
      const p = heldOfferPrice(FLOOR, undefined, u, 0.5);
      expect(p % PRICE_STEP).toBe(0n);
      expect(p).toBeGreaterThanOrEqual((FLOOR * 85n) / 100n - PRICE_STEP);
      expect(p).toBeLessThan((FLOOR * 97n) / 100n);
    }
    expect(heldOfferPrice(FLOOR, undefined, 0.9, 0)).toBeGreaterThan(
      heldOfferPrice(FLOOR, undefined, 0.1, 0),
    );
    // a lower best offer changes nothing
    expect(heldOfferPrice(FLOOR, FLOOR / 2n, 0.5, 0.5)).toBe(heldOfferPrice(FLOOR, undefined, 0.5, 0.5));
  });

  it('outbids a better offer by 0.5–3 % (at least a step), never above the floor', () => {
    const best = (FLOOR * 90n) / 100n;
    const p = heldOfferPrice(FLOOR, best, 0, 0.5);
    expect(p).toBeGreaterThan(best);
    expect(p).toBeLessThanOrEqual((best * 1035n) / 1000n);
    expect(heldOfferPrice(FLOOR, (FLOOR * 99n) / 100n, 0, 1)).toBe(FLOOR);
    expect(heldOfferPrice(FLOOR, FLOOR * 2n, 0, 0)).toBe(FLOOR);
    // tiny floors still bid one step
    expect(heldOfferPrice(1n, undefined, 0.5, 0.5)).toBe(PRICE_STEP);
  });

  it('targets are items non-simulated wallets hold, once per token, without ignored holders', () => {
    const zero = '0x0000000000000000000000000000000000000000';
    const items = heldItems(
      [
        { slug: 'apes', tokenId: 1n, owner: SIM_A },
        { slug: 'apes', tokenId: 2n, owner: OURS.toUpperCase() },
        { slug: 'items', tokenId: 1n, owner: OURS },
        { slug: 'items', tokenId: 1n, owner: '0x00000000000000000000000000000000000000dd' },
        { slug: 'apes', tokenId: 3n, owner: zero },
      ],
      simulated,
      new Set([zero]),
    );
    expect(items.map((i) => `${i.slug}:${i.tokenId}`)).toEqual(['apes:2', 'items:1']);
  });
});

describe('taker ticks', () => {
  it('a pure function of (seed, tick): same draws for the same seed, other draws for another', () => {
    const s = DEFAULT_TRADER_SETTINGS;
    const run = (seed: number) => Array.from({ length: 50 }, (_, n) => planTakerTick(seed, n, s));
    expect(run(7)).toEqual(run(7));
    expect(run(8)).not.toEqual(run(7));
    expect(planTakerTick(7, 30, s)).toEqual(run(7)[30]);
  });

  it('the rates decide how often; the other draws do not depend on the settings; off is off', () => {
    const n = 4000;
    const ticks = (settings: typeof DEFAULT_TRADER_SETTINGS) =>
      Array.from({ length: n }, (_, i) => planTakerTick(3, i, settings));
    const on = ticks({ ...DEFAULT_TRADER_SETTINGS, listingTakerRate: 0.25, heldItemOfferRate: 0.5 });
    expect(Math.abs(on.filter((t) => t.take).length / n - 0.25)).toBeLessThan(0.03);
    expect(Math.abs(on.filter((t) => t.offer).length / n - 0.5)).toBeLessThan(0.03);
    const off = ticks({
      ...DEFAULT_TRADER_SETTINGS,
      enabled: false,
      listingTakerRate: 1,
      heldItemOfferRate: 1,
    });
    expect(off.some((t) => t.take || t.offer)).toBe(false);
    expect(off.map((t) => [t.takerU, t.unitsU, t.priceU])).toEqual(
      on.map((t) => [t.takerU, t.unitsU, t.priceU]),
    );
    const zero = ticks({ ...DEFAULT_TRADER_SETTINGS, listingTakerRate: 0, heldItemOfferRate: 0 });
    expect(zero.some((t) => t.take || t.offer)).toBe(false);
  });

  it('defaults: on, a modest rate, a 5 % premium', () => {
    expect(DEFAULT_TRADER_SETTINGS).toEqual({
      enabled: true,
      listingTakerRate: 0.2,
      premiumBps: 500,
      heldItemOfferRate: 0.1,
    });
  });
});
