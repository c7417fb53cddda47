import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { execute } from '../market/helpers.ts';
import { type Answer, call, listOnBook, obj, rows, startSandbox } from './helpers.ts';

/**
 * The read surface a trader's tools use beyond orders and market data, against a whole sandbox:
 * tokens (trending, top, one, batch) with figures from real swaps, search, accounts, collection
 * lists and batches — every body valid against the official document, bad input → 400, fixed
 * words never taken for a slug. (TOON: test/integration/sandbox/server/toon.test.ts; batch reads
 * metered as reads: test/unit/sandbox/server/discovery-routes.test.ts.)
 */

let sb: Sandbox;
const APES = 'harpoon-apes';
const wallet = (i: number) => sb.fixture.wallets[i] as Wallet;

function ok(method: string, template: string, a: Answer): Record<string, unknown> {
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  expectValidResponse(method, template, 200, a.body);
  return obj(a);
}

function bad(method: string, template: string, a: Answer, reason: RegExp): void {
  expect(a.status, JSON.stringify(a.body)).toBe(400);
  expectValidResponse(method, template, 400, a.body);
  expect((obj(a)['errors'] as string[]).join(' | ')).toMatch(reason);
}

const symbols = (a: Answer, path = 'tokens') => rows(a.body, path).map((t) => t['symbol']);
const tokenBy = (a: Answer, symbol: string) => rows(a.body, 'tokens').find((t) => t['symbol'] === symbol);

beforeAll(async () => {
  sb = await startSandbox(11);
}, 240_000);

afterAll(async () => {
  await sb?.close();
});

