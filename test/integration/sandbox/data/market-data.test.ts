import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Contract, formatUnits, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { expectSchema, expectValidResponse, responseSchemaOf } from '../../../helpers/openapi.ts';
import {
  approveNft,
  execute,
  listingParameters,
  type MarketHarness,
  sign,
  transferNft,
  wait,
} from '../market/helpers.ts';
import { type Answer, at, call, harnessOf, obj, rows, startSandbox } from './helpers.ts';

/**
 * Market data against a whole sandbox: chains, collections, stats, traits, trait floors (every
 * rule of the spec, and equal to an independent computation from the book and the external
 * store), NFTs with owners from the chain, balances, payment tokens, contracts, metadata.
 */

let sb: Sandbox;
let h: MarketHarness;
const ETH = 10n ** 18n;
const milli = (n: number) => (BigInt(n) * ETH) / 1000n;

const APES = 'harpoon-apes';
const PUNKS = 'harpoon-punks';
const ITEMS = 'harpoon-items';
const contractOf = (slug: string) => h.coll(slug).contract;
const wallet = (i: number) => sb.fixture.wallets[i] as Wallet;
/** Owner of ERC721 `id` after the fixture's round-robin mint over 5 wallets. */
const mintedOwner = (id: number) => wallet((id - 1) % 5);

/** A documented error status is checked against the operation; others against the error wrapper. */
function expectError(method: string, template: string, a: Answer, status: number, reason?: RegExp) {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  let documented = true;
  try {
    responseSchemaOf(method, template, status);
  } catch {
    documented = false;
  }
  if (documented) expectValidResponse(method, template, status, a.body);
  else expectSchema('V1ErrorWrapper', a.body);
  if (reason) expect((obj(a)['errors'] as string[]).join(' ')).toMatch(reason);
}

