import { describe, expect, it } from 'vitest';
import { Catalog, COLLECTION_SPECS } from '../../../../src/sandbox/catalog/catalog.ts';
import { ETH_TOKEN, type TokenInfo } from '../../../../src/sandbox/data/currencies.ts';
import {
  EXTERNAL_SEEDS,
  ExternalListings,
  parseExternalListingInput,
  renderExternalListing,
  seedExternalListings,
} from '../../../../src/sandbox/data/external.ts';
import { HttpError } from '../../../../src/sandbox/errors.ts';

const catalog = new Catalog(
  1,
  COLLECTION_SPECS.map((c, i) => ({
    ...c,
    contract: `0x${String(i + 1).padStart(40, '0')}`,
    owner: `0x${'a'.repeat(40)}`,
    fees: [],
  })),
);
const USDC: TokenInfo = {
  symbol: 'USDC',
  name: 'USD Coin',
  decimals: 6,
  address: `0x${'c'.repeat(40)}`,
  native: false,
};
const WETH: TokenInfo = {
  symbol: 'WETH',
  name: 'Wrapped Ether',
  decimals: 18,
  address: `0x${'e'.repeat(40)}`,
  native: false,
};
const TOKENS = [ETH_TOKEN, WETH, USDC];

describe('external listings store', () => {
  it('adds with ids, lists unexpired ones per collection, removes and clears', () => {
    let now = 1_000;
    const s = new ExternalListings(() => now);
    const a = s.add({
      marketplace: 'blur',
      collection: 'x',
      tokenId: '1',
      quantity: 1,
      price: 5n,
      currency: { symbol: 'ETH', address: ETH_TOKEN.address, decimals: 18 },
      expiresAtMs: 2_000,
    });
    const b = s.add({ ...a, collection: 'y', expiresAtMs: undefined as never });
    expect([a.id, b.id]).toEqual(['ext-1', 'ext-2']);
    expect(a.createdAtMs).toBe(1_000);
    expect(s.active('x').map((l) => l.id)).toEqual(['ext-1']);
    expect(s.active().map((l) => l.id)).toEqual(['ext-1', 'ext-2']);
    now = 2_000; // expiry is exclusive
    expect(s.active().map((l) => l.id)).toEqual(['ext-2']);
    expect(s.remove('ext-2')).toBe(true);
    expect(s.remove('ext-2')).toBe(false);
    s.add({ ...a, expiresAtMs: 9_999 });
    s.add({ ...a, collection: 'y', expiresAtMs: 9_999 });
    expect(s.clear('x')).toBe(2); // the expired ext-1 and the new one
    expect(s.size).toBe(1);
    expect(s.clear()).toBe(1);
  });

  it('seeds: cheap ETH listings plus other currencies, only for existing collections and tokens', () => {
    const s = new ExternalListings();
    const n = seedExternalListings(s, catalog, TOKENS);
    expect(n).toBe(EXTERNAL_SEEDS.length);
    const symbols = new Set(s.active().map((l) => l.currency.symbol));
    expect(symbols).toEqual(new Set(['ETH', 'WETH', 'USDC']));
    const usdc = s.active('harpoon-apes').find((l) => l.currency.symbol === 'USDC');
    expect(usdc?.price).toBe(150_000_000n);
    // without USDC on the chain, USDC seeds are skipped
    expect(seedExternalListings(new ExternalListings(), catalog, [ETH_TOKEN, WETH])).toBe(
      EXTERNAL_SEEDS.filter((x) => x.currency !== 'USDC').length,
    );
  });
});

describe('external listing admin input', () => {
  const parse = (b: unknown) => parseExternalListingInput(b, catalog, TOKENS);
  const fails = (b: unknown) => {
    try {
      parse(b);
    } catch (e) {
      expect(e).toBeInstanceOf(HttpError);
      expect((e as HttpError).status).toBe(400);
      return (e as HttpError).reasons.join();
    }
    throw new Error('expected 400');
  };

  it('price in display units or amount in smallest units; currency by symbol or address', () => {
    expect(parse({ collection: 'harpoon-apes', token_id: '5', price: '0.05' })).toMatchObject({
      tokenId: '5',
      price: 50_000_000_000_000_000n,
      currency: { symbol: 'ETH', decimals: 18 },
      quantity: 1,
      marketplace: 'external',
    });
    expect(
      parse({
        collection: 'harpoon-apes',
        token_id: 5,
        amount: '1234',
        currency: USDC.address.toUpperCase().replace('0X', '0x'),
      }),
    ).toMatchObject({ price: 1234n, currency: { symbol: 'USDC', decimals: 6 } });
    expect(
      parse({
        collection: 'harpoon-items',
        token_id: '2',
        price: 3,
        quantity: 3,
        currency: 'weth',
        expires_at: 1_900_000_000,
      }),
    ).toMatchObject({
      quantity: 3,
      price: 3n * 10n ** 18n,
      currency: { symbol: 'WETH' },
      expiresAtMs: 1_900_000_000_000,
    });
  });

  it('rejects unknown collections, tokens, currencies and bad prices', () => {
    expect(fails({ collection: 'nope', token_id: '1', price: '1' })).toMatch(/unknown slug/);
    expect(fails({ collection: 'harpoon-apes', token_id: '61', price: '1' })).toMatch(/has no token 61/);
    expect(fails({ collection: 'harpoon-apes', token_id: '1', price: '1', currency: 'DOGE' })).toMatch(
      /currency/,
    );
    expect(fails({ collection: 'harpoon-apes', token_id: '1' })).toMatch(/exactly one/);
    expect(fails({ collection: 'harpoon-apes', token_id: '1', price: '1', amount: '1' })).toMatch(
      /exactly one/,
    );
    expect(fails({ collection: 'harpoon-apes', token_id: '1', price: '0' })).toMatch(/positive/);
    expect(
      fails({ collection: 'harpoon-apes', token_id: '1', price: '0.0000001', currency: 'USDC' }),
    ).toMatch(/decimals/);
    expect(fails({ collection: 'harpoon-apes', token_id: '1', price: '1', quantity: 2 })).toMatch(/ERC721/);
    expect(fails('x')).toMatch(/JSON object/);
  });

  it('renders with the payment token symbol and a wire price', () => {
    const s = new ExternalListings(() => 5_000);
    const l = s.add(parse({ collection: 'harpoon-apes', token_id: '5', price: '0.05', marketplace: 'blur' }));
    expect(renderExternalListing(l)).toEqual({
      id: 'ext-1',
      marketplace: 'blur',
      collection: 'harpoon-apes',
      token_id: '5',
      quantity: 1,
      price: { currency: 'ETH', decimals: 18, value: '50000000000000000' },
      payment_token_symbol: 'ETH',
      payment_token_address: '0x0000000000000000000000000000000000000000',
      created_at: 5,
      expires_at: null,
    });
  });
});