describe('tokens', () => {
  const TOP = '/api/v2/tokens/top';
  const TRENDING = '/api/v2/tokens/trending';
  const ONE = '/api/v2/chain/{chain}/token/{address}';

  it('list the sandbox tokens with valid bodies; pages by cursor; limit and sort checked', async () => {
    const all = ok('GET', TOP, await call(sb, 'GET', TOP));
    expect((all['tokens'] as unknown[]).length).toBe(sb.tokens.length + 1); // ETH + WETH + venue tokens
    ok('GET', TRENDING, await call(sb, 'GET', TRENDING));
    const p1 = ok('GET', TOP, await call(sb, 'GET', `${TOP}?limit=2`));
    expect((p1['tokens'] as unknown[]).length).toBe(2);
    const p2 = ok('GET', TOP, await call(sb, 'GET', `${TOP}?limit=2&cursor=${p1['next']}`));
    const seen = [...(p1['tokens'] as { symbol: string }[]), ...(p2['tokens'] as { symbol: string }[])];
    expect(new Set(seen.map((t) => t.symbol)).size).toBe(seen.length);
    // a cursor is only valid for the query that produced it
    bad('GET', TOP, await call(sb, 'GET', `${TOP}?limit=2&sort_by=price&cursor=${p1['next']}`), /cursor/);
    bad('GET', TOP, await call(sb, 'GET', `${TOP}?limit=101`), /limit/);
    bad('GET', TRENDING, await call(sb, 'GET', `${TRENDING}?limit=0`), /limit/);
    bad('GET', TOP, await call(sb, 'GET', `${TOP}?sort_by=volume`), /sort_by/);
    bad('GET', TOP, await call(sb, 'GET', `${TOP}?sort_direction=up`), /sort_direction/);
    bad('GET', TOP, await call(sb, 'GET', `${TOP}?chains=mars`), /chains/);
    expect(ok('GET', TOP, await call(sb, 'GET', `${TOP}?chains=base`))['tokens']).toEqual([]);
    const byPrice = await call(sb, 'GET', `${TOP}?sort_by=price&sort_direction=asc`);
    const prices = rows(byPrice.body, 'tokens').map((t) => Number(t['usd_price']));
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
  });

  it('a real swap moves volume, rank and price change (ETH → USDC)', async () => {
    const before = await call(sb, 'GET', TOP);
    expect(tokenBy(before, 'USDC')?.['volume_24h']).toBe(0);
    const sender = wallet(0);
    const usdc = sb.tokens.find((t) => t.symbol === 'USDC')?.address as string;
    const q = await call(
      sb,
      'GET',
      `/api/v2/swap/quote?from_chain=ethereum&from_address=0x0000000000000000000000000000000000000000&to_chain=ethereum&to_address=${usdc}&quantity=${10n ** 19n}&address=${sender.address}`,
    );
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    for (const tx of rows(q.body, 'transactions')) {
      const sent = await sender.sendTransaction({
        to: String(tx['to']),
        data: String(tx['data']),
        value: BigInt(String(tx['value'])),
      });
      await sent.wait();
    }
    const after = await call(sb, 'GET', TOP);
    ok('GET', TOP, after);
    const usdcVolume = Number(tokenBy(after, 'USDC')?.['volume_24h']);
    // 10 ETH at about 3000 USD
    expect(usdcVolume).toBeGreaterThan(25_000);
    expect(usdcVolume).toBeLessThan(31_000);
    expect(tokenBy(after, 'HRP')?.['volume_24h']).toBe(0);
    expect(symbols(after).indexOf('USDC')).toBeLessThan(symbols(after).indexOf('HRP'));
    // the last hour's volume is the trending score: HRP (no swaps) is last
    const trending = await call(sb, 'GET', TRENDING);
    expect(symbols(trending).at(-1)).toBe('HRP');
    // buying USDC with ETH makes ETH cheaper in dollars
    const weth = ok('GET', ONE, await call(sb, 'GET', `/api/v2/chain/ethereum/token/${sb.weth}`));
    expect((weth['stats'] as Record<string, number>)['price_change_24h']).toBeLessThan(0);
    expect((weth['stats'] as Record<string, number>)['volume_24h']).toBeGreaterThan(25_000);
  });

  it('one token: 400 malformed, 404 unknown; native ETH by the zero address', async () => {
    const eth = ok('GET', ONE, await call(sb, 'GET', `/api/v2/chain/ethereum/token/${'0x'.padEnd(42, '0')}`));
    expect(eth['symbol']).toBe('ETH');
    bad('GET', ONE, await call(sb, 'GET', '/api/v2/chain/ethereum/token/0x1234'), /address/);
    bad('GET', ONE, await call(sb, 'GET', `/api/v2/chain/mars/token/${sb.weth}`), /chain/);
    const unknown = await call(sb, 'GET', `/api/v2/chain/ethereum/token/${Wallet.createRandom().address}`);
    expect(unknown.status).toBe(404);
    expectValidResponse('GET', ONE, 404, unknown.body);
  });

  it('batch: known tokens in request order, others left out; malformed entries are 400', async () => {
    const B = '/api/v2/tokens/batch';
    const hrp = sb.tokens.find((t) => t.symbol === 'HRP')?.address as string;
    const r = ok(
      'POST',
      B,
      await call(sb, 'POST', B, {
        contracts: [
          { chain: 'ethereum', address: hrp },
          { chain: 'base', address: sb.weth },
          { chain: 'ethereum', address: Wallet.createRandom().address },
          { chain: 'ethereum', address: sb.weth },
        ],
      }),
    );
    expect((r['tokens'] as { symbol: string }[]).map((t) => t.symbol)).toEqual(['HRP', 'WETH']);
    bad('POST', B, await call(sb, 'POST', B, {}), /contracts/);
    bad('POST', B, await call(sb, 'POST', B, { contracts: [] }), /contracts/);
    bad(
      'POST',
      B,
      await call(sb, 'POST', B, { contracts: [{ chain: 'mars', address: 'x' }] }),
      /chain.*\| .*address/,
    );
  });
});

