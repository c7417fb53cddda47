import { describe, expect, it } from 'vitest';
import { EventLog, type MarketEvent, type MarketEventKind } from '../../../../src/sandbox/events/log.ts';
import {
  breakMessage,
  isoMicros,
  renderStreamEvent,
  STREAM_EVENT_TYPES,
  type StreamRenderContext,
  streamEventTypeOf,
} from '../../../../src/sandbox/stream/render.ts';
import {
  ALL_KINDS,
  APES_CONTRACT,
  MAKER,
  ORDER_HASH,
  sampleInput,
  TAKER,
  TX_HASH,
  testCatalog,
  WETH,
} from './samples.ts';

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
const SENT = T0 + 250;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const WEI = /^\d+$/;

const catalog = testCatalog();
const ctx: StreamRenderContext = { sentAtMs: SENT, chain: 'ethereum', catalog };

function event(kind: MarketEventKind): MarketEvent {
  return new EventLog(() => T0).append(sampleInput(kind));
}

function render(kind: MarketEventKind, c: StreamRenderContext = ctx) {
  return renderStreamEvent(event(kind), c);
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => {
  expect(v).toBeTypeOf('object');
  expect(v).not.toBeNull();
  return v as Obj;
};

function expectItem(p: Obj, id: string): void {
  const item = obj(p['item']);
  expect(item['nft_id']).toBe(`ethereum/${APES_CONTRACT.toLowerCase()}/${id}`);
  expect(item['permalink']).toBe(`https://opensea.io/assets/ethereum/${APES_CONTRACT.toLowerCase()}/${id}`);
  expect(obj(item['chain'])).toEqual({ name: 'ethereum' });
  const md = obj(item['metadata']);
  expect(md['name']).toBe(`Harpoon Apes #${id}`);
  for (const k of ['image_url', 'animation_url', 'metadata_url']) expect(k in md).toBe(true);
}

function expectPaymentToken(p: Obj, address: string, symbol: string, name: string): void {
  const pt = obj(p['payment_token']);
  expect(pt).toEqual({
    address: address.toLowerCase(),
    decimals: 18,
    eth_price: '1.000000000000000',
    name,
    symbol,
    usd_price: expect.stringMatching(/^\d+\.\d+$/),
  });
}

describe('streamEventTypeOf', () => {
  it('maps every event-log kind to its stream type (item offers are item_received_bid)', () => {
    expect(ALL_KINDS.map(streamEventTypeOf)).toEqual([
      'item_listed',
      'item_received_bid',
      'collection_offer',
      'trait_offer',
      'item_sold',
      'item_transferred',
      'item_transferred',
      'item_cancelled',
      'item_metadata_updated',
      'order_invalidate',
      'order_revalidate',
    ]);
    expect(STREAM_EVENT_TYPES).not.toContain('item_received_offer');
    expect(new Set(ALL_KINDS.map(streamEventTypeOf))).toEqual(new Set(STREAM_EVENT_TYPES));
  });
});

describe('renderStreamEvent envelope', () => {
  it('has event_type, payload, sent_at (ISO, µs, +00:00) and the log version', () => {
    for (const kind of ALL_KINDS) {
      const e = event(kind);
      const m = renderStreamEvent(e, ctx);
      expect(Object.keys(m).sort()).toEqual(['event_type', 'payload', 'sent_at', 'version']);
      expect(m.event_type).toBe(streamEventTypeOf(kind));
      expect(m.sent_at).toBe('2024-01-02T03:04:05.928000+00:00');
      expect(m.version).toBe(e.version);
      // bigint-free: the message must serialize as JSON
      expect(() => JSON.stringify(m)).not.toThrow();
    }
  });

  it('order events carry the order revision, item events epoch ms', () => {
    const log = new EventLog(() => T0);
    const first = log.append(sampleInput('listing'));
    const second = log.append({ ...sampleInput('cancel'), orderHash: ORDER_HASH });
    expect(renderStreamEvent(first, ctx).version).toBe(1);
    expect(renderStreamEvent(second, ctx).version).toBe(2);
    expect(renderStreamEvent(log.append(sampleInput('sale')), ctx).version).toBe(T0);
  });

  it('is pure: the same event and context give the same JSON', () => {
    const e = event('trait_offer');
    expect(JSON.stringify(renderStreamEvent(e, ctx))).toBe(JSON.stringify(renderStreamEvent(e, ctx)));
  });

  it('isoMicros formats like the service', () => {
    expect(isoMicros(Date.UTC(2022, 11, 1, 16, 54, 23, 974))).toBe('2022-12-01T16:54:23.974000+00:00');
  });
});

describe('renderStreamEvent payloads', () => {
  it('item_listed', () => {
    const p = render('listing').payload;
    expectItem(p, '7');
    expect(p['collection']).toEqual({ slug: 'harpoon-apes' });
    expect(p['chain']).toBe('ethereum');
    expect(p['base_price']).toBe('1500000000000000000');
    expect(p['base_price']).toMatch(WEI);
    expect(p['quantity']).toBe(1);
    expect(p['listing_type']).toBeNull();
    expect(p['listing_date']).toBe('2023-11-14T22:13:20.000000+00:00');
    expect(p['expiration_date']).toBe('2023-11-15T22:13:20.000000+00:00');
    expect(p['event_timestamp']).toMatch(ISO);
    expect(p['maker']).toEqual({ address: MAKER });
    expect(p['taker']).toBeNull();
    expect(p['is_private']).toBe(false);
    expect(p['order_hash']).toBe(ORDER_HASH);
    expectPaymentToken(p, '0x0000000000000000000000000000000000000000', 'ETH', 'Ether');
    expect('protocol_address' in p).toBe(false);
  });

  it('a private listing shows its taker', () => {
    const e = new EventLog(() => T0).append({ ...sampleInput('listing'), isPrivate: true, taker: TAKER });
    const p = renderStreamEvent(e, ctx).payload;
    expect(p['is_private']).toBe(true);
    expect(p['taker']).toEqual({ address: TAKER });
  });

  it('item_received_bid', () => {
    const m = render('item_offer');
    expect(m.event_type).toBe('item_received_bid');
    const p = m.payload;
    expectItem(p, '8');
    expect(p['base_price']).toBe('900000000000000000');
    expect(p['created_date']).toMatch(ISO);
    expect(p['expiration_date']).toMatch(ISO);
    expect(p['maker']).toEqual({ address: MAKER });
    expect(p['taker']).toBeNull();
    expect(p['quantity']).toBe(1);
    expect(p['order_hash']).toMatch(/^0x[0-9a-f]{64}$/);
    expectPaymentToken(p, WETH, 'WETH', 'Wrapped Ether');
  });

  it('collection_offer: no item ({}), collection and contract criteria', () => {
    const p = render('collection_offer').payload;
    expect(p['item']).toEqual({});
    expect(p['collection']).toEqual({ slug: 'harpoon-apes' });
    expect(p['collection_criteria']).toEqual({ slug: 'harpoon-apes' });
    expect(p['asset_contract_criteria']).toEqual({ address: APES_CONTRACT.toLowerCase() });
    expect(p['base_price']).toBe('800000000000000000');
    expect(p['quantity']).toBe(3);
    expect(p['taker']).toBeNull();
    expect(p['created_date']).toMatch(ISO);
    expect(p['event_timestamp']).toMatch(ISO);
    expectPaymentToken(p, WETH, 'WETH', 'Wrapped Ether');
  });

  it('collection_offer without explicit criteria takes the contract from the catalog', () => {
    const { criteria: _c, ...rest } = sampleInput('collection_offer');
    const p = renderStreamEvent(new EventLog(() => T0).append(rest), ctx).payload;
    expect(p['asset_contract_criteria']).toEqual({ address: APES_CONTRACT.toLowerCase() });
  });

  it('trait_offer: trait_criteria and trait_criteria_list', () => {
    const p = render('trait_offer').payload;
    expect(p['item']).toEqual({});
    expect(p['trait_criteria']).toEqual({ trait_type: 'Fur', trait_name: 'Golden' });
    expect(p['trait_criteria_list']).toEqual([
      { trait_type: 'Fur', trait_name: 'Golden' },
      { trait_type: 'Hat', trait_name: 'Crown' },
    ]);
    expect(p['collection_criteria']).toEqual({ slug: 'harpoon-apes' });
    expect(p['asset_contract_criteria']).toEqual({ address: APES_CONTRACT.toLowerCase() });
    expect(p['base_price']).toBe('950000000000000000');
  });

  it('item_sold', () => {
    const p = render('sale').payload;
    expectItem(p, '7');
    expect(p['sale_price']).toBe('1500000000000000000');
    expect('base_price' in p).toBe(false);
    expect(p['closing_date']).toMatch(ISO);
    expect(p['transaction']).toEqual({ hash: TX_HASH.toLowerCase(), timestamp: expect.stringMatching(ISO) });
    expect(p['maker']).toEqual({ address: MAKER });
    expect(p['taker']).toEqual({ address: TAKER });
    expect(p['order_hash']).toBe(ORDER_HASH);
    expect(p['is_private']).toBe(false);
    expect(p['listing_type']).toBeNull();
    expect(p['quantity']).toBe(1);
    expectPaymentToken(p, '0x0000000000000000000000000000000000000000', 'ETH', 'Ether');
  });

  it('item_sold falls back to seller/buyer when maker/taker are absent', () => {
    const { maker: _m, taker: _t, ...rest } = sampleInput('sale');
    const p = renderStreamEvent(new EventLog(() => T0).append(rest), ctx).payload;
    expect(p['maker']).toEqual({ address: MAKER });
    expect(p['taker']).toEqual({ address: TAKER });
  });

  it('item_transferred (transfer and mint)', () => {
    const t = render('transfer');
    expect(t.event_type).toBe('item_transferred');
    expectItem(t.payload, '7');
    expect(t.payload['from_account']).toEqual({ address: MAKER });
    expect(t.payload['to_account']).toEqual({ address: TAKER });
    expect(t.payload['quantity']).toBe(1);
    expect(t.payload['transaction']).toEqual({
      hash: TX_HASH.toLowerCase(),
      timestamp: expect.stringMatching(ISO),
    });
    expect(t.payload['event_timestamp']).toMatch(ISO);
    const m = render('mint');
    expect(m.event_type).toBe('item_transferred');
    expect(m.payload['from_account']).toEqual({ address: '0x0000000000000000000000000000000000000000' });
    expect(m.payload['to_account']).toEqual({ address: TAKER });
  });

  it('item_cancelled', () => {
    const p = render('cancel').payload;
    expectItem(p, '9');
    expect(p['base_price']).toBe('2000000000000000000');
    expect(p['listing_date']).toMatch(ISO);
    expect(p['expiration_date']).toMatch(ISO);
    expect(p['listing_type']).toBeNull();
    expect(p['transaction']).toEqual({ hash: TX_HASH.toLowerCase(), timestamp: expect.stringMatching(ISO) });
    expect(p['maker']).toEqual({ address: MAKER });
    expect(p['taker']).toBeNull();
    expect(p['is_private']).toBe(false);
    expect(p['order_hash']).toBe(`0x${'04'.repeat(32)}`);
    expectPaymentToken(p, '0x0000000000000000000000000000000000000000', 'ETH', 'Ether');
  });

  it('an off-chain cancel has transaction null', () => {
    const { txHash: _tx, ...rest } = sampleInput('cancel');
    const p = renderStreamEvent(new EventLog(() => T0).append(rest), ctx).payload;
    expect(p['transaction']).toBeNull();
  });

  it('item_metadata_updated: traits in item.metadata', () => {
    const p = render('metadata_update').payload;
    expectItem(p, '5');
    expect(p['collection']).toEqual({ slug: 'harpoon-apes' });
    const md = obj(obj(p['item'])['metadata']);
    expect(md['description']).toBeTypeOf('string');
    expect(md['background_color']).toBeNull();
    const traits = md['traits'] as Obj[];
    expect(traits).toHaveLength(2);
    const fur = traits[0] as Obj;
    expect(fur).toEqual({
      trait_type: 'Fur',
      value: 'Golden',
      display_type: null,
      max_value: null,
      trait_count: catalog.tokensMatching('harpoon-apes', [{ type: 'Fur', value: 'Golden' }]).length,
      order: null,
    });
    expect(fur['trait_count']).toBeGreaterThan(0);
    expect(traits[1]).toEqual({
      trait_type: 'Level',
      value: '9',
      display_type: 'number',
      max_value: 10,
      trait_count: null,
      order: null,
    });
  });

  it('item_metadata_updated without explicit traits uses the catalog traits of the token', () => {
    const { traits: _t, ...rest } = sampleInput('metadata_update');
    const p = renderStreamEvent(new EventLog(() => T0).append(rest), ctx).payload;
    const traits = obj(obj(p['item'])['metadata'])['traits'] as Obj[];
    expect(traits.map((t) => t['trait_type'])).toEqual(
      catalog.traits('harpoon-apes', 5n).map((t) => t.trait_type),
    );
  });

  it('order_invalidate and order_revalidate: protocol_address and chain {name}', () => {
    for (const kind of ['order_invalidate', 'order_revalidate'] as const) {
      const m = render(kind);
      expect(m.event_type).toBe(kind);
      const p = m.payload;
      expect(p['chain']).toEqual({ name: 'ethereum' });
      expect(p['protocol_address']).toBe('0x0000000000000068f116a894984e2db1123eb395');
      expect(p['order_hash']).toBe(ORDER_HASH);
      expect(p['event_timestamp']).toMatch(ISO);
      expect(p['collection']).toEqual({ slug: 'harpoon-apes' });
      expectItem(p, '7');
    }
  });

  it('only order_invalidate/revalidate carry protocol_address', () => {
    for (const kind of ALL_KINDS) {
      const has = 'protocol_address' in render(kind).payload;
      expect(has).toBe(kind === 'order_invalidate' || kind === 'order_revalidate');
    }
  });

  it('every price field is a wei string and every date an ISO string', () => {
    for (const kind of ALL_KINDS) {
      const p = render(kind).payload;
      for (const key of ['base_price', 'sale_price']) if (key in p) expect(p[key]).toMatch(WEI);
      for (const key of [
        'listing_date',
        'expiration_date',
        'created_date',
        'closing_date',
        'event_timestamp',
      ]) {
        if (key in p) expect(p[key]).toMatch(ISO);
      }
    }
  });

  it('uses the context URLs and quote', () => {
    const c: StreamRenderContext = {
      ...ctx,
      itemUrl: (contract, id) => `http://sandbox/assets/${contract}/${id}`,
      metadataUrl: (_contract, id, slug) => `http://sandbox/metadata/${slug}/${id}`,
      imageUrl: (_contract, id) => `http://sandbox/img/${id}.png`,
      quote: () => ({ name: 'Test Ether', eth_price: '1', usd_price: '42' }),
    };
    const p = render('listing', c).payload;
    const item = obj(p['item']);
    expect(item['permalink']).toBe(`http://sandbox/assets/${APES_CONTRACT.toLowerCase()}/7`);
    expect(obj(item['metadata'])['metadata_url']).toBe('http://sandbox/metadata/harpoon-apes/7');
    expect(obj(item['metadata'])['image_url']).toBe('http://sandbox/img/7.png');
    expect(obj(p['payment_token'])['usd_price']).toBe('42');
  });

  it('without a catalog the item name is null but the item is complete', () => {
    const p = render('listing', { sentAtMs: SENT }).payload;
    const md = obj(obj(p['item'])['metadata']);
    expect(md['name']).toBeNull();
    expect(obj(p['item'])['nft_id']).toBe(`ethereum/${APES_CONTRACT.toLowerCase()}/7`);
  });
});

describe('breakMessage', () => {
  it('breaks prices, or the item when there is no price', () => {
    expect(breakMessage(render('listing')).payload['base_price']).toBe('abc');
    expect(breakMessage(render('sale')).payload['sale_price']).toBe('abc');
    expect(breakMessage(render('transfer')).payload['item']).toBe('abc');
    // the original is untouched
    const m = render('listing');
    breakMessage(m);
    expect(m.payload['base_price']).toBe('1500000000000000000');
  });
});
