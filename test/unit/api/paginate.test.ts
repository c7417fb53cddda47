import { describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/client.ts';
import { paginateItems, paginatePages, readLegacyNext, readNext } from '../../../src/api/paginate.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import { RecordingTransport } from '../fakes/transport.ts';

const ADDR = '0x1111111111111111111111111111111111111111';
const SLUG = 'doodles-official';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function client(...pages: unknown[]) {
  const transport = new RecordingTransport().reply(...pages.map((data) => ({ data })));
  return { transport, api: createApiClient(transport) };
}

describe('three pages per convention', () => {
  it('`next` (v2 lists): request param next, response field next', async () => {
    const { transport, api } = client(
      { listings: [{ id: 1 }, { id: 2 }], next: 'p2' },
      { listings: [{ id: 3 }], next: 'p3' },
      { listings: [{ id: 4 }] },
    );
    const items = await collect(api.listings.iterateBest(SLUG, { limit: 2 }));
    expect(items).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
    expect(transport.calls.map((c) => c.query)).toEqual([
      { limit: 2 },
      { limit: 2, next: 'p2' },
      { limit: 2, next: 'p3' },
    ]);
    expect(new Set(transport.calls.map((c) => c.path))).toEqual(
      new Set([`/api/v2/listings/collection/${SLUG}/best`]),
    );
  });

  it('`cursor` (token lists): request param cursor, response field next', async () => {
    const { transport, api } = client(
      { tokens: [{ a: 1 }], next: 'c2' },
      { tokens: [{ a: 2 }], next: 'c3' },
      { tokens: [{ a: 3 }], next: null },
    );
    const items = await collect(api.tokens.iterateTrending({ chains: ['base'] }));
    expect(items).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(transport.calls.map((c) => c.query)).toEqual([
      { chains: ['base'] },
      { chains: ['base'], cursor: 'c2' },
      { chains: ['base'], cursor: 'c3' },
    ]);
    for (const c of transport.calls) expect(c.query).not.toHaveProperty('next');
  });

  it('`cursor.value` (legacy order lists): request param cursor.value; next/cursor-named response fields', async () => {
    const { transport, api } = client(
      { orders: [{ o: 1 }], next: 'v2', previous: null },
      { orders: [{ o: 2 }], cursor: { next: 'v3' } },
      { orders: [{ o: 3 }], next: null, previous: 'v2' },
    );
    const items = await collect(api.listings.iterateLegacyList('ethereum', { limit: 200 }));
    expect(items).toEqual([{ o: 1 }, { o: 2 }, { o: 3 }]);
    expect(transport.calls.map((c) => c.query)).toEqual([
      { limit: 200 },
      { limit: 200, 'cursor.value': 'v2' },
      { limit: 200, 'cursor.value': 'v3' },
    ]);
    expect(transport.calls.every((c) => c.deprecated !== undefined)).toBe(true);
  });

  it('`cursor.value` on the legacy offers list, with a plain `cursor` string in the response', async () => {
    const { transport, api } = client(
      { orders: [{ o: 1 }], cursor: 'w2' },
      { orders: [{ o: 2 }], next_cursor: 'w3' },
      { orders: [] },
    );
    const items = await collect(api.offers.iterateLegacyList('base', {}, { protocol: 'seaport' }));
    expect(items).toEqual([{ o: 1 }, { o: 2 }]);
    expect(transport.calls.map((c) => c.query?.['cursor.value'])).toEqual([undefined, 'w2', 'w3']);
    expect(transport.calls[0]?.path).toBe('/api/v2/orders/base/seaport/offers');
  });
});

describe('every iterate method is wired to its endpoint, items field and cursor param', () => {
  type Case = readonly [
    string,
    (api: ApiClient) => AsyncIterable<unknown>,
    string,
    'next' | 'cursor' | 'cursor.value',
    string,
  ];
  const cases: Case[] = [
    [
      'nfts.iterateByCollection',
      (a) => a.nfts.iterateByCollection(SLUG),
      'nfts',
      'next',
      `/api/v2/collection/${SLUG}/nfts`,
    ],
    [
      'nfts.iterateByContract',
      (a) => a.nfts.iterateByContract('base', ADDR),
      'nfts',
      'next',
      `/api/v2/chain/base/contract/${ADDR}/nfts`,
    ],
    [
      'nfts.iterateByAccount',
      (a) => a.nfts.iterateByAccount('base', ADDR),
      'nfts',
      'next',
      `/api/v2/chain/base/account/${ADDR}/nfts`,
    ],
    ['tokens.iterateTop', (a) => a.tokens.iterateTop(), 'tokens', 'cursor', '/api/v2/tokens/top'],
    [
      'tokens.iterateBalances',
      (a) => a.tokens.iterateBalances(ADDR),
      'token_balances',
      'cursor',
      `/api/v2/account/${ADDR}/tokens`,
    ],
    ['drops.iterate', (a) => a.drops.iterate(), 'drops', 'cursor', '/api/v2/drops'],
    [
      'listings.iterateAll',
      (a) => a.listings.iterateAll(SLUG),
      'listings',
      'next',
      `/api/v2/listings/collection/${SLUG}/all`,
    ],
    [
      'offers.iterateCollection',
      (a) => a.offers.iterateCollection(SLUG),
      'offers',
      'next',
      `/api/v2/offers/collection/${SLUG}`,
    ],
    [
      'offers.iterateTraits',
      (a) => a.offers.iterateTraits(SLUG),
      'offers',
      'next',
      `/api/v2/offers/collection/${SLUG}/traits`,
    ],
    [
      'offers.iterateItem',
      (a) => a.offers.iterateItem(SLUG, '7'),
      'offers',
      'next',
      `/api/v2/offers/collection/${SLUG}/nfts/7`,
    ],
    [
      'offers.iterateAll',
      (a) => a.offers.iterateAll(SLUG),
      'offers',
      'next',
      `/api/v2/offers/collection/${SLUG}/all`,
    ],
    ['events.iterate', (a) => a.events.iterate(), 'asset_events', 'next', '/api/v2/events'],
    [
      'events.iterateByCollection',
      (a) => a.events.iterateByCollection(SLUG),
      'asset_events',
      'next',
      `/api/v2/events/collection/${SLUG}`,
    ],
    [
      'events.iterateByNft',
      (a) => a.events.iterateByNft('ethereum', ADDR, '1'),
      'asset_events',
      'next',
      `/api/v2/events/chain/ethereum/contract/${ADDR}/nfts/1`,
    ],
    [
      'events.iterateByAccount',
      (a) => a.events.iterateByAccount(ADDR),
      'asset_events',
      'next',
      `/api/v2/events/accounts/${ADDR}`,
    ],
    ['events.iterateLegacy', (a) => a.events.iterateLegacy(), 'asset_events', 'cursor', '/api/v1/events/'],
  ];

  it.each(cases)('%s', async (_name, make, field, param, path) => {
    const { transport, api } = client({ [field]: ['x', 'y'], next: 'k2' }, { [field]: ['z'] });
    expect(await collect(make(api))).toEqual(['x', 'y', 'z']);
    expect(transport.calls.map((c) => c.path)).toEqual([path, path]);
    expect(transport.calls[0]?.query?.[param]).toBeUndefined();
    expect(transport.calls[1]?.query?.[param]).toBe('k2');
  });
});

describe('termination and guards', () => {
  it('keeps paging through an empty page that still has a cursor (drops)', async () => {
    const { transport, api } = client({ drops: [], next: 'd2' }, { drops: [{ slug: 'a' }] });
    expect(await collect(api.drops.iterate())).toEqual([{ slug: 'a' }]);
    expect(transport.calls).toHaveLength(2);
  });

  it('stops on an empty-string cursor', async () => {
    const { transport, api } = client({ offers: [1], next: '' }, { offers: [2] });
    expect(await collect(api.offers.iterateAll(SLUG))).toEqual([1]);
    expect(transport.calls).toHaveLength(1);
  });

  it('throws a clear error when the server repeats the same cursor', async () => {
    const { transport, api } = client(
      { listings: [1], next: 'same' },
      { listings: [2], next: 'same' },
      { listings: [3] },
    );
    const err = await collect(api.listings.iterateAll(SLUG)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectedError);
    expect(err).toMatchObject({ code: 'pagination_loop' });
    expect((err as Error).message).toContain('/api/v2/listings/collection/{slug}/all');
    expect((err as Error).message).toContain('"same"');
    expect(transport.calls).toHaveLength(2);
  });

  it('also catches a longer cycle (A → B → A)', async () => {
    const { transport, api } = client(
      { tokens: [1], next: 'A' },
      { tokens: [2], next: 'B' },
      { tokens: [3], next: 'A' },
      { tokens: [4] },
    );
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const t of api.tokens.iterateTop()) seen.push(t);
      })(),
    ).rejects.toMatchObject({ code: 'pagination_loop' });
    expect(seen).toEqual([1, 2, 3]);
    expect(transport.calls).toHaveLength(3);
  });

  it('maxPages stops early even when a cursor is present', async () => {
    const { transport, api } = client({ nfts: [1], next: 'n2' }, { nfts: [2], next: 'n3' }, { nfts: [3] });
    expect(await collect(api.nfts.iterateByCollection(SLUG, {}, { maxPages: 2 }))).toEqual([1, 2]);
    expect(transport.calls).toHaveLength(2);
  });

  it('an invalid maxPages is rejected at call time with no request', () => {
    const { transport, api } = client();
    expect(() => api.events.iterate({}, { maxPages: 0 })).toThrow(/maxPages/);
    expect(() => api.events.iterate({}, { maxPages: 1.5 })).toThrow(RejectedError);
    expect(transport.calls).toHaveLength(0);
  });

  it('invalid query arguments of an iterator fail at call time, before any request', () => {
    const { transport, api } = client();
    expect(() => api.listings.iterateBest('bad/slug')).toThrow(RejectedError);
    expect(() => api.tokens.iterateTrending({ limit: 101 })).toThrow(/limit/);
    expect(transport.calls).toHaveLength(0);
  });

  it('passes call options (priority, signal) to every page', async () => {
    const { transport, api } = client({ listings: [1], next: 'x' }, { listings: [2] });
    const signal = new AbortController().signal;
    await collect(api.listings.iterateBest(SLUG, {}, { priority: 5, signal, maxPages: 5 }));
    expect(transport.calls.map((c) => [c.priority, c.signal === signal])).toEqual([
      [5, true],
      [5, true],
    ]);
    expect(transport.calls[0]).not.toHaveProperty('maxPages');
  });

  it('an aborted signal stops before the next page', async () => {
    const ac = new AbortController();
    const { transport, api } = client({ listings: [1], next: 'x' }, { listings: [2] });
    const it = api.listings.iterateBest(SLUG, {}, { signal: ac.signal });
    expect((await it.next()).value).toBe(1);
    ac.abort();
    await expect(it.next()).rejects.toThrow();
    expect(transport.calls).toHaveLength(1);
  });
});

