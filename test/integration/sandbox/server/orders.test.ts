import { afterEach, describe, expect, it } from 'vitest';
import { expectValidResponse, hasOperation } from '../../../helpers/openapi.ts';
import { FakeMarket, SEAPORT } from './fake-market.ts';
import { type Harness, startHarness } from './harness.ts';

/**
 * Order routes over HTTP with a fake Market: what the routes parse and pass on, and the wire
 * shape of their answers (OpenAPI-validated). The deprecated legacy lists are not in the OpenAPI
 * document; their query parsing and `{next, previous, orders}` wrapper are checked here.
 */

const KEY = 'orders-key';
let h: Harness | undefined;
let market: FakeMarket;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start() {
  market = new FakeMarket();
  h = await startHarness({ market, keys: [{ apiKey: KEY, account: 'trader' }] });
  return h;
}

const ORDER = {
  parameters: { offerer: '0x000000000000000000000000000000000000a11c', offer: [], consideration: [] },
  signature: '0x',
  protocol_address: SEAPORT,
};

describe('creating orders', () => {
  it('POST listings: the order itself plus the legacy `order` and the current `listing` field', async () => {
    const s = await start();
    const r = await s.call('POST', '/api/v2/orders/ethereum/seaport/listings', { key: KEY, body: ORDER });
    expect(r.status, r.text).toBe(200);
    expectValidResponse('POST', '/api/v2/orders/{chain}/{protocol}/listings', 200, r.body);
    const body = r.body as Record<string, unknown>;
    expectValidResponse(
      'GET',
      '/api/v2/listings/collection/{slug}/nfts/{identifier}/best',
      200,
      body['listing'],
    );
    expect(body['listing']).toMatchObject({ order_hash: body['order_hash'], status: 'ACTIVE' });
    expect(body['order']).toMatchObject({
      order_hash: body['order_hash'],
      side: 'ask',
      current_price: '1000000000000000',
    });
    expect(market.callsOf('createOrder')[0]?.args).toEqual(['listing', 'ethereum', 'seaport', ORDER]);
  });

  it('POST offers: `offer` field; POST /offers (criteria) and /offers/build pass the body through', async () => {
    const s = await start();
    const r = await s.call('POST', '/api/v2/orders/ethereum/seaport/offers', { key: KEY, body: ORDER });
    expectValidResponse('POST', '/api/v2/orders/{chain}/{protocol}/offers', 200, r.body);
    expect((r.body as Record<string, unknown>)['offer']).toMatchObject({ status: 'ACTIVE' });
    expect((r.body as { order: { side: string } }).order.side).toBe('bid');
    const crit = {
      protocol_data: { parameters: {}, signature: '0x' },
      criteria: { collection: { slug: 'harpoon-apes' } },
    };
    const c = await s.call('POST', '/api/v2/offers', { key: KEY, body: crit });
    expectValidResponse('POST', '/api/v2/offers', 200, c.body);
    expect(market.callsOf('createCriteriaOffer')[0]?.args).toEqual([crit]);
    const b = await s.call('POST', '/api/v2/offers/build', {
      key: KEY,
      body: { offerer: '0xabc', quantity: 1 },
    });
    expectValidResponse('POST', '/api/v2/offers/build', 200, b.body);
  });

  it('bad bodies: malformed JSON, non-object, missing parameters, too large → 400/413 {"errors"}', async () => {
    const s = await start();
    const path = '/api/v2/orders/ethereum/seaport/listings';
    const bad = await s.call('POST', path, { key: KEY, rawBody: '{"parameters": ' });
    expect(bad.status).toBe(400);
    expectValidResponse('POST', '/api/v2/orders/{chain}/{protocol}/listings', 400, bad.body);
    expect((bad.body as { errors: string[] }).errors[0]).toMatch(/Invalid JSON/);
    expect((await s.call('POST', path, { key: KEY, body: [1, 2] })).status).toBe(400);
    expect((await s.call('POST', path, { key: KEY, body: { signature: '0x' } })).status).toBe(400);
    const big = await s.call('POST', path, {
      key: KEY,
      rawBody: JSON.stringify({ parameters: { x: 'a'.repeat(1_100_000) } }),
    });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ errors: [expect.stringMatching(/too large/)] });
    // the market's HttpError comes back as is
    const chain = await s.call('POST', '/api/v2/orders/solana/seaport/listings', { key: KEY, body: ORDER });
    expect(chain.status).toBe(400);
    expect(chain.body).toEqual({ errors: ['Unsupported chain solana'] });
    expect(market.callsOf('createOrder')).toHaveLength(1);
  });
});

