import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog, type MarketEventInput } from '../../../../src/sandbox/events/log.ts';
import { LEGACY_RECORD_FIELDS } from '../../../helpers/legacy-events.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import {
  ALICE,
  APES,
  BOB,
  ITEMS,
  PUNKS,
  SAMPLE_EVENTS,
  sampleCatalog,
} from '../../../unit/sandbox/server/sample.ts';
import { type Harness, startHarness } from './harness.ts';

/**
 * The events endpoints over HTTP, against a real EventLog: filters, paging, 400/404, each page
 * validated against opensea-api.json. The legacy `GET /api/v1/events/` is not in the OpenAPI
 * document; its records are checked against the spec's "Legacy event record" field list here.
 */

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0); // each event 10 s after the previous one
const KEY = 'events-key';
let h: Harness;
let log: EventLog;
const txLookups: string[] = [];

// 2 rounds of the 8 sample events (cancel included: the REST endpoints must skip it) = 16 events
const SEQUENCE: MarketEventInput[] = [...Object.values(SAMPLE_EVENTS), ...Object.values(SAMPLE_EVENTS)];

beforeAll(async () => {
  let t = T0;
  log = new EventLog(() => t);
  for (const e of SEQUENCE) {
    log.append(e);
    t += 10_000;
  }
  h = await startHarness({
    events: log,
    catalog: sampleCatalog(),
    keys: [{ apiKey: KEY, account: 'tester' }],
    txInfo: async (hash) => {
      txLookups.push(hash);
      return { blockHash: `0x${'cd'.repeat(32)}`, transactionIndex: 2, from: BOB, to: APES };
    },
  });
});
afterAll(async () => {
  await h?.close();
});

type Page = { asset_events: Record<string, unknown>[]; next?: string };

async function get(path: string, template: string, status = 200): Promise<Page> {
  const r = await h.call('GET', path, { key: KEY });
  expect(r.status, `${path}: ${r.text}`).toBe(status);
  expectValidResponse('GET', template, status, r.body);
  return r.body as Page;
}

const EVENTS = '/api/v2/events';

describe('GET /api/v2/events', () => {
  it('serves every REST event newest first (cancels are stream-only)', async () => {
    const page = await get(`${EVENTS}?limit=200`, EVENTS);
    expect(page.asset_events).toHaveLength(14);
    expect(page.next).toBeUndefined();
    const ts = page.asset_events.map((e) => e['event_timestamp'] as number);
    expect([...ts].sort((a, b) => b - a)).toEqual(ts);
    expect(page.asset_events[0]).toMatchObject({ event_type: 'mint' });
    const types = new Set(page.asset_events.map((e) => `${e['event_type']}/${e['order_type'] ?? ''}`));
    expect(types).toEqual(
      new Set([
        'order/listing',
        'order/item_offer',
        'order/collection_offer',
        'order/trait_offer',
        'sale/',
        'transfer/',
        'mint/',
      ]),
    );
  });

  it('filters by repeated event_type (offer = item offers) and rejects unknown types with 400', async () => {
    const page = await get(`${EVENTS}?event_type=sale&event_type=offer`, EVENTS);
    expect(page.asset_events.map((e) => e['event_type'])).toEqual(['sale', 'order', 'sale', 'order']);
    expect(
      page.asset_events
        .filter((e) => e['event_type'] === 'order')
        .every((e) => e['order_type'] === 'item_offer'),
    ).toBe(true);
    const bad = await h.call('GET', `${EVENTS}?event_type=sale&event_type=cancel`, { key: KEY });
    expect(bad.status).toBe(400);
    expectValidResponse('GET', EVENTS, 400, bad.body);
    expect((bad.body as { errors: string[] }).errors[0]).toMatch(/event_type.*cancel/);
  });

  it('after/before are inclusive Unix seconds', async () => {
    const s = Math.floor(T0 / 1000);
    // events 3..5 (0-based) happened at s+30, s+40, s+50
    const page = await get(`${EVENTS}?after=${s + 30}&before=${s + 50}`, EVENTS);
    expect(page.asset_events.map((e) => e['event_timestamp'])).toEqual([s + 50, s + 40, s + 30]);
    for (const q of ['after=yesterday', 'before=1.5', 'after=-3']) {
      expect((await h.call('GET', `${EVENTS}?${q}`, { key: KEY })).status).toBe(400);
    }
  });

  it('pages with limit and next until the end, without gaps or repeats', async () => {
    const seen: string[] = [];
    let path = `${EVENTS}?limit=4`;
    let pages = 0;
    for (;;) {
      const page = await get(path, EVENTS);
      pages++;
      expect(page.asset_events.length).toBeLessThanOrEqual(4);
      for (const e of page.asset_events) seen.push(`${e['event_type']}:${e['event_timestamp']}`);
      if (page.next === undefined) break;
      path = `${EVENTS}?limit=4&next=${encodeURIComponent(page.next)}`;
    }
    expect(pages).toBe(4);
    expect(seen).toHaveLength(14);
    expect(new Set(seen).size).toBe(14);
  });

  it('limit must be 1..200 and next must be a cursor it issued', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=ten', 'next=garbage']) {
      const r = await h.call('GET', `${EVENTS}?${q}`, { key: KEY });
      expect(r.status, q).toBe(400);
      expectValidResponse('GET', EVENTS, 400, r.body);
    }
  });
});