describe('search', () => {
  const S = '/api/v2/search';
  const search = (q: string) => call(sb, 'GET', `${S}?${q}`);
  const types = (a: Answer) => rows(a.body, 'results').map((r) => r['type']);

  it('collections and tokens by default, ranked by relevance', async () => {
    const r = ok('GET', S, await search('query=Harpoon%20Apes'));
    const first = (r['results'] as Record<string, Record<string, unknown>>[])[0];
    expect(first?.['collection']?.['collection']).toBe(APES);
    expect(types(await search('query=harpoon'))).not.toContain('nft');
    const usdc = ok('GET', S, await search('query=usdc'));
    expect((usdc['results'] as Record<string, Record<string, unknown>>[])[0]?.['token']?.['symbol']).toBe(
      'USDC',
    );
  });

  it('NFTs and accounts when asked; limit; no match is an empty list', async () => {
    const nft = ok('GET', S, await search('query=Harpoon%20Apes%20%231&asset_types=nft&limit=3'));
    const hits = nft['results'] as Record<string, Record<string, unknown>>[];
    expect(hits.length).toBe(3);
    expect(hits[0]?.['nft']).toMatchObject({ collection: APES, identifier: '1' });
    expect(hits.slice(1).map((x) => String(x['nft']?.['identifier']))).toEqual(['10', '11']);
    const acct = ok('GET', S, await search('query=wallet-2&asset_types=account'));
    expect((acct['results'] as Record<string, Record<string, unknown>>[])[0]?.['account']).toMatchObject({
      address: wallet(1).address.toLowerCase(),
      username: 'wallet-2',
    });
    expect(
      ok('GET', S, await search('query=zzzqqq&asset_types=collection,nft,token,account'))['results'],
    ).toEqual([]);
    expect(ok('GET', S, await search('query=harpoon&chains=base'))['results']).toEqual([]);
  });

  it('400: missing query, unknown asset type or chain, limit out of range', async () => {
    bad('GET', S, await search(''), /query/);
    bad('GET', S, await search('query=%20'), /query/);
    bad('GET', S, await search('query=a&asset_types=planet'), /asset_types/);
    bad('GET', S, await search('query=a&chains=mars'), /chains/);
    bad('GET', S, await search('query=a&limit=51'), /limit/);
  });
});

describe('accounts', () => {
  const A = '/api/v2/accounts/{address_or_username}';
  const R = '/api/v2/accounts/resolve/{identifier}';

  it('by address (any address) or by the sandbox wallets usernames; resolve both ways', async () => {
    const w = wallet(2);
    const byAddress = ok('GET', A, await call(sb, 'GET', `/api/v2/accounts/${w.address}`));
    expect(byAddress).toMatchObject({ address: w.address.toLowerCase(), username: 'wallet-3' });
    const byName = ok('GET', A, await call(sb, 'GET', '/api/v2/accounts/wallet-3'));
    expect(byName['address']).toBe(w.address.toLowerCase());
    const stranger = Wallet.createRandom().address;
    const s = ok('GET', A, await call(sb, 'GET', `/api/v2/accounts/${stranger}`));
    expect(s['address']).toBe(stranger.toLowerCase());
    expect(s['username']).toBeUndefined();
    const resolved = ok('GET', R, await call(sb, 'GET', '/api/v2/accounts/resolve/sandbox-operator'));
    expect(resolved['address']).toBe(sb.catalog.collections()[0]?.owner);
    expect(
      ok('GET', R, await call(sb, 'GET', `/api/v2/accounts/resolve/${w.address.toLowerCase()}`)),
    ).toEqual({
      address: w.address,
      username: 'wallet-3',
    });
  });

  it('404 unknown username or ENS name; 400 malformed', async () => {
    for (const [template, path] of [
      [A, '/api/v2/accounts/nobody-here'],
      [R, '/api/v2/accounts/resolve/vitalik.eth'],
    ] as const) {
      const r = await call(sb, 'GET', path);
      expect(r.status).toBe(404);
      expectValidResponse('GET', template, 404, r.body);
    }
    bad('GET', A, await call(sb, 'GET', '/api/v2/accounts/0x1234'), /address/);
    bad('GET', R, await call(sb, 'GET', '/api/v2/accounts/resolve/not%20a%20name'), /identifier/);
  });
});