async function postListing(slug: string, tokenId: number, price: bigint, currency: 'ETH' | 'WETH' = 'ETH') {
  const seller = mintedOwner(tokenId);
  const parameters = await listingParameters(h, seller, { slug, tokenId: BigInt(tokenId), price, currency });
  const signature = await sign(h, seller, parameters);
  const r = await call(sb, 'POST', '/api/v2/orders/ethereum/seaport/listings', {
    parameters,
    signature,
    protocol_address: sb.seaport,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return obj(r)['order_hash'] as string;
}

interface Point {
  id: string;
  symbol: string;
  decimals: number;
  unit: bigint;
}

/** Every active listing of the sandbox's book (over HTTP, all pages). */
async function bookPoints(slug: string): Promise<Point[]> {
  const out: Point[] = [];
  let next: string | undefined;
  do {
    const r = await call(
      sb,
      'GET',
      `/api/v2/listings/collection/${slug}/all?limit=200${next ? `&next=${encodeURIComponent(next)}` : ''}`,
    );
    expect(r.status).toBe(200);
    for (const l of rows(r.body, 'listings')) {
      out.push({
        id: String(at(l, 'asset.identifier')),
        symbol: String(at(l, 'price.current.currency')),
        decimals: Number(at(l, 'price.current.decimals')),
        unit: BigInt(String(at(l, 'price.current.value'))) / BigInt(Number(l['remaining_quantity'])),
      });
    }
    next = obj(r)['next'] as string | undefined;
  } while (next);
  return out;
}

/** The other marketplaces' listings (admin hook). */
async function externalPoints(slug: string): Promise<Point[]> {
  const r = await call(sb, 'GET', `/_sandbox/external-listings?collection=${slug}`, undefined, null);
  expect(r.status).toBe(200);
  return rows(r.body, 'listings').map((l) => ({
    id: String(l['token_id']),
    symbol: String(l['payment_token_symbol']),
    decimals: Number(at(l, 'price.decimals')),
    unit: BigInt(String(at(l, 'price.value'))) / BigInt(Number(l['quantity'])),
  }));
}

interface Floor {
  trait_type: string;
  value: string;
  floor_price: number;
  payment_token_symbol: string;
}

/** The trait floors as the spec defines them, computed here from the book and the external store. */
async function expectedFloors(slug: string): Promise<Floor[]> {
  const points = [...(await bookPoints(slug)), ...(await externalPoints(slug))];
  const best = new Map<string, { t: string; v: string; p: Point }>();
  for (const p of points) {
    for (const t of sb.catalog.traits(slug, BigInt(p.id))) {
      if (t.display_type === 'number') continue;
      const k = `${t.trait_type}\u0000${t.value}\u0000${p.symbol}`;
      const had = best.get(k);
      if (!had || p.unit < had.p.unit) best.set(k, { t: t.trait_type, v: String(t.value), p });
    }
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...best.values()]
    .map((x) => ({
      trait_type: x.t,
      value: x.v,
      floor_price: Number(formatUnits(x.p.unit, x.p.decimals)),
      payment_token_symbol: x.p.symbol,
    }))
    .sort(
      (a, b) =>
        cmp(a.trait_type, b.trait_type) ||
        cmp(a.value, b.value) ||
        a.floor_price - b.floor_price ||
        cmp(a.payment_token_symbol, b.payment_token_symbol),
    );
}

async function floorsOf(slug: string): Promise<Floor[]> {
  const r = await call(sb, 'GET', `/api/v2/traits/${slug}/floors`);
  expect(r.status).toBe(200);
  expectValidResponse('GET', '/api/v2/traits/{slug}/floors', 200, r.body);
  expect(obj(r)['chain']).toBe('ethereum');
  return obj(r)['floors'] as Floor[];
}

async function statsOf(slug: string) {
  const r = await call(sb, 'GET', `/api/v2/collections/${slug}/stats`);
  expect(r.status).toBe(200);
  expectValidResponse('GET', '/api/v2/collections/{slug}/stats', 200, r.body);
  return r.body as {
    total: Record<string, number | string>;
    intervals: { interval: string; volume: number; volume_symbol: string; sales: number }[];
  };
}

const admin = (method: string, path: string, body?: unknown) => call(sb, method, path, body, null);

beforeAll(async () => {
  sb = await startSandbox(11);
  h = harnessOf(sb);
  for (let i = 0; i < 5; i++) {
    await approveNft(h, wallet(i), APES);
    await approveNft(h, wallet(i), PUNKS);
  }
  // The book of the apes: ETH and WETH listings; token 3 is also listed elsewhere (seeded).
  await postListing(APES, 1, milli(80));
  await postListing(APES, 2, milli(50));
  await postListing(APES, 3, milli(70), 'WETH');
  await postListing(APES, 4, milli(200));
  await postListing(APES, 6, milli(30), 'WETH');
  await postListing(APES, 7, milli(60));
  await postListing(APES, 9, milli(45));
  // punks: two ETH listings
  await postListing(PUNKS, 1, milli(300));
  await postListing(PUNKS, 4, milli(250));
}, 300_000);

afterAll(async () => {
  await sb?.close();
});

describe('chains, collections, contracts, payment tokens', () => {
  it('GET /api/v2/chains: the sandbox chain, with swaps', async () => {
    const r = await call(sb, 'GET', '/api/v2/chains');
    expectValidResponse('GET', '/api/v2/chains', 200, r.body);
    expect(obj(r)['chains']).toEqual([
      {
        chain: 'ethereum',
        name: 'Ethereum',
        symbol: 'ETH',
        supports_swaps: true,
        block_explorer: 'Etherscan',
        block_explorer_url: 'https://etherscan.io',
      },
    ]);
  });

  it('GET /api/v2/collections/{slug}: fees, contracts, pricing currencies, trait-offer support', async () => {
    const r = await call(sb, 'GET', `/api/v2/collections/${APES}`);
    expectValidResponse('GET', '/api/v2/collections/{slug}', 200, r.body);
    const c = h.coll(APES);
    expect(obj(r)).toMatchObject({
      collection: APES,
      name: 'Harpoon Apes',
      trait_offers_enabled: true,
      collection_offers_enabled: true,
      contracts: [{ address: c.contract.toLowerCase(), chain: 'ethereum' }],
      fees: c.fees.map((f) => ({ fee: f.fee, recipient: f.recipient.toLowerCase(), required: true })),
      total_supply: 60,
      owner: c.owner.toLowerCase(),
      pricing_currencies: {
        listing_currency: {
          symbol: 'ETH',
          address: '0x0000000000000000000000000000000000000000',
          decimals: 18,
        },
        offer_currency: { symbol: 'WETH', address: sb.weth.toLowerCase(), decimals: 18 },
      },
    });
    const punks = await call(sb, 'GET', `/api/v2/collections/${PUNKS}`);
    expect(obj(punks)['trait_offers_enabled']).toBe(false);
    const drop = await call(sb, 'GET', '/api/v2/collections/harpoon-genesis');
    expectValidResponse('GET', '/api/v2/collections/{slug}', 200, drop.body);
    expect(obj(drop)).toMatchObject({ collection: 'harpoon-genesis', trait_offers_enabled: false });
    expectError(
      'GET',
      '/api/v2/collections/{slug}',
      await call(sb, 'GET', '/api/v2/collections/nope'),
      404,
      /nope/,
    );
  });

  it('GET /api/v2/chain/{chain}/contract/{address}: NFT contracts of collections and drops', async () => {
    const r = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contractOf(ITEMS)}`);
    expectValidResponse('GET', '/api/v2/chain/{chain}/contract/{address}', 200, r.body);
    expect(obj(r)).toEqual({
      address: contractOf(ITEMS).toLowerCase(),
      chain: 'ethereum',
      collection: ITEMS,
      contract_standard: 'erc1155',
      name: 'Harpoon Items',
    });
    const drop = sb.fixture.drops[0]!;
    const d = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${drop.address.toLowerCase()}`);
    expect(obj(d)).toMatchObject({ collection: drop.slug, contract_standard: 'erc721' });
    const T = '/api/v2/chain/{chain}/contract/{address}';
    expectError('GET', T, await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${sb.weth}`), 404);
    expectError('GET', T, await call(sb, 'GET', '/api/v2/chain/ethereum/contract/0x1234'), 400, /address/);
    expectError('GET', T, await call(sb, 'GET', `/api/v2/chain/mars/contract/${sb.weth}`), 400, /chain/);
    expectError(
      'GET',
      T,
      await call(sb, 'GET', `/api/v2/chain/base/contract/${contractOf(APES)}`),
      404,
      /base/,
    );
  });

  it('GET /api/v2/chain/{chain}/payment_token/{address}: ETH (both spellings), WETH, USDC priced from the pools', async () => {
    const T = '/api/v2/chain/{chain}/payment_token/{address}';
    const eth = await call(
      sb,
      'GET',
      '/api/v2/chain/ethereum/payment_token/0x0000000000000000000000000000000000000000',
    );
    expectValidResponse('GET', T, 200, eth.body);
    expect(obj(eth)).toMatchObject({ symbol: 'ETH', decimals: 18, eth_price: '1', usd_price: '3000' });
    const alias = await call(
      sb,
      'GET',
      '/api/v2/chain/ethereum/payment_token/0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE',
    );
    expect(obj(alias)['symbol']).toBe('ETH');
    const weth = await call(sb, 'GET', `/api/v2/chain/ethereum/payment_token/${sb.weth}`);
    expect(obj(weth)).toMatchObject({ symbol: 'WETH', address: sb.weth.toLowerCase(), usd_price: '3000' });
    const usdc = sb.fixture.uniswap!.tokens.find((t) => t.symbol === 'USDC')!;
    const u = await call(sb, 'GET', `/api/v2/chain/ethereum/payment_token/${usdc.address}`);
    expectValidResponse('GET', T, 200, u.body);
    expect(obj(u)).toMatchObject({ symbol: 'USDC', decimals: 6, usd_price: '1' });
    expect(Number(obj(u)['eth_price'])).toBeCloseTo(1 / 3000, 9);
    expectError(
      'GET',
      T,
      await call(sb, 'GET', `/api/v2/chain/ethereum/payment_token/${contractOf(APES)}`),
      404,
    );
    expectError('GET', T, await call(sb, 'GET', '/api/v2/chain/ethereum/payment_token/nope'), 400);
  });
});

describe('traits and trait floors', () => {
  it('GET /api/v2/traits/{slug}: categories and counts over the collection', async () => {
    const r = await call(sb, 'GET', `/api/v2/traits/${APES}`);
    expect(r.status).toBe(200);
    const body = r.body as {
      categories: Record<string, string>;
      counts: Record<string, Record<string, number>>;
    };
    const counts: Record<string, Record<string, number>> = {};
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let id = 1n; id <= 60n; id++) {
      for (const t of sb.catalog.traits(APES, id)) {
        if (t.display_type === 'number') {
          min = Math.min(min, t.value as number);
          max = Math.max(max, t.value as number);
        } else {
          counts[t.trait_type] ??= {};
          const m = counts[t.trait_type]!;
          m[t.value as string] = (m[t.value as string] ?? 0) + 1;
        }
      }
    }
    expect(body.categories).toEqual({
      Background: 'string',
      Eyes: 'string',
      Fur: 'string',
      Hat: 'string',
      Level: 'number',
    });
    expect(body.counts).toEqual({ ...counts, Level: { min, max } });
    for (const [name, byValue] of Object.entries(counts)) {
      expect(
        Object.values(byValue).reduce((a, b) => a + b, 0),
        name,
      ).toBe(60);
    }
    expectError('GET', '/api/v2/traits/{slug}', await call(sb, 'GET', '/api/v2/traits/nope'), 404);
  });

  it('equal the cheapest active listing per text trait value and currency over the book and the other marketplaces', async () => {
    const floors = await floorsOf(APES);
    expect(floors).toEqual(await expectedFloors(APES));
    expect(floors.length).toBeGreaterThan(5);
  });

  it('follow every rule: omission, order, one entry per currency, numeric traits excluded', async () => {
    const floors = await floorsOf(APES);
    // 4. numeric traits are not there
    expect(floors.some((f) => f.trait_type === 'Level')).toBe(false);
    // 2. values without an active listing are omitted
    const traits = (await call(sb, 'GET', `/api/v2/traits/${APES}`)).body as {
      counts: Record<string, Record<string, number>>;
      categories: Record<string, string>;
    };
    const listedIds = new Set(
      [...(await bookPoints(APES)), ...(await externalPoints(APES))].map((p) => p.id),
    );
    const unlisted: [string, string][] = [];
    for (const [type, cat] of Object.entries(traits.categories)) {
      if (cat !== 'string') continue;
      for (const value of Object.keys(traits.counts[type]!)) {
        const listed = [...listedIds].some((id) =>
          sb.catalog.traits(APES, BigInt(id)).some((t) => t.trait_type === type && t.value === value),
        );
        if (!listed) unlisted.push([type, value]);
      }
    }
    expect(unlisted.length).toBeGreaterThan(0);
    for (const [type, value] of unlisted) {
      expect(floors.some((f) => f.trait_type === type && f.value === value)).toBe(false);
    }
    // 3. ordered by trait type, then value, then price
    for (let i = 1; i < floors.length; i++) {
      const a = floors[i - 1]!;
      const b = floors[i]!;
      const order =
        a.trait_type < b.trait_type ||
        (a.trait_type === b.trait_type &&
          (a.value < b.value || (a.value === b.value && a.floor_price <= b.floor_price)));
      expect(order, `${JSON.stringify(a)} before ${JSON.stringify(b)}`).toBe(true);
    }
    // 6. a value listed in several currencies appears once per currency
    const groups = new Map<string, string[]>();
    for (const f of floors) {
      const k = `${f.trait_type}/${f.value}`;
      groups.set(k, [...(groups.get(k) ?? []), f.payment_token_symbol]);
    }
    for (const symbols of groups.values()) expect(new Set(symbols).size).toBe(symbols.length);
    const multi = [...groups.values()].filter((s) => s.length > 1);
    expect(multi.length).toBeGreaterThan(0);
    expect(new Set(floors.map((f) => f.payment_token_symbol))).toEqual(new Set(['ETH', 'WETH', 'USDC']));
  });

  it('an unlisted value appears once listed on another marketplace, and goes away when that listing does', async () => {
    const before = await floorsOf(APES);
    const listedIds = new Set(
      [...(await bookPoints(APES)), ...(await externalPoints(APES))].map((p) => p.id),
    );
    // a token whose Hat value nobody lists yet
    let target: { id: number; hat: string } | undefined;
    for (let id = 1; id <= 60 && !target; id++) {
      if (listedIds.has(String(id))) continue;
      const hat = sb.catalog.traits(APES, BigInt(id)).find((t) => t.trait_type === 'Hat')!.value as string;
      if (!before.some((f) => f.trait_type === 'Hat' && f.value === hat)) target = { id, hat };
    }
    expect(target, 'an unlisted Hat value').toBeDefined();
    const added = await admin('POST', '/_sandbox/external-listings', {
      collection: APES,
      token_id: String(target!.id),
      price: '0.5',
      currency: 'ETH',
      marketplace: 'blur',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const id = (obj(added)['listings'] as { id: string }[])[0]!.id;
    const during = await floorsOf(APES);
    expect(during).toContainEqual({
      trait_type: 'Hat',
      value: target!.hat,
      floor_price: 0.5,
      payment_token_symbol: 'ETH',
    });
    expect(during).toEqual(await expectedFloors(APES));
    // never fulfillable through this API: the book has no listing for that token
    const best = await call(sb, 'GET', `/api/v2/listings/collection/${APES}/nfts/${target!.id}/best`);
    expect(best.status).toBe(404);
    expect((await admin('DELETE', `/_sandbox/external-listings/${id}`)).status).toBe(200);
    expect((await admin('DELETE', `/_sandbox/external-listings/${id}`)).status).toBe(404);
    expect(await floorsOf(APES)).toEqual(before);
  });

  it('ERC1155 units: the floor is per unit; nothing listed → no floors', async () => {
    const floors = await floorsOf(ITEMS);
    expect(floors).toEqual(await expectedFloors(ITEMS));
    // the seeded 2 units of item 1 for 0.004 ETH → 0.002 per unit
    const item1 = sb.catalog.traits(ITEMS, 1n)[0]!;
    expect(floors).toContainEqual({
      trait_type: 'Rarity',
      value: item1.value,
      floor_price: 0.002,
      payment_token_symbol: 'ETH',
    });
  });
});

describe('stats', () => {
  it('floor_price is the min over the book and the other marketplaces (ETH basis)', async () => {
    const s = await statsOf(APES);
    const eth = [...(await bookPoints(APES)), ...(await externalPoints(APES))].filter(
      (p) => p.symbol === 'ETH',
    );
    let min = eth[0]!.unit;
    for (const p of eth) if (p.unit < min) min = p.unit;
    expect(s.total['floor_price']).toBe(Number(formatUnits(min, 18)));
    expect(s.total['floor_price_symbol']).toBe('ETH');
    expect(s.intervals.map((i) => i.interval)).toEqual(['one_day', 'seven_day', 'thirty_day']);
  });

  it('a listing on another marketplace below the fulfillable best puts floor_price below the best listing', async () => {
    expect((await admin('DELETE', `/_sandbox/external-listings?collection=${PUNKS}`)).status).toBe(200);
    const bestRes = await call(sb, 'GET', `/api/v2/listings/collection/${PUNKS}/best?limit=1`);
    const bestListing = rows(bestRes.body, 'listings')[0]!;
    const bestPrice = Number(formatUnits(BigInt(String(at(bestListing, 'price.current.value'))), 18));
    expect(bestPrice).toBe(0.25);
    expect((await statsOf(PUNKS)).total).toMatchObject({ floor_price: 0.25, floor_price_symbol: 'ETH' });

    const added = await admin('POST', '/_sandbox/external-listings', {
      collection: PUNKS,
      token_id: '7',
      amount: String(milli(120)),
      marketplace: 'looksrare',
    });
    expect(added.status).toBe(201);
    const stats = await statsOf(PUNKS);
    expect(stats.total['floor_price']).toBe(0.12);
    expect(stats.total['floor_price'] as number).toBeLessThan(bestPrice);
    // the best-listing endpoint serves only the sandbox's own book
    const bestAfter = await call(sb, 'GET', `/api/v2/listings/collection/${PUNKS}/best`);
    const prices = rows(bestAfter.body, 'listings').map((l) => at(l, 'price.current.value'));
    expect(prices).toEqual([String(milli(250)), String(milli(300))]);
    // trait floors share the basis: every text trait of token 7 is at most 0.12 ETH
    const floors = await floorsOf(PUNKS);
    for (const t of sb.catalog.traits(PUNKS, 7n)) {
      if (t.display_type === 'number') continue;
      const f = floors.find(
        (x) => x.trait_type === t.trait_type && x.value === t.value && x.payment_token_symbol === 'ETH',
      );
      expect(f?.floor_price).toBe(0.12);
    }
    expect((await admin('DELETE', `/_sandbox/external-listings?collection=${PUNKS}`)).body).toEqual({
      removed: 1,
    });
    expect((await statsOf(PUNKS)).total['floor_price']).toBe(0.25);
  });

  it('no listing anywhere: floor 0 with an empty symbol', async () => {
    const cleared = await admin('DELETE', `/_sandbox/external-listings?collection=${ITEMS}`);
    expect(obj(cleared)['removed']).toBeGreaterThan(0);
    expect((await statsOf(ITEMS)).total).toMatchObject({ floor_price: 0, floor_price_symbol: '' });
    expect(await floorsOf(ITEMS)).toEqual([]);
  });

  it('volume, sales and intervals from the sandbox activity; owners from the chain', async () => {
    const before = await statsOf(APES);
    expect(before.total).toMatchObject({ volume: 0, sales: 0, num_owners: 5 });
    // buy token 2 (0.05 ETH) through the book
    const buyer = wallet(3);
    const bestRes = await call(sb, 'GET', `/api/v2/listings/collection/${APES}/nfts/2/best`);
    const ful = await call(sb, 'POST', '/api/v2/listings/fulfillment_data', {
      listing: { hash: obj(bestRes)['order_hash'], chain: 'ethereum', protocol_address: sb.seaport },
      fulfiller: { address: buyer.address },
    });
    expect(ful.status, JSON.stringify(ful.body)).toBe(200);
    await execute(buyer, ful.body as never);
    await sb.market.sync();
    // and give token 60 to a new holder
    const stranger = Wallet.createRandom().address;
    await transferNft(h, mintedOwner(60), stranger, APES, 60n);

    const after = await statsOf(APES);
    expect(after.total).toMatchObject({ volume: 0.05, volume_symbol: 'ETH', sales: 1 });
    expect(after.intervals).toEqual([
      { interval: 'one_day', volume: 0.05, volume_symbol: 'ETH', sales: 1 },
      { interval: 'seven_day', volume: 0.05, volume_symbol: 'ETH', sales: 1 },
      { interval: 'thirty_day', volume: 0.05, volume_symbol: 'ETH', sales: 1 },
    ]);
    const nft = new Contract(
      contractOf(APES),
      ['function ownerOf(uint256) view returns (address)'],
      sb.fixture.provider,
    );
    const owners = new Set<string>();
    for (let id = 1n; id <= 60n; id++) owners.add(String(await nft.getFunction('ownerOf')(id)));
    expect(after.total['num_owners']).toBe(owners.size);
    expect(owners.size).toBe(6);
    // the sold listing left the floors
    expect(await floorsOf(APES)).toEqual(await expectedFloors(APES));
    expectError(
      'GET',
      '/api/v2/collections/{slug}/stats',
      await call(sb, 'GET', '/api/v2/collections/nope/stats'),
      404,
    );
  });
});

describe('NFTs', () => {
  const T = '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}';

  it('one NFT: traits from the catalog, owners from the chain (after transfers)', async () => {
    const nft = new Contract(
      contractOf(APES),
      ['function ownerOf(uint256) view returns (address)'],
      sb.fixture.provider,
    );
    for (const id of [2, 5, 60]) {
      const r = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contractOf(APES)}/nfts/${id}`);
      expectValidResponse('GET', T, 200, r.body);
      const n = obj(r)['nft'] as Record<string, unknown>;
      const owner = String(await nft.getFunction('ownerOf')(BigInt(id))).toLowerCase();
      expect(n['owners']).toEqual([{ address: owner, quantity: 1, quantity_string: '1' }]);
      expect(n).toMatchObject({ identifier: String(id), collection: APES, token_standard: 'erc721' });
      expect(n['traits']).toEqual(
        sb.catalog.traits(APES, BigInt(id)).map((t) => ({
          trait_type: t.trait_type,
          value: t.value,
          ...(t.display_type ? { display_type: t.display_type } : {}),
        })),
      );
    }
    // token 2 was bought by wallet 3
    const two = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contractOf(APES)}/nfts/2`);
    expect(at(two.body, 'nft.owners.0.address')).toBe(wallet(3).address.toLowerCase());
  });

  it('an ERC1155 item: every holder with its units', async () => {
    const r = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contractOf(ITEMS)}/nfts/3`);
    expectValidResponse('GET', T, 200, r.body);
    const owners = at(r.body, 'nft.owners') as { address: string; quantity: number }[];
    const c = new Contract(
      contractOf(ITEMS),
      ['function balanceOf(address,uint256) view returns (uint256)'],
      sb.fixture.provider,
    );
    expect(owners).toHaveLength(5);
    for (const o of owners) expect(BigInt(o.quantity)).toBe(await c.getFunction('balanceOf')(o.address, 3n));
  });

  it('errors: unknown token 404, bad identifier 400, bad chain 400, other chain 404, unknown contract 404', async () => {
    const a = contractOf(APES);
    expectError(
      'GET',
      T,
      await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${a}/nfts/61`),
      404,
      /not found/,
    );
    expectError(
      'GET',
      T,
      await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${a}/nfts/abc`),
      400,
      /identifier/,
    );
    expectError('GET', T, await call(sb, 'GET', `/api/v2/chain/mars/contract/${a}/nfts/1`), 400, /chain/);
    expectError('GET', T, await call(sb, 'GET', `/api/v2/chain/base/contract/${a}/nfts/1`), 404);
    const random = Wallet.createRandom().address;
    expectError('GET', T, await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${random}/nfts/1`), 404);
  });

  it('by collection: pages cover every token once; the traits filter matches the catalog', async () => {
    const T2 = '/api/v2/collection/{slug}/nfts';
    const seen: string[] = [];
    let next: string | undefined;
    let pages = 0;
    do {
      const r = await call(
        sb,
        'GET',
        `/api/v2/collection/${APES}/nfts?limit=25${next ? `&next=${next}` : ''}`,
      );
      expectValidResponse('GET', T2, 200, r.body);
      seen.push(...(obj(r)['nfts'] as { identifier: string }[]).map((n) => n.identifier));
      next = obj(r)['next'] as string | undefined;
      pages++;
    } while (next);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => String(i + 1)));
    const filter = encodeURIComponent(JSON.stringify([{ traitType: 'Hat', value: 'Crown' }]));
    const r = await call(sb, 'GET', `/api/v2/collection/${APES}/nfts?limit=200&traits=${filter}`);
    expectValidResponse('GET', T2, 200, r.body);
    expect((obj(r)['nfts'] as { identifier: string }[]).map((n) => n.identifier)).toEqual(
      sb.catalog.tokensMatching(APES, [{ type: 'Hat', value: 'Crown' }]).map(String),
    );
    expectError('GET', T2, await call(sb, 'GET', `/api/v2/collection/${APES}/nfts?limit=0`), 400, /limit/);
    expectError(
      'GET',
      T2,
      await call(sb, 'GET', `/api/v2/collection/${APES}/nfts?next=bogus`),
      400,
      /cursor/,
    );
    expectError('GET', T2, await call(sb, 'GET', '/api/v2/collection/nope/nfts'), 404);
  });

  it('by contract and by account (what the chain says the account holds)', async () => {
    const byContract = await call(
      sb,
      'GET',
      `/api/v2/chain/ethereum/contract/${contractOf(PUNKS)}/nfts?limit=200`,
    );
    expectValidResponse('GET', '/api/v2/chain/{chain}/contract/{address}/nfts', 200, byContract.body);
    expect((obj(byContract)['nfts'] as unknown[]).length).toBe(40);
    expectError(
      'GET',
      '/api/v2/chain/{chain}/contract/{address}/nfts',
      await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${sb.weth}/nfts`),
      400,
    );

    const T3 = '/api/v2/chain/{chain}/account/{address}/nfts';
    const who = wallet(3);
    const r = await call(
      sb,
      'GET',
      `/api/v2/chain/ethereum/account/${who.address}/nfts?collection=${APES}&limit=200`,
    );
    expectValidResponse('GET', T3, 200, r.body);
    const nft = new Contract(
      contractOf(APES),
      ['function ownerOf(uint256) view returns (address)'],
      sb.fixture.provider,
    );
    const owned: string[] = [];
    for (let id = 1n; id <= 60n; id++)
      if ((await nft.getFunction('ownerOf')(id)) === who.address) owned.push(String(id));
    expect((obj(r)['nfts'] as { identifier: string }[]).map((n) => n.identifier)).toEqual(owned);
    expect(owned).toContain('2'); // bought above
    const all = await call(sb, 'GET', `/api/v2/chain/ethereum/account/${who.address}/nfts?limit=200`);
    const collections = new Set((obj(all)['nfts'] as { collection: string }[]).map((n) => n.collection));
    expect(collections).toEqual(new Set([APES, PUNKS, ITEMS]));
    const nobody = await call(
      sb,
      'GET',
      `/api/v2/chain/ethereum/account/${Wallet.createRandom().address}/nfts`,
    );
    expect(obj(nobody)['nfts']).toEqual([]);
    expectError('GET', T3, await call(sb, 'GET', '/api/v2/chain/ethereum/account/0xabc/nfts'), 400);
  });
});

