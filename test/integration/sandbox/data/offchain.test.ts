import { formatUnits } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { roomyLimits } from '../../limits.ts';
import { at, call, obj, rows } from './helpers.ts';

/**
 * The off-chain collection (`createSandbox({offchainCollection})`): items with deterministic
 * traits and other marketplaces' listings, only in the sandbox's data. The market-data endpoints
 * compute over all of them — checked here against an independent computation from the listings
 * the admin surface shows and the items' traits.
 */

const SLUG = 'harpoon-bench';
const ITEMS = 1500;
const LISTINGS = 900;
let sb: Sandbox;

beforeAll(async () => {
  sb = await createSandbox({
    seed: 23,
    wallets: 3,
    activity: 0,
    limits: roomyLimits(),
    offchainCollection: { items: ITEMS, listings: LISTINGS },
  });
}, 120_000);
afterAll(async () => {
  await sb?.close();
});

interface Ext {
  token_id: string;
  price: { value: string; decimals: number };
  payment_token_symbol: string;
}

describe('off-chain collection', () => {
  it('is a collection of the API with every item; nothing about it is on chain', async () => {
    expect(sb.offchain?.slug).toBe(SLUG);
    const c = await call(sb, 'GET', `/api/v2/collections/${SLUG}`);
    expect(c.status).toBe(200);
    expectValidResponse('GET', '/api/v2/collections/{slug}', 200, c.body);
    expect(obj(c)['total_supply']).toBe(ITEMS);
    const contract = sb.offchain?.contract as string;
    expect(await sb.fixture.provider.getCode(contract)).toBe('0x');
    const nft = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contract}/nfts/${ITEMS}`);
    expect(nft.status).toBe(200);
    expectValidResponse('GET', '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}', 200, nft.body);
    expect(at(nft.body, 'nft.traits')).toEqual(
      sb.offchain?.traits(BigInt(ITEMS)).map((t) => (t.display_type ? { ...t } : { ...t })),
    );
    expect(
      (await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contract}/nfts/${ITEMS + 1}`)).status,
    ).toBe(404);
    const page = await call(sb, 'GET', `/api/v2/collection/${SLUG}/nfts?limit=200`);
    expectValidResponse('GET', '/api/v2/collection/{slug}/nfts', 200, page.body);
    expect(rows(page.body, 'nfts')).toHaveLength(200);
    const meta = await call(sb, 'GET', `/metadata/${SLUG}/7`, undefined, null);
    expect(meta.status).toBe(200);
    expect((obj(meta)['attributes'] as unknown[]).length).toBe(sb.offchain?.traits(7n).length);
  });

  it('traits count every item', async () => {
    const r = await call(sb, 'GET', `/api/v2/traits/${SLUG}`);
    // (the document gives this operation no response schema: the shape is checked here)
    expect(Object.keys(obj(r)).sort()).toEqual(['categories', 'counts']);
    const counts = obj(r)['counts'] as Record<string, Record<string, number>>;
    const cats = obj(r)['categories'] as Record<string, string>;
    for (const [name, cat] of Object.entries(cats)) {
      if (cat !== 'string') continue;
      expect(
        Object.values(counts[name] ?? {}).reduce((a, b) => a + b, 0),
        name,
      ).toBe(ITEMS);
    }
  });

  it('trait floors: the cheapest listing per text trait value and currency, over all listings', async () => {
    const ext = rows(
      (await call(sb, 'GET', `/_sandbox/external-listings?collection=${SLUG}`, undefined, null)).body,
      'listings',
    ) as unknown as Ext[];
    expect(ext).toHaveLength(LISTINGS);
    const expected = new Map<string, bigint>();
    const decimals = new Map<string, number>();
    for (const l of ext) {
      for (const t of sb.offchain?.traits(BigInt(l.token_id)) ?? []) {
        if (t.display_type === 'number') continue;
        const k = `${t.trait_type}|${t.value}|${l.payment_token_symbol}`;
        const p = BigInt(l.price.value);
        const had = expected.get(k);
        if (had === undefined || p < had) expected.set(k, p);
        decimals.set(l.payment_token_symbol, l.price.decimals);
      }
    }
    const r = await call(sb, 'GET', `/api/v2/traits/${SLUG}/floors`);
    expect(r.status).toBe(200);
    expectValidResponse('GET', '/api/v2/traits/{slug}/floors', 200, r.body);
    const floors = rows(r.body, 'floors') as unknown as {
      trait_type: string;
      value: string;
      floor_price: number;
      payment_token_symbol: string;
    }[];
    expect(floors.length).toBe(expected.size);
    expect(new Set(floors.map((f) => f.payment_token_symbol))).toEqual(new Set(['ETH', 'WETH']));
    for (const f of floors) {
      const want = expected.get(`${f.trait_type}|${f.value}|${f.payment_token_symbol}`);
      expect(want, `${f.trait_type}=${f.value}`).toBeDefined();
      expect(f.floor_price).toBeCloseTo(
        Number(formatUnits(want as bigint, decimals.get(f.payment_token_symbol))),
        9,
      );
    }
    // a new cheaper listing moves the floor at the next request (nothing is cached)
    const target = floors[0];
    if (!target) throw new Error('no floors');
    let id = 0;
    for (let i = 1; i <= ITEMS; i++) {
      if (
        sb.offchain
          ?.traits(BigInt(i))
          .some((t) => t.trait_type === target.trait_type && String(t.value) === target.value)
      ) {
        id = i;
        break;
      }
    }
    const add = await call(
      sb,
      'POST',
      '/_sandbox/external-listings',
      { collection: SLUG, token_id: id, amount: '1000000000', currency: target.payment_token_symbol },
      null,
    );
    expect(add.status, JSON.stringify(add.body)).toBe(201);
    const after = rows(
      (await call(sb, 'GET', `/api/v2/traits/${SLUG}/floors`)).body,
      'floors',
    ) as typeof floors;
    expect(
      after.find(
        (f) =>
          f.trait_type === target.trait_type &&
          f.value === target.value &&
          f.payment_token_symbol === target.payment_token_symbol,
      )?.floor_price,
    ).toBeCloseTo(1e-9, 12);
  });
});