describe('GET /api/v2/events/collection/{slug}', () => {
  const T = '/api/v2/events/collection/{slug}';

  it('serves the collection only, with event_type filters', async () => {
    const page = await get('/api/v2/events/collection/harpoon-punks', T);
    expect(page.asset_events.map((e) => e['event_type'])).toEqual(['mint', 'order', 'mint', 'order']);
    const mints = await get('/api/v2/events/collection/harpoon-punks?event_type=mint&limit=1', T);
    expect(mints.asset_events).toHaveLength(1);
    expect(mints.next).toBeDefined();
  });

  it('404 for an unknown collection', async () => {
    const r = await h.call('GET', '/api/v2/events/collection/nope', { key: KEY });
    expect(r.status).toBe(404);
    expectValidResponse('GET', T, 404, r.body);
  });

  it('traits filter (JSON, AND) keeps events of matching tokens only', async () => {
    const catalog = sampleCatalog();
    const fur3 = catalog.traits('harpoon-apes', 3n).find((t) => t.trait_type === 'Fur')?.value as string;
    const fur4 = catalog.traits('harpoon-apes', 4n).find((t) => t.trait_type === 'Fur')?.value as string;
    const traits = encodeURIComponent(JSON.stringify([{ traitType: 'Fur', value: fur3 }]));
    const page = await get(`/api/v2/events/collection/harpoon-apes?traits=${traits}`, T);
    const ids = page.asset_events.map(
      (e) => ((e['asset'] ?? e['nft']) as { identifier: string } | undefined)?.identifier,
    );
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id === '3' || (id === '4' && fur4 === fur3))).toBe(true);
    expect(
      (await h.call('GET', '/api/v2/events/collection/harpoon-apes?traits=[oops', { key: KEY })).status,
    ).toBe(400);
  });
});

describe('GET /api/v2/events/chain/{chain}/contract/{address}/nfts/{identifier}', () => {
  const T = '/api/v2/events/chain/{chain}/contract/{address}/nfts/{identifier}';

  it('serves one NFT', async () => {
    const page = await get(`/api/v2/events/chain/ethereum/contract/${APES}/nfts/3`, T);
    expect(page.asset_events.map((e) => `${e['event_type']}/${e['order_type'] ?? ''}`)).toEqual([
      'sale/',
      'order/listing',
      'sale/',
      'order/listing',
    ]);
    const other = await get(`/api/v2/events/chain/base/contract/${APES}/nfts/3`, T);
    expect(other.asset_events).toEqual([]);
  });

  it('400 for a bad chain, address or identifier; 404 for an unknown contract', async () => {
    for (const p of [
      `/api/v2/events/chain/moon/contract/${APES}/nfts/3`,
      '/api/v2/events/chain/ethereum/contract/0x123/nfts/3',
      `/api/v2/events/chain/ethereum/contract/${APES}/nfts/abc`,
    ]) {
      const r = await h.call('GET', p, { key: KEY });
      expect(r.status, p).toBe(400);
      expectValidResponse('GET', T, 400, r.body);
    }
    const r = await h.call('GET', `/api/v2/events/chain/ethereum/contract/0x${'99'.repeat(20)}/nfts/3`, {
      key: KEY,
    });
    expect(r.status).toBe(404);
    expectValidResponse('GET', T, 404, r.body);
  });
});

describe('GET /api/v2/events/accounts/{address}', () => {
  const T = '/api/v2/events/accounts/{address}';

  it('serves events where the account is a party', async () => {
    const page = await get(`/api/v2/events/accounts/${ALICE}?event_type=mint&event_type=transfer`, T);
    expect(page.asset_events.map((e) => e['event_type'])).toEqual(['mint', 'transfer', 'mint', 'transfer']);
    for (const e of page.asset_events) expect([e['from_address'], e['to_address']]).toContain(ALICE);
    expect((await get(`/api/v2/events/accounts/${ALICE}?chain=base`, T)).asset_events).toEqual([]);
    const bad = await h.call('GET', '/api/v2/events/accounts/alice', { key: KEY });
    expect(bad.status).toBe(400);
  });
});

