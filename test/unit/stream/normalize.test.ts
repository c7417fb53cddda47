import { describe, expect, it } from 'vitest';
import { EventLog, type MarketEvent as LogEvent } from '../../../src/sandbox/events/log.ts';
import { REST_KINDS, renderEvent } from '../../../src/sandbox/server/render-events.ts';
import { breakMessage, renderStreamEvent } from '../../../src/sandbox/stream/render.ts';
import {
  MalformedEvent,
  normalizeRestEvent,
  normalizeStreamMessage,
  parseIsoMs,
  STREAM_EVENT_TYPES,
} from '../../../src/stream/index.ts';
import {
  ALL_KINDS,
  APES_CONTRACT,
  MAKER,
  ORDER_HASH,
  sampleInput,
  TAKER,
  TX_HASH,
  testCatalog,
} from '../sandbox/stream/samples.ts';

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
const catalog = testCatalog();
const streamCtx = { receivedAt: 42, source: 'stream' as const };
const restCtx = { receivedAt: 43, source: 'backfill' as const, collection: 'harpoon-apes' };

function logged(kind: (typeof ALL_KINDS)[number]): LogEvent {
  const log = new EventLog(() => T0);
  return log.append(sampleInput(kind));
}

function streamMsg(e: LogEvent): unknown {
  // through JSON, as on the wire
  return JSON.parse(JSON.stringify(renderStreamEvent(e, { sentAtMs: T0 + 5, catalog })));
}

function restRecord(e: LogEvent): unknown {
  const r = renderEvent(e, { catalog, metadataBaseUrl: 'http://x/metadata', createdAtMs: 0 });
  return JSON.parse(JSON.stringify(r));
}

const lower = (s: string) => s.toLowerCase();

