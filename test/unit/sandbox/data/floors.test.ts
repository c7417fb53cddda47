import { describe, expect, it } from 'vitest';
import type { TokenTrait } from '../../../../src/sandbox/catalog/traits.ts';
import {
  bestPerItem,
  collectionFloor,
  type PricePoint,
  pointOfExternal,
  pointOfListing,
  traitFloors,
} from '../../../../src/sandbox/data/floors.ts';

const E18 = 10n ** 18n;
const milli = (n: number) => (BigInt(n) * E18) / 1000n;

const pt = (tokenId: string, symbol: string, unitPrice: bigint, decimals = 18): PricePoint => ({
  tokenId,
  symbol,
  decimals,
  unitPrice,
  source: 'sandbox',
});

/** Four tokens: text traits Color and Hat, numeric Level. */
const TRAITS: Record<string, TokenTrait[]> = {
  '1': [
    { trait_type: 'Color', value: 'Red' },
    { trait_type: 'Hat', value: 'Cap' },
    { trait_type: 'Level', value: 3, display_type: 'number' },
  ],
  '2': [
    { trait_type: 'Color', value: 'Blue' },
    { trait_type: 'Hat', value: 'Cap' },
    { trait_type: 'Level', value: 7, display_type: 'number' },
  ],
  '3': [
    { trait_type: 'Color', value: 'Red' },
    { trait_type: 'Hat', value: 'Crown' },
    { trait_type: 'Level', value: 1, display_type: 'number' },
  ],
  '4': [
    { trait_type: 'Color', value: 'Green' },
    { trait_type: 'Hat', value: 'Crown' },
    { trait_type: 'Level', value: 2, display_type: 'number' },
  ],
};
const traitsOf = (id: string) => TRAITS[id] ?? [];

describe('trait floors', () => {
  it('cheapest listing per text trait value and currency; unlisted values omitted; numeric excluded', () => {
    const floors = traitFloors(
      [
        pt('1', 'ETH', milli(50)),
        pt('1', 'ETH', milli(40)), // the item's best ETH listing
        pt('3', 'ETH', milli(45)),
        pt('2', 'WETH', milli(30)),
        pt('3', 'USDC', 120_000_000n, 6),
      ],
      traitsOf,
    );
    expect(floors).toEqual([
      { trait_type: 'Color', value: 'Blue', floor_price: 0.03, payment_token_symbol: 'WETH' },
      { trait_type: 'Color', value: 'Red', floor_price: 0.04, payment_token_symbol: 'ETH' },
      { trait_type: 'Color', value: 'Red', floor_price: 120, payment_token_symbol: 'USDC' },
      { trait_type: 'Hat', value: 'Cap', floor_price: 0.03, payment_token_symbol: 'WETH' },
      { trait_type: 'Hat', value: 'Cap', floor_price: 0.04, payment_token_symbol: 'ETH' },
      { trait_type: 'Hat', value: 'Crown', floor_price: 0.045, payment_token_symbol: 'ETH' },
      { trait_type: 'Hat', value: 'Crown', floor_price: 120, payment_token_symbol: 'USDC' },
    ]);
    // Green (token 4) has no listing; Level is numeric.
    expect(floors.some((f) => f.value === 'Green')).toBe(false);
    expect(floors.some((f) => f.trait_type === 'Level')).toBe(false);
  });

  it('orders by trait type, then value, then price (code-unit order, not insertion order)', () => {
    const floors = traitFloors(
      [pt('4', 'ETH', milli(9)), pt('2', 'ETH', milli(8)), pt('1', 'ETH', milli(7))],
      traitsOf,
    );
    const keys = floors.map((f) => `${f.trait_type}/${f.value}/${f.floor_price}`);
    expect(keys).toEqual([
      'Color/Blue/0.008',
      'Color/Green/0.009',
      'Color/Red/0.007',
      'Hat/Cap/0.007',
      'Hat/Crown/0.009',
    ]);
  });

  it('a trait declared numeric by the categories is excluded even when a token spells it as text', () => {
    const odd = (id: string): TokenTrait[] =>
      id === '1' ? [{ trait_type: 'Level', value: '3' }] : traitsOf(id);
    const floors = traitFloors([pt('1', 'ETH', 1n)], odd, new Map([['Level', 'number']]));
    expect(floors).toEqual([]);
    expect(traitFloors([pt('1', 'ETH', E18)], odd)).toEqual([
      { trait_type: 'Level', value: '3', floor_price: 1, payment_token_symbol: 'ETH' },
    ]);
  });

  it('nothing listed → no floors', () => {
    expect(traitFloors([], traitsOf)).toEqual([]);
  });
});

describe('price points', () => {
  it('a wire listing: unit price = remaining price / remaining quantity; inactive or malformed skipped', () => {
    expect(
      pointOfListing({
        price: { current: { currency: 'ETH', decimals: 18, value: '300' } },
        remaining_quantity: 3,
        asset: { identifier: '7' },
        status: 'ACTIVE',
      }),
    ).toEqual({ tokenId: '7', symbol: 'ETH', decimals: 18, unitPrice: 100n, source: 'sandbox' });
    expect(
      pointOfListing({
        price: { current: { currency: 'ETH', value: '1' } },
        asset: { identifier: '1' },
        status: 'FULFILLED',
      }),
    ).toBeUndefined();
    expect(pointOfListing({ price: { current: { currency: 'ETH', value: '1' } } })).toBeUndefined();
  });

  it('an external listing of several units', () => {
    const p = pointOfExternal({
      id: 'ext-1',
      marketplace: 'blur',
      collection: 'c',
      tokenId: '2',
      quantity: 4,
      price: 1000n,
      currency: { symbol: 'USDC', address: '0x1', decimals: 6 },
      createdAtMs: 0,
    });
    expect(p).toEqual({ tokenId: '2', symbol: 'USDC', decimals: 6, unitPrice: 250n, source: 'external' });
  });

  it('best per item keeps the cheapest per (token, currency)', () => {
    const best = bestPerItem([
      pt('1', 'ETH', 5n),
      pt('1', 'ETH', 3n),
      pt('1', 'WETH', 9n),
      pt('2', 'ETH', 4n),
    ]);
    expect([...best.entries()].map(([k, v]) => [k, v.unitPrice])).toEqual([
      ['1|ETH', 3n],
      ['1|WETH', 9n],
      ['2|ETH', 4n],
    ]);
  });
});

describe('collection floor', () => {
  it('is the cheapest ETH listing across sources when anything is listed in ETH', () => {
    const f = collectionFloor([
      pt('1', 'WETH', milli(1)),
      { ...pt('2', 'ETH', milli(30)), source: 'external' },
      pt('3', 'ETH', milli(35)),
      pt('4', 'USDC', 1n, 6),
    ]);
    expect(f).toEqual({ price: 0.03, symbol: 'ETH', source: 'external', tokenId: '2' });
  });

  it('falls back to WETH, then other symbols alphabetically; undefined when nothing is listed', () => {
    expect(collectionFloor([pt('1', 'USDC', 5_000_000n, 6), pt('2', 'WETH', milli(2))])?.symbol).toBe('WETH');
    expect(collectionFloor([pt('1', 'USDC', 5_000_000n, 6), pt('2', 'HRP', E18)])).toMatchObject({
      symbol: 'HRP',
      price: 1,
    });
    expect(collectionFloor([])).toBeUndefined();
  });
});
