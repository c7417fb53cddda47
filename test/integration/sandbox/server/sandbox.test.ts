import { Contract, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { SEAPORT_ABI } from '../../../../src/sandbox/market/seaport.ts';
import { LEGACY_RECORD_FIELDS } from '../../../helpers/legacy-events.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { approveNft, execute, listingParameters, type MarketHarness, sign } from '../market/helpers.ts';

/**
 * The whole sandbox through `createSandbox` on a real anvil: a key made over HTTP, a listing
 * signed by a dev wallet and posted over HTTP, fulfillment data fetched over HTTP and executed
 * on the chain, then the REST and legacy events of both, and the token metadata the chain points at.
 */

let sb: Sandbox;
let h: MarketHarness;

beforeAll(async () => {
  sb = await createSandbox({ seed: 5, wallets: 4 });
  h = {
    fx: sb.fixture,
    catalog: sb.catalog,
    events: sb.events,
    market: sb.market,
    seaport: new Contract(sb.seaport, SEAPORT_ABI as unknown as string[], sb.fixture.provider),
    weth: sb.weth,
    zone: sb.zone,
    coll(slug) {
      const c = sb.catalog.bySlug(slug);
      if (!c) throw new Error(`no collection ${slug}`);
      return c;
    },
    stop: () => sb.close(),
  };
}, 300_000);
afterAll(async () => {
  await sb?.close();
});

async function call(method: string, path: string, key?: string, body?: unknown) {
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers: {
      ...(key !== undefined ? { 'X-API-KEY': key } : {}),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe('createSandbox', () => {
  it('describes itself: URLs, chain, contracts, collections, a working key, funded wallets', async () => {
    expect(sb.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.streamUrl).toBe(`${sb.apiUrl.replace('http', 'ws')}/socket`);
    expect(sb.mcpUrl).toBe(`${sb.apiUrl}/mcp`);
    expect(sb.chain).toBe('ethereum');
    expect(sb.chainId).toBe(1);
    expect(Number(await sb.fixture.provider.send('eth_chainId', []))).toBe(1);
    for (const a of [sb.seaport, sb.zone, sb.weth])
      expect((await sb.fixture.provider.getCode(a)).length).toBeGreaterThan(2);
    expect(sb.conduitKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sb.collections.map((c) => [c.slug, c.standard])).toEqual([
      ['harpoon-apes', 'erc721'],
      ['harpoon-punks', 'erc721'],
      ['harpoon-items', 'erc1155'],
    ]);
    expect(sb.wallets).toHaveLength(4);
    expect(await sb.fixture.provider.getBalance(sb.wallets[0]!.address)).toBeGreaterThan(0n);
    expect((await call('GET', '/api/v2/events', sb.apiKey)).status).toBe(200);
    expect(JSON.parse(JSON.stringify(sb.info()))).toEqual({
      apiUrl: sb.apiUrl,
      streamUrl: sb.streamUrl,
      mcpUrl: sb.mcpUrl,
      rpcUrl: sb.rpcUrl,
      chain: 'ethereum',
      chainId: 1,
      seaport: sb.seaport,
      conduitKey: sb.conduitKey,
      zone: sb.zone,
      weth: sb.weth,
      collections: sb.collections,
      tokens: [
        { symbol: 'WETH', address: sb.weth, decimals: 18 },
        ...sb.fixture.uniswap!.tokens.map((t) => ({
          symbol: t.symbol,
          address: t.address,
          decimals: t.decimals,
        })),
      ],
      drops: ['harpoon-genesis', 'harpoon-future', 'harpoon-ended', 'harpoon-paused'],
      apiKey: sb.apiKey,
      wallets: sb.wallets,
    });
  });

  it('serves the metadata its token URIs point at', async () => {
    const apes = sb.collections[0]!;
    const nft = new Contract(
      apes.contract,
      ['function tokenURI(uint256) view returns (string)'],
      sb.fixture.provider,
    );
    const uri = (await nft.getFunction('tokenURI')(2n)) as string;
    expect(uri).toBe(`${sb.apiUrl}/metadata/harpoon-apes/2`);
    const meta = (await (await fetch(uri)).json()) as { name: string; attributes: unknown[] };
    expect(meta.name).toBe('Harpoon Apes #2');
    expect(meta.attributes).toHaveLength(sb.catalog.traits('harpoon-apes', 2n).length);
  });

  it('key over HTTP → listing posted → fulfilled on chain → REST and legacy events', async () => {
    const keyRes = await call('POST', '/api/v2/auth/keys');
    expect(keyRes.status).toBe(201);
    expectValidResponse('POST', '/api/v2/auth/keys', 201, keyRes.body);
    const key = keyRes.body['api_key'] as string;

    // token 1 of the apes belongs to wallet 0 (round-robin mint)
    const seller = sb.fixture.wallets[0] as Wallet;
    const buyer = sb.fixture.wallets[1] as Wallet;
    await approveNft(h, seller, 'harpoon-apes');
    const parameters = await listingParameters(h, seller, {
      slug: 'harpoon-apes',
      tokenId: 1n,
      price: 10n ** 17n,
    });
    const signature = await sign(h, seller, parameters);
    const posted = await call('POST', '/api/v2/orders/ethereum/seaport/listings', key, {
      parameters,
      signature,
      protocol_address: sb.seaport,
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    expectValidResponse('POST', '/api/v2/orders/{chain}/{protocol}/listings', 200, posted.body);
    const hash = posted.body['order_hash'] as string;
    expect(posted.body['listing']).toMatchObject({ order_hash: hash });
    expect(posted.body['order']).toBeTypeOf('object');

    const ful = await call('POST', '/api/v2/listings/fulfillment_data', key, {
      listing: { hash, chain: 'ethereum', protocol_address: sb.seaport },
      fulfiller: { address: buyer.address },
    });
    expect(ful.status, JSON.stringify(ful.body)).toBe(200);
    expectValidResponse('POST', '/api/v2/listings/fulfillment_data', 200, ful.body);
    const receipt = await execute(buyer, ful.body as never);
    await sb.market.sync();

    const all = await call('GET', '/api/v2/events/collection/harpoon-apes', key);
    expect(all.status).toBe(200);
    expectValidResponse('GET', '/api/v2/events/collection/{slug}', 200, all.body);
    // the chain watcher also records the NFT's transfer to the buyer
    expect(all.body['asset_events']).toContainEqual(
      expect.objectContaining({
        event_type: 'transfer',
        transaction: receipt.hash,
        from_address: seller.address.toLowerCase(),
        to_address: buyer.address.toLowerCase(),
      }),
    );
    const events = await call(
      'GET',
      '/api/v2/events/collection/harpoon-apes?event_type=sale&event_type=listing',
      key,
    );
    expectValidResponse('GET', '/api/v2/events/collection/{slug}', 200, events.body);
    const list = events.body['asset_events'] as Record<string, unknown>[];
    expect(list.map((e) => `${e['event_type']}/${e['order_type'] ?? ''}`)).toEqual([
      'sale/',
      'order/listing',
    ]);
    expect(list[0]).toMatchObject({
      transaction: receipt.hash,
      order_hash: hash,
      seller: seller.address.toLowerCase(),
      buyer: buyer.address.toLowerCase(),
    });

    const legacy = await call(
      'GET',
      '/api/v1/events/?collection_slug=harpoon-apes&event_type=successful&event_type=created',
      key,
    );
    expect(legacy.status).toBe(200);
    const recs = legacy.body['asset_events'] as Record<string, unknown>[];
    expect(recs.map((r) => r['event_type'])).toEqual(['successful', 'created']);
    for (const r of recs) expect(Object.keys(r)).toEqual([...LEGACY_RECORD_FIELDS]);
    expect(recs[0]?.['transaction']).toMatchObject({
      transaction_hash: receipt.hash,
      block_hash: receipt.blockHash,
      block_number: String(receipt.blockNumber),
      transaction_index: String(receipt.index),
    });
    expect(recs[0]?.['total_price']).toBe(String(10n ** 17n));

    const stats = (await call('GET', '/_sandbox/stats')).body;
    expect(stats).toMatchObject({
      market: { orders: 1, fills: 1 },
      streamAttached: true,
      stream: { connections: 0, refused: 0 },
    });
    expect((stats['events'] as { byType: Record<string, number> }).byType).toMatchObject({
      listing: 1,
      sale: 1,
    });
  });
});