describe('collection lists and batches', () => {
  const TRENDING = '/api/v2/collections/trending';
  const TOP = '/api/v2/collections/top';
  const CB = '/api/v2/collections/batch';
  const NB = '/api/v2/nfts/batch';
  const slugs = (a: Answer) => rows(a.body, 'collections').map((c) => c['collection']);

  it('fixed words are routes of their own, never a {slug}', async () => {
    ok('GET', TRENDING, await call(sb, 'GET', TRENDING));
    ok('GET', TOP, await call(sb, 'GET', TOP));
    // a POST-only word answers 405 on GET, not "collection 'batch' not found"
    const getBatch = await call(sb, 'GET', CB);
    expect(getBatch.status).toBe(405);
    expect(getBatch.headers.get('allow')).toBe('POST');
    // and a real slug still reaches the collection
    const c = await call(sb, 'GET', `/api/v2/collections/${APES}`);
    expect(c.status).toBe(200);
    expect(obj(c)['collection']).toBe(APES);
    expect((await call(sb, 'GET', '/api/v2/collections/trending-nope')).status).toBe(404);
  });

  it('a sale puts its collection first in trending and top; paging, category, chains, 400s', async () => {
    // sell harpoon-apes #4 (owner: wallet 3) to wallet 1 through the book
    const hash = await listOnBook(sb, wallet(3), APES, 4n, 10n ** 17n);
    const ful = await call(sb, 'POST', '/api/v2/listings/fulfillment_data', {
      listing: { hash, chain: 'ethereum', protocol_address: sb.seaport },
      fulfiller: { address: wallet(1).address },
    });
    expect(ful.status, JSON.stringify(ful.body)).toBe(200);
    await execute(wallet(1), ful.body as never);
    await sb.market.sync();

    const trending = await call(sb, 'GET', `${TRENDING}?timeframe=one_hour`);
    ok('GET', TRENDING, trending);
    expect(slugs(trending)[0]).toBe(APES);
    const total = slugs(trending).length;
    expect(total).toBe(sb.catalog.collections().length + sb.drops.length);
    const top = await call(sb, 'GET', `${TOP}?sort_by=total_sales`);
    ok('GET', TOP, top);
    expect(slugs(top)[0]).toBe(APES);
    const p1 = ok('GET', TOP, await call(sb, 'GET', `${TOP}?limit=1`));
    expect(slugs({ ...trending, body: p1 })).toEqual([APES]);
    const p2 = ok('GET', TOP, await call(sb, 'GET', `${TOP}?limit=100&cursor=${p1['next']}`));
    expect(slugs({ ...trending, body: p2 })).not.toContain(APES);
    expect(slugs({ ...trending, body: p2 }).length).toBe(total - 1);
    const art = await call(sb, 'GET', `${TRENDING}?category=art`);
    expect(rows(art.body, 'collections').every((c) => c['category'] === 'art')).toBe(true);
    expect(slugs(art)).not.toContain(APES);
    // unknown chain names are ignored unless all are
    expect(slugs(await call(sb, 'GET', `${TRENDING}?chains=mars,ethereum`)).length).toBe(total);
    expect(slugs(await call(sb, 'GET', `${TRENDING}?chains=base`))).toEqual([]);
    bad('GET', TRENDING, await call(sb, 'GET', `${TRENDING}?chains=mars`), /chains/);
    bad('GET', TRENDING, await call(sb, 'GET', `${TRENDING}?timeframe=forever`), /timeframe/);
    bad('GET', TOP, await call(sb, 'GET', `${TOP}?sort_by=coolness`), /sort_by/);
    bad('GET', TOP, await call(sb, 'GET', `${TOP}?limit=500`), /limit/);
  });

  it('collections batch: known slugs in request order; 400 for a malformed body', async () => {
    const r = ok('POST', CB, await call(sb, 'POST', CB, { slugs: ['harpoon-punks', 'no-such', APES] }));
    expect(slugs({ status: 200, headers: new Headers(), body: r })).toEqual(['harpoon-punks', APES]);
    bad('POST', CB, await call(sb, 'POST', CB, { slugs: 'x' }), /slugs/);
    bad('POST', CB, await call(sb, 'POST', CB, { slugs: [''] }), /slugs\[0\]/);
    bad('POST', CB, await call(sb, 'POST', CB, '{not json'), /JSON/);
  });

  it('NFTs batch: owners from the chain; unknown ids left out; each malformed entry named', async () => {
    const contract = sb.catalog.bySlug(APES)?.contract as string;
    const r = ok(
      'POST',
      NB,
      await call(sb, 'POST', NB, {
        identifiers: [
          { chain: 'ethereum', contract_address: contract, token_id: '4' },
          { chain: 'ethereum', contract_address: contract, token_id: '999999' },
          { chain: 'ethereum', contract_address: Wallet.createRandom().address, token_id: '1' },
        ],
      }),
    );
    const nfts = r['nfts'] as Record<string, unknown>[];
    expect(nfts.map((n) => n['identifier'])).toEqual(['4']);
    // sold to wallet 1 above
    expect(nfts[0]?.['owners']).toEqual([
      { address: wallet(1).address.toLowerCase(), quantity: 1, quantity_string: '1' },
    ]);
    bad(
      'POST',
      NB,
      await call(sb, 'POST', NB, {
        identifiers: [{ chain: 'ethereum', contract_address: contract, token_id: 'x' }],
      }),
      /identifiers\[0\]\.token_id/,
    );
  });
});