describe('token balances', () => {
  it('GET /api/v2/account/{address}/tokens: non-zero balances in display units with USD values', async () => {
    const w = wallet(1);
    const wethC = new Contract(sb.weth, ['function deposit() payable'], w);
    await wait(wethC.getFunction('deposit')({ value: 2n * ETH }));
    const T = '/api/v2/account/{address}/tokens';
    const r = await call(sb, 'GET', `/api/v2/account/${w.address}/tokens`);
    expectValidResponse('GET', T, 200, r.body);
    const balances = rows(r.body, 'token_balances');
    expect(balances.map((x) => x['symbol'])).toEqual(['ETH', 'WETH']); // by usd_value, descending
    const ethBal = await sb.fixture.provider.getBalance(w.address);
    expect(balances[0]).toMatchObject({
      quantity: formatUnits(ethBal, 18).replace(/\.0$/, ''),
      usd_price: '3000',
    });
    expect(balances[1]).toMatchObject({
      address: sb.weth.toLowerCase(),
      quantity: '2',
      decimals: 18,
      usd_value: '6000',
      chain: 'ethereum',
    });
    const p1 = await call(sb, 'GET', `/api/v2/account/${w.address}/tokens?limit=1&sort_direction=asc`);
    expectValidResponse('GET', T, 200, p1.body);
    expect(rows(p1.body, 'token_balances').map((x) => x['symbol'])).toEqual(['WETH']);
    const p2 = await call(
      sb,
      'GET',
      `/api/v2/account/${w.address}/tokens?limit=1&sort_direction=asc&cursor=${obj(p1)['next']}`,
    );
    expect(rows(p2.body, 'token_balances').map((x) => x['symbol'])).toEqual(['ETH']);
    expect(obj(p2)['next']).toBeUndefined();
    const other = await call(sb, 'GET', `/api/v2/account/${w.address}/tokens?chains=base`);
    expect(obj(other)['token_balances']).toEqual([]);
    expectError(
      'GET',
      T,
      await call(sb, 'GET', `/api/v2/account/${w.address}/tokens?limit=101`),
      400,
      /limit/,
    );
    expectError('GET', T, await call(sb, 'GET', `/api/v2/account/${w.address}/tokens?sort_by=cheapest`), 400);
    expectError('GET', T, await call(sb, 'GET', '/api/v2/account/bob/tokens'), 400);
  });
});