describe('paginate primitives', () => {
  it('readNext reads only `next`', () => {
    expect(readNext({ next: 'a' })).toBe('a');
    expect(readNext({ next: null })).toBeUndefined();
    expect(readNext({ cursor: 'a' })).toBeUndefined();
    expect(readNext(null)).toBeUndefined();
  });

  it('readLegacyNext reads next, next_cursor, cursor and cursor objects', () => {
    expect(readLegacyNext({ next: 'a', cursor: 'b' })).toBe('a');
    expect(readLegacyNext({ next_cursor: 'b' })).toBe('b');
    expect(readLegacyNext({ cursor: 'c' })).toBe('c');
    expect(readLegacyNext({ cursor: { next: 'd' } })).toBe('d');
    expect(readLegacyNext({ cursor: { value: 'e' } })).toBe('e');
    expect(readLegacyNext({ 'cursor.value': 'f' })).toBe('f');
    expect(readLegacyNext({ next: null, previous: 'p' })).toBeUndefined();
  });

  it('paginatePages starts from startCursor and treats it as seen', async () => {
    const fetched: (string | undefined)[] = [];
    const pages = { s: { next: 'a' }, a: { next: 's' } } as Record<string, { next?: string }>;
    const source = {
      endpoint: 'test',
      fetch: async (c: string | undefined) => {
        fetched.push(c);
        return pages[c ?? ''] ?? {};
      },
    };
    await expect(collect(paginatePages(source, { startCursor: 's' }))).rejects.toMatchObject({
      code: 'pagination_loop',
    });
    expect(fetched).toEqual(['s', 'a']);
  });

  it('paginateItems flattens pages with a custom next reader', async () => {
    type Page = { rows: number[]; more?: string };
    const data: Page[] = [{ rows: [1, 2], more: 'x' }, { rows: [3] }];
    let i = 0;
    const items = await collect(
      paginateItems({
        endpoint: 'custom',
        fetch: async () => data[i++] ?? { rows: [] },
        items: (p: Page) => p.rows,
        next: (p: Page) => p.more,
      }),
    );
    expect(items).toEqual([1, 2, 3]);
  });
});