describe('GET /api/v1/events/ (legacy; not in the OpenAPI document: checked against the spec text)', () => {
  type Legacy = { asset_events: Record<string, unknown>[]; next: string | null; previous: null };

  async function legacy(query: string): Promise<Legacy> {
    const r = await h.call('GET', `/api/v1/events/?${query}`, { key: KEY });
    expect(r.status, r.text).toBe(200);
    const body = r.body as Legacy;
    expect(Array.isArray(body.asset_events)).toBe(true);
    expect(body).toHaveProperty('next');
    for (const rec of body.asset_events) {
      expect(Object.keys(rec)).toEqual([...LEGACY_RECORD_FIELDS]);
      expect(rec['created_date']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    }
    return body;
  }

  it('serves the four legacy types in the legacy record shape', async () => {
    const body = await legacy('limit=100');
    expect(body.asset_events).toHaveLength(14);
    expect(new Set(body.asset_events.map((e) => e['event_type']))).toEqual(
      new Set(['created', 'offer_entered', 'transfer', 'successful']),
    );
    expect(body.next).toBeNull();
    // transactions carry the on-chain facts looked up for them
    const sale = body.asset_events.find((e) => e['event_type'] === 'successful') as Record<string, unknown>;
    expect(sale['transaction']).toMatchObject({ block_hash: `0x${'cd'.repeat(32)}`, transaction_index: '2' });
    expect(txLookups).toContain(SAMPLE_EVENTS.sale.txHash);
    // the second sale of APES #3 sees two sales in num_sales
    expect((sale['asset'] as { num_sales: number }).num_sales).toBe(2);
  });

  it('filters: event_type, collection_slug, asset_contract_address + token_id, occurred_after/before', async () => {
    const created = await legacy('event_type=created');
    expect(created.asset_events.map((e) => e['event_type'])).toEqual(['created', 'created']);
    for (const e of created.asset_events) {
      expect(e['total_price']).toBeNull();
      expect(e['sell_order']).toEqual(expect.any(Number));
    }
    const punks = await legacy('collection_slug=harpoon-punks');
    expect(punks.asset_events.every((e) => e['collection_slug'] === 'harpoon-punks')).toBe(true);
    expect(punks.asset_events).toHaveLength(4);
    const one = await legacy(`asset_contract_address=${ITEMS}&token_id=2`);
    expect(one.asset_events.map((e) => e['event_type'])).toEqual(['transfer', 'transfer']);
    const s = Math.floor(T0 / 1000);
    const window = await legacy(
      `occurred_after=${s + 40}&occurred_before=${new Date(T0 + 60_000).toISOString()}`,
    );
    // s+40 sale, s+50 transfer, s+60 mint (a legacy transfer), newest first
    expect(window.asset_events.map((e) => e['event_type'])).toEqual(['transfer', 'transfer', 'successful']);
    expect(window.asset_events.map((e) => e['contract_address'])).toEqual([PUNKS, ITEMS, APES]);
    const pContract = await legacy(`asset_contract_address=${PUNKS}&event_type=transfer`);
    expect(pContract.asset_events.every((e) => e['contract_address'] === PUNKS)).toBe(true);
  });

  it('pages with cursor → next', async () => {
    const first = await legacy('limit=10');
    expect(first.asset_events).toHaveLength(10);
    expect(first.next).toEqual(expect.any(String));
    const second = await legacy(`limit=10&cursor=${encodeURIComponent(first.next as string)}`);
    expect(second.asset_events).toHaveLength(4);
    expect(second.next).toBeNull();
    const ids = [...first.asset_events, ...second.asset_events].map((e) => e['id']);
    expect(new Set(ids).size).toBe(14);
  });

  it('400 for an unknown event_type, token_id without contract, bad dates', async () => {
    for (const q of ['event_type=sale', 'token_id=3', 'occurred_after=someday', 'cursor=zzz']) {
      const r = await h.call('GET', `/api/v1/events/?${q}`, { key: KEY });
      expect(r.status, q).toBe(400);
      expect(r.body).toEqual({ errors: [expect.any(String)] });
    }
    expect((await h.call('GET', '/api/v1/events/')).status).toBe(401);
  });
});