describe('metadata', () => {
  const V = '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/validate-metadata';
  const R = '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/refresh';

  it('validate-metadata fetches through the token URI and persists nothing', async () => {
    const path = `/api/v2/chain/ethereum/contract/${contractOf(APES)}/nfts/5`;
    const before = obj(await call(sb, 'GET', path))['nft'] as Record<string, unknown>;
    const events = sb.events.size;
    const r = await call(sb, 'POST', `${path}/validate-metadata`);
    expectValidResponse('POST', V, 200, r.body);
    expect(obj(r)).toMatchObject({
      assetIdentifier: { chain: 'ethereum', contractAddress: contractOf(APES).toLowerCase(), tokenId: '5' },
      tokenUri: `${sb.apiUrl}/metadata/${APES}/5`,
      metadata: { name: 'Harpoon Apes #5' },
    });
    expect(at(r.body, 'metadata.attributes')).toEqual(
      sb.catalog.traits(APES, 5n).map((t) => ({
        traitType: t.trait_type,
        value: String(t.value),
        ...(t.display_type ? { displayType: t.display_type } : {}),
      })),
    );
    expect(sb.events.size).toBe(events);
    expect(obj(await call(sb, 'GET', path))['nft']).toEqual(before);
    expectError(
      'POST',
      V,
      await call(sb, 'POST', `/api/v2/chain/ethereum/contract/${contractOf(APES)}/nfts/99/validate-metadata`),
      404,
    );
  });

  it('refresh is queued, re-reads the metadata from the token URI and takes over changed traits', async () => {
    const id = 5n;
    const current = sb.catalog.traits(APES, id);
    const hat = current.find((t) => t.trait_type === 'Hat')!.value as string;
    const newHat = hat === 'Halo' ? 'Crown' : 'Halo';
    // A metadata host of our own, serving token 5 with another Hat.
    const host: Server = createServer((req, res) => {
      const tokenId = (req.url ?? '').split('/').pop();
      const attributes = sb.catalog
        .traits(APES, BigInt(tokenId ?? '0'))
        .map((t) => ({ trait_type: t.trait_type, value: t.trait_type === 'Hat' ? newHat : t.value }));
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ name: `Ape ${tokenId}`, attributes }));
    });
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', () => r()));
    const port = (host.address() as AddressInfo).port;
    const ape = sb.fixture.collections.find((c) => c.slug === APES)!.contract;
    try {
      await wait(ape.getFunction('setBaseURI')(`http://127.0.0.1:${port}/m/`));
      const path = `/api/v2/chain/ethereum/contract/${contractOf(APES)}/nfts/${id}`;
      const before = at((await call(sb, 'GET', path)).body, 'nft.updated_at') as string;
      const events = sb.events.size;
      const r = await call(sb, 'POST', `${path}/refresh`);
      expect(r.status).toBe(200);
      expectValidResponse('POST', R, 200, r.body);
      expect(r.body).toMatch(/queued/);
      let nft = {} as { traits: { trait_type: string; value: unknown }[]; updated_at: string };
      for (let i = 0; i < 50; i++) {
        nft = obj(await call(sb, 'GET', path))['nft'] as typeof nft;
        if (nft.traits.some((t) => t.trait_type === 'Hat' && t.value === newHat)) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      expect(nft.traits).toContainEqual({ trait_type: 'Hat', value: newHat });
      expect(Date.parse(nft.updated_at)).toBeGreaterThan(Date.parse(before));
      const update = sb.events
        .all()
        .slice(events)
        .find((e) => e.kind === 'metadata_update');
      expect(update).toMatchObject({ collection: APES, nft: { identifier: '5' } });
      expectError(
        'POST',
        R,
        await call(sb, 'POST', `/api/v2/chain/ethereum/contract/${contractOf(APES)}/nfts/0/refresh`),
        404,
      );
      expectError(
        'POST',
        R,
        await call(sb, 'POST', `/api/v2/chain/ethereum/contract/${contractOf(APES)}/nfts/x/refresh`),
        400,
      );
    } finally {
      await wait(ape.getFunction('setBaseURI')(`${sb.apiUrl}/metadata/${APES}/`));
      host.close();
    }
  });

  it('collection refresh: the sandbox key (the owner) may; an instant key of anyone else may not', async () => {
    const r = await call(sb, 'POST', `/api/v2/collections/${APES}/refresh`);
    expect(r.status).toBe(200);
    expect(r.body).toMatch(/queued/);
    const key = obj(await call(sb, 'POST', '/api/v2/auth/keys', undefined, null))['api_key'] as string;
    const denied = await call(sb, 'POST', `/api/v2/collections/${APES}/refresh`, undefined, key);
    expect(denied.status).toBe(403);
    expectSchema('V1ErrorWrapper', denied.body);
    expect((await call(sb, 'POST', '/api/v2/collections/nope/refresh')).status).toBe(404);
    expect((await call(sb, 'POST', `/api/v2/collections/${APES}/refresh`, undefined, null)).status).toBe(401);
    await new Promise((res) => setTimeout(res, 200));
    expect(obj(await call(sb, 'GET', `/api/v2/collections/${APES}`))['name']).toBe('Harpoon Apes');
  });
});