describe('normalizeStreamMessage', () => {
  it('listing: nft, order, price as bigint with the payment token, dates', () => {
    const e = normalizeStreamMessage(streamMsg(logged('listing')), streamCtx);
    expect(e).toMatchObject({
      kind: 'listing',
      id: `listing:${ORDER_HASH}`,
      collection: 'harpoon-apes',
      chain: 'ethereum',
      occurredAt: T0,
      receivedAt: 42,
      source: 'stream',
      orderHash: ORDER_HASH,
      maker: lower(MAKER),
      taker: null,
      quantity: 1n,
      price: 1_500_000_000_000_000_000n,
      paymentToken: { address: '0x0000000000000000000000000000000000000000', symbol: 'ETH', decimals: 18 },
      expiresAt: 1_700_086_400_000,
      isPrivate: false,
      nft: { chain: 'ethereum', contract: lower(APES_CONTRACT), identifier: '7' },
    });
    expect(typeof (e as { price: unknown }).price).toBe('bigint');
  });

  it('item_received_bid and item_received_offer both become item_offer', () => {
    const msg = streamMsg(logged('item_offer')) as { event_type: string };
    expect(msg.event_type).toBe('item_received_bid');
    const a = normalizeStreamMessage(msg, streamCtx);
    const b = normalizeStreamMessage({ ...msg, event_type: 'item_received_offer' }, streamCtx);
    expect(a.kind).toBe('item_offer');
    expect(b).toEqual(a);
    expect(a).toMatchObject({ price: 900_000_000_000_000_000n, paymentToken: { symbol: 'WETH' } });
  });

  it('collection offer (item {}), trait offer with trait_criteria_list or only trait_criteria', () => {
    const c = normalizeStreamMessage(streamMsg(logged('collection_offer')), streamCtx);
    expect(c).toMatchObject({ kind: 'collection_offer', quantity: 3n, price: 800_000_000_000_000_000n });
    expect('nft' in c).toBe(false);
    const msg = streamMsg(logged('trait_offer')) as { payload: Record<string, unknown> };
    const t = normalizeStreamMessage(msg, streamCtx);
    expect(t).toMatchObject({
      kind: 'trait_offer',
      traits: [
        { type: 'Fur', value: 'Golden' },
        { type: 'Hat', value: 'Crown' },
      ],
    });
    const single = normalizeStreamMessage(
      { ...msg, payload: { ...msg.payload, trait_criteria_list: null } },
      streamCtx,
    );
    expect(single).toMatchObject({ kind: 'trait_offer', traits: [{ type: 'Fur', value: 'Golden' }] });
  });

  it('sale, transfer, mint, cancel', () => {
    const s = normalizeStreamMessage(streamMsg(logged('sale')), streamCtx);
    expect(s).toMatchObject({
      kind: 'sale',
      seller: lower(MAKER),
      buyer: lower(TAKER),
      price: 1_500_000_000_000_000_000n,
      txHash: lower(TX_HASH),
      orderHash: ORDER_HASH,
    });
    const t = normalizeStreamMessage(streamMsg(logged('transfer')), streamCtx);
    expect(t).toMatchObject({ kind: 'transfer', from: lower(MAKER), to: lower(TAKER), quantity: 1n });
    const m = normalizeStreamMessage(streamMsg(logged('mint')), streamCtx);
    expect(m).toMatchObject({ kind: 'transfer', from: '0x0000000000000000000000000000000000000000' });
    const c = normalizeStreamMessage(streamMsg(logged('cancel')), streamCtx);
    expect(c).toMatchObject({ kind: 'cancel', orderHash: `0x${'04'.repeat(32)}`, txHash: lower(TX_HASH) });
  });

  it('metadata update and order validity events carry the stream version in their id', () => {
    const mu = logged('metadata_update');
    const e = normalizeStreamMessage(streamMsg(mu), streamCtx);
    expect(e).toMatchObject({ kind: 'metadata_update', nft: { identifier: '5' } });
    expect((e as unknown as { traits: unknown[] }).traits).toContainEqual({ type: 'Fur', value: 'Golden' });
    expect(e.id).toContain(String(mu.version));
    const inv = normalizeStreamMessage(streamMsg(logged('order_invalidate')), streamCtx);
    const rev = normalizeStreamMessage(streamMsg(logged('order_revalidate')), streamCtx);
    expect(inv.kind).toBe('order_invalidated');
    expect(rev.kind).toBe('order_revalidated');
    expect(inv.occurredAt).toBe(T0);
  });

  it('every sandbox kind normalizes (one per stream event type the sandbox emits)', () => {
    const kinds = new Set<string>();
    for (const k of ALL_KINDS) kinds.add(normalizeStreamMessage(streamMsg(logged(k)), streamCtx).kind);
    expect([...kinds].sort()).toEqual(
      [
        'cancel',
        'collection_offer',
        'item_offer',
        'listing',
        'metadata_update',
        'order_invalidated',
        'order_revalidated',
        'sale',
        'trait_offer',
        'transfer',
      ].sort(),
    );
    expect(STREAM_EVENT_TYPES).toContain('item_received_offer');
  });

  it('the same fact from the stream and from REST gets the same id', () => {
    for (const kind of REST_KINDS) {
      const e = logged(kind);
      const live = normalizeStreamMessage(streamMsg(e), streamCtx);
      const rest = normalizeRestEvent(restRecord(e), restCtx);
      expect(rest, kind).not.toBeNull();
      expect(rest?.id, kind).toBe(live.id);
      expect(rest?.kind).toBe(live.kind);
      expect(rest?.collection).toBe(live.collection);
      expect(Math.floor(live.occurredAt / 1000) * 1000).toBe(rest?.occurredAt);
      if ('price' in live) expect((rest as { price: bigint }).price).toBe(live.price);
    }
  });

  it('malformed messages throw MalformedEvent with the kind of defect', () => {
    const kindOf = (msg: unknown): string => {
      try {
        normalizeStreamMessage(msg, streamCtx);
      } catch (err) {
        expect(err).toBeInstanceOf(MalformedEvent);
        return (err as MalformedEvent).kind;
      }
      return 'none';
    };
    const listing = streamMsg(logged('listing')) as { payload: Record<string, unknown> };
    const transfer = streamMsg(logged('transfer')) as { payload: Record<string, unknown> };
    const withPayload = (m: { payload: Record<string, unknown> }, patch: Record<string, unknown>) => ({
      ...m,
      payload: { ...m.payload, ...patch },
    });
    expect(kindOf(breakMessage(listing as never))).toBe('bad_price');
    expect(kindOf(breakMessage(transfer as never))).toBe('missing_item');
    expect(kindOf(withPayload(listing, { base_price: '-1' }))).toBe('bad_price');
    expect(kindOf(withPayload(listing, { base_price: '1.5' }))).toBe('bad_price');
    expect(kindOf(withPayload(listing, { base_price: 1e30 }))).toBe('bad_price');
    expect(kindOf(withPayload(listing, { item: {} }))).toBe('missing_item');
    expect(kindOf(withPayload(listing, { item: { nft_id: 'ethereum/0x12/1' } }))).toBe('missing_item');
    expect(kindOf(withPayload(listing, { maker: { address: 'nope' } }))).toBe('bad_address');
    expect(kindOf(withPayload(listing, { order_hash: '0x12' }))).toBe('bad_order_hash');
    expect(kindOf(withPayload(listing, { payment_token: null }))).toBe('bad_payment_token');
    expect(kindOf(withPayload(listing, { event_timestamp: 'yesterday' }))).toBe('bad_timestamp');
    expect(kindOf(withPayload(listing, { quantity: -2 }))).toBe('bad_quantity');
    expect(kindOf(withPayload(listing, { collection: null }))).toBe('missing_collection');
    expect(kindOf({ ...listing, event_type: 'item_exploded' })).toBe('unknown_event_type');
    expect(kindOf({ ...listing, payload: 'x' })).toBe('bad_message');
    expect(kindOf(null)).toBe('bad_message');
    const trait = streamMsg(logged('trait_offer')) as { payload: Record<string, unknown> };
    expect(kindOf(withPayload(trait, { trait_criteria: null, trait_criteria_list: [] }))).toBe('bad_traits');
  });

  it('a channel collection stands in when the payload names none', () => {
    const listing = streamMsg(logged('listing')) as { payload: Record<string, unknown> };
    const e = normalizeStreamMessage(
      { ...listing, payload: { ...listing.payload, collection: undefined } },
      { ...streamCtx, collection: 'other' },
    );
    expect(e.collection).toBe('other');
  });
});