describe('reading orders', () => {
  it('GET one order → {order}; unknown → 404', async () => {
    const s = await start();
    const created = await s.call('POST', '/api/v2/orders/ethereum/seaport/listings', {
      key: KEY,
      body: ORDER,
    });
    const hash = (created.body as { order_hash: string }).order_hash;
    const T = '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}';
    const r = await s.call('GET', `/api/v2/orders/chain/ethereum/protocol/${SEAPORT}/${hash}`, { key: KEY });
    expect(r.status).toBe(200);
    expectValidResponse('GET', T, 200, r.body);
    expect((r.body as { order: { order_hash: string } }).order.order_hash).toBe(hash);
    const nf = await s.call('GET', `/api/v2/orders/chain/ethereum/protocol/${SEAPORT}/0x${'ee'.repeat(32)}`, {
      key: KEY,
    });
    expect(nf.status).toBe(404);
  });

  it('collection-based lists answer {listings|offers, next?} and parse limit, next, maker, traits', async () => {
    const s = await start();
    for (let i = 0; i < 3; i++) {
      await s.call('POST', '/api/v2/orders/ethereum/seaport/listings', { key: KEY, body: ORDER });
      await s.call('POST', '/api/v2/orders/ethereum/seaport/offers', { key: KEY, body: ORDER });
    }
    const best = await s.call('GET', '/api/v2/listings/collection/harpoon-apes/best?limit=2', { key: KEY });
    expectValidResponse('GET', '/api/v2/listings/collection/{slug}/best', 200, best.body);
    const b = best.body as { listings: unknown[]; next?: string };
    expect(b.listings).toHaveLength(2);
    expect(b.next).toEqual(expect.any(String));
    const rest = await s.call(
      'GET',
      `/api/v2/listings/collection/harpoon-apes/best?limit=2&next=${b.next}&include_private_listings=true`,
      { key: KEY },
    );
    expect((rest.body as { listings: unknown[]; next?: string }).listings).toHaveLength(1);
    expect((rest.body as { next?: string }).next).toBeUndefined();
    const traits = JSON.stringify([{ traitType: 'Fur', value: 'Zombie' }]);
    await s.call(
      'GET',
      `/api/v2/listings/collection/harpoon-apes/best?traits=${encodeURIComponent(traits)}`,
      { key: KEY },
    );
    expect(market.callsOf('bestListings').map((c) => c.args[1])).toEqual([
      { limit: 2 },
      { limit: 2, next: b.next, include_private_listings: true },
      { traits: [{ traitType: 'Fur', value: 'Zombie' }] },
    ]);

    const all = await s.call('GET', '/api/v2/listings/collection/harpoon-apes/all?maker=0xabc', { key: KEY });
    expectValidResponse('GET', '/api/v2/listings/collection/{slug}/all', 200, all.body);
    expect(market.callsOf('allListings')[0]?.args).toEqual(['harpoon-apes', { maker: '0xabc' }]);

    for (const [path, template] of [
      ['/api/v2/offers/collection/harpoon-apes', '/api/v2/offers/collection/{slug}'],
      ['/api/v2/offers/collection/harpoon-apes/all?maker=0xb0b', '/api/v2/offers/collection/{slug}/all'],
      [
        '/api/v2/offers/collection/harpoon-apes/traits?type=Fur&value=Zombie',
        '/api/v2/offers/collection/{slug}/traits',
      ],
      ['/api/v2/offers/collection/harpoon-apes/nfts/3', '/api/v2/offers/collection/{slug}/nfts/{identifier}'],
    ] as const) {
      const r = await s.call('GET', path, { key: KEY });
      expect(r.status, path).toBe(200);
      expectValidResponse('GET', template, 200, r.body);
      expect((r.body as { offers: unknown[] }).offers).toHaveLength(3);
    }
    expect(market.callsOf('traitOffers')[0]?.args).toEqual([
      'harpoon-apes',
      { type: 'Fur', value: 'Zombie' },
    ]);
    expect(market.callsOf('allOffers')[0]?.args).toEqual(['harpoon-apes', { maker: '0xb0b' }]);
    expect(market.callsOf('itemOffers')[0]?.args).toEqual(['harpoon-apes', '3', {}]);

    for (const q of ['limit=0', 'limit=201', 'include_private_listings=maybe', 'traits=notjson']) {
      const r = await s.call('GET', `/api/v2/listings/collection/harpoon-apes/best?${q}`, { key: KEY });
      expect(r.status, q).toBe(400);
      expectValidResponse('GET', '/api/v2/listings/collection/{slug}/best', 400, r.body);
    }
  });

  it('best listing / offer of one NFT is a bare order; 404 when none', async () => {
    const s = await start();
    const T = '/api/v2/listings/collection/{slug}/nfts/{identifier}/best';
    const none = await s.call('GET', '/api/v2/listings/collection/harpoon-apes/nfts/1/best', { key: KEY });
    expect(none.status).toBe(404);
    expectValidResponse('GET', T, 404, none.body);
    await s.call('POST', '/api/v2/orders/ethereum/seaport/listings', { key: KEY, body: ORDER });
    const one = await s.call('GET', '/api/v2/listings/collection/harpoon-apes/nfts/1/best', { key: KEY });
    expect(one.status).toBe(200);
    expectValidResponse('GET', T, 200, one.body);
    expect(one.body).not.toHaveProperty('listings');
    await s.call('POST', '/api/v2/orders/ethereum/seaport/offers', { key: KEY, body: ORDER });
    const offer = await s.call('GET', '/api/v2/offers/collection/harpoon-apes/nfts/1/best', { key: KEY });
    expectValidResponse('GET', '/api/v2/offers/collection/{slug}/nfts/{identifier}/best', 200, offer.body);
  });

  it('deprecated legacy lists parse their filters (repeated token_ids, limit 1-200, cursor.value)', async () => {
    const s = await start();
    expect(hasOperation('GET', '/api/v2/orders/{chain}/{protocol}/listings')).toBe(false);
    const r = await s.call(
      'GET',
      `/api/v2/orders/ethereum/seaport/listings?asset_contract_address=0x11&token_ids=1&token_ids=2&token_ids=3&maker=0xa&order_by=created_at&order_direction=asc&include_private_listings=true&limit=50&cursor.value=abc&listed_after=2025-01-01T00:00:00Z`,
      { key: KEY },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      next: 'cursor-2',
      previous: null,
      orders: [{ order_hash: expect.any(String), side: 'listing' }],
    });
    expect(market.callsOf('legacyOrders')[0]?.args).toEqual([
      'listing',
      'ethereum',
      'seaport',
      {
        asset_contract_address: '0x11',
        token_ids: ['1', '2', '3'],
        maker: '0xa',
        listed_after: '2025-01-01T00:00:00Z',
        order_by: 'created_at',
        order_direction: 'asc',
        include_private_listings: true,
        limit: 50,
        'cursor.value': 'abc',
      },
    ]);
    await s.call(
      'GET',
      '/api/v2/orders/ethereum/seaport/offers?payment_token_address=0xweth&order_by=price',
      { key: KEY },
    );
    expect(market.callsOf('legacyOrders')[1]?.args[3]).toEqual({
      payment_token_address: '0xweth',
      order_by: 'price',
    });
    for (const q of [
      'limit=0',
      'limit=201',
      'order_by=size',
      'order_direction=up',
      'token_ids=abc',
      'listed_before=never',
    ]) {
      const bad = await s.call('GET', `/api/v2/orders/ethereum/seaport/offers?${q}`, { key: KEY });
      expect(bad.status, q).toBe(400);
      expect(bad.body).toEqual({ errors: [expect.any(String)] });
    }
    expect(market.callsOf('legacyOrders')).toHaveLength(2);
  });
});