describe('normalizeRestEvent', () => {
  it('order, sale and transfer records', () => {
    const l = normalizeRestEvent(restRecord(logged('listing')), restCtx);
    expect(l).toMatchObject({
      kind: 'listing',
      occurredAt: Math.floor(T0 / 1000) * 1000,
      source: 'backfill',
      price: 1_500_000_000_000_000_000n,
      nft: { contract: lower(APES_CONTRACT), identifier: '7' },
      taker: null,
      expiresAt: 1_700_086_400_000,
    });
    const t = normalizeRestEvent(restRecord(logged('trait_offer')), restCtx);
    expect(t).toMatchObject({ kind: 'trait_offer', traits: [{ type: 'Fur' }, { type: 'Hat' }] });
    const s = normalizeRestEvent(restRecord(logged('sale')), restCtx);
    expect(s).toMatchObject({ kind: 'sale', seller: lower(MAKER), buyer: lower(TAKER) });
    const m = normalizeRestEvent(restRecord(logged('mint')), restCtx);
    expect(m).toMatchObject({ kind: 'transfer', to: lower(TAKER) });
  });

  it('unknown record types are skipped (null); broken ones throw', () => {
    expect(
      normalizeRestEvent({ event_type: 'airdrop', chain: 'ethereum', event_timestamp: 1 }, restCtx),
    ).toBeNull();
    const rec = restRecord(logged('sale')) as Record<string, unknown>;
    expect(() =>
      normalizeRestEvent({ ...rec, payment: { ...(rec['payment'] as object), quantity: 'x' } }, restCtx),
    ).toThrow(MalformedEvent);
    expect(() => normalizeRestEvent({ ...rec, event_timestamp: 'soon' }, restCtx)).toThrow(MalformedEvent);
  });
});

describe('parseIsoMs', () => {
  it('reads the service spelling, Z, offsets and no zone', () => {
    expect(parseIsoMs('2024-01-02T03:04:05.678000+00:00')).toBe(T0);
    expect(parseIsoMs('2024-01-02T03:04:05.678Z')).toBe(T0);
    expect(parseIsoMs('2024-01-02T03:04:05.678')).toBe(T0);
    expect(parseIsoMs('2024-01-02T05:04:05.678+02:00')).toBe(T0);
    expect(parseIsoMs('2024-01-02T03:04:05')).toBe(T0 - 678);
    expect(parseIsoMs('not a date')).toBeNull();
    expect(parseIsoMs(5)).toBeNull();
  });
});