describe('fulfillment and cancel', () => {
  it('fulfillment_data for listings and offers; a 400 from the market keeps its extra body', async () => {
    const s = await start();
    const body = {
      listing: { hash: '0x01', chain: 'ethereum', protocol_address: SEAPORT },
      fulfiller: { address: '0xb0b' },
    };
    const r = await s.call('POST', '/api/v2/listings/fulfillment_data', { key: KEY, body });
    expect(r.status).toBe(200);
    expectValidResponse('POST', '/api/v2/listings/fulfillment_data', 200, r.body);
    expect(market.callsOf('fulfillmentData')[0]?.args).toEqual(['listing', body]);
    const bad = await s.call('POST', '/api/v2/offers/fulfillment_data', { key: KEY, body: { offer: {} } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ protocol: 'seaport', errors: ['offer.hash is required'] });
  });

  it('cancel passes path, body (or {} when empty) and the caller account', async () => {
    const s = await start();
    const path = `/api/v2/orders/chain/ethereum/protocol/${SEAPORT}/0x${'aa'.repeat(32)}/cancel`;
    const r = await s.call('POST', path, { key: KEY });
    expect(r.status).toBe(200);
    expectValidResponse(
      'POST',
      '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel',
      200,
      r.body,
    );
    await s.call('POST', path, { key: KEY, body: { offererSignature: '0x12' } });
    expect(market.callsOf('cancel').map((c) => c.args)).toEqual([
      ['ethereum', SEAPORT, `0x${'aa'.repeat(32)}`, {}, 'trader'],
      ['ethereum', SEAPORT, `0x${'aa'.repeat(32)}`, { offererSignature: '0x12' }, 'trader'],
    ]);
  });

  it('without a market the order routes answer 503 {"errors"} (and are still metered)', async () => {
    h = await startHarness({ keys: [{ apiKey: KEY, account: 'trader' }] });
    const r = await h.call('GET', '/api/v2/listings/collection/harpoon-apes/best', { key: KEY });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ errors: [expect.stringMatching(/market/)] });
    expect(r.headers.get('x-ratelimit-limit')).toBe('600');
  });

  it('a wrong method is 405 with Allow', async () => {
    const s = await start();
    const r = await s.call('DELETE', '/api/v2/offers/build', { key: KEY });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
  });
});
