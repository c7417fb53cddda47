import {
  EventType as SdkEventType,
  LogLevel as SdkLogLevel,
  OpenSeaStreamClient as SdkStreamClient,
} from '@opensea/sdk/stream';
import {
  EventType as JsEventType,
  LogLevel as JsLogLevel,
  OpenSeaStreamClient as JsStreamClient,
} from '@opensea/stream-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { MarketEventKind } from '../../../../src/sandbox/events/log.ts';
import { type StreamEventType, streamEventTypeOf } from '../../../../src/sandbox/stream/render.ts';
import { ALL_KINDS, sampleInput } from '../../../unit/sandbox/stream/samples.ts';
import { API_KEY, type StreamHarness, sleep, startStream, until } from './harness.ts';

/**
 * The official clients, unchanged except for the base URL (and, on Node 20, a WebSocket
 * implementation), against the sandbox stream:
 * - @opensea/stream-js 0.4.0: `apiUrl` + `connectOptions.transport` (phoenix.js 1.8 underneath);
 * - @opensea/sdk 12.9.1 `@opensea/sdk/stream`: `apiKey`, `apiUrl` + `connectOptions.transport`
 *   (its own Phoenix v2 transport: heartbeat watchdog, join_ref filtering, `event_types`).
 */

type Msg = { event_type: string; payload: Record<string, unknown>; sent_at: string; version: number };

/** The kinds whose stream type each official `on*` method listens for (one kind per type). */
const ONE_KIND_PER_TYPE: readonly MarketEventKind[] = ALL_KINDS.filter((k) => k !== 'mint');

let h: StreamHarness;
const errors: unknown[] = [];

beforeEach(async () => {
  h = await startStream();
  errors.length = 0;
});

afterEach(async () => {
  await h.close();
});

function expectWellFormed(type: StreamEventType, m: Msg): void {
  expect(m.event_type).toBe(type);
  expect(typeof m.sent_at).toBe('string');
  expect(typeof m.version).toBe('number');
  const collection = m.payload['collection'] as { slug: string };
  expect(collection.slug).toBe('harpoon-apes');
}

describe('@opensea/stream-js against the sandbox', () => {
  function jsClient(token = API_KEY): JsStreamClient {
    return new JsStreamClient({
      token,
      apiUrl: h.baseUrl,
      connectOptions: { transport: WebSocket as never },
      logLevel: JsLogLevel.ERROR + 1, // silence its console logging
      onError: (e) => errors.push(e),
    });
  }

  it('receives every event type through its typed on* methods', async () => {
    const client = jsClient();
    const got = new Map<string, Msg[]>();
    const push = (type: string) => (e: unknown) => {
      got.set(type, [...(got.get(type) ?? []), e as Msg]);
    };
    const slug = 'harpoon-apes';
    client.onItemListed(slug, push('item_listed'));
    client.onItemSold(slug, push('item_sold'));
    client.onItemTransferred(slug, push('item_transferred'));
    client.onItemCancelled(slug, push('item_cancelled'));
    client.onItemReceivedBid(slug, push('item_received_bid'));
    client.onCollectionOffer(slug, push('collection_offer'));
    client.onTraitOffer(slug, push('trait_offer'));
    client.onItemMetadataUpdated(slug, push('item_metadata_updated'));
    client.onOrderInvalidate(slug, push('order_invalidate'));
    client.onOrderRevalidate(slug, push('order_revalidate'));
    try {
      await until(() => h.stream.stats().joins >= 1, 5000, 'stream-js join');
      for (const kind of ALL_KINDS) h.log.append(sampleInput(kind));
      await until(
        () => got.size === 10 && (got.get('item_transferred')?.length ?? 0) === 2,
        5000,
        'all types',
      );
      for (const kind of ONE_KIND_PER_TYPE) {
        const type = streamEventTypeOf(kind);
        const first = got.get(type)?.[0];
        expect(first, type).toBeDefined();
        expectWellFormed(type, first as Msg);
      }
      const listed = got.get('item_listed')?.[0] as Msg;
      expect(listed.payload['base_price']).toBe('1500000000000000000');
      expect(errors).toEqual([]);
    } finally {
      client.disconnect(() => undefined);
    }
  });

  it('onEvents on "*" gets only the requested types (server-side event_types filter)', async () => {
    const client = jsClient();
    const got: Msg[] = [];
    client.onEvents('*', [JsEventType.ITEM_SOLD, JsEventType.TRAIT_OFFER], (e) => {
      got.push(e as unknown as Msg);
    });
    try {
      await until(() => h.stream.stats().joins >= 1, 5000, 'stream-js join');
      for (const kind of ALL_KINDS) h.log.append(sampleInput(kind));
      await until(() => got.length >= 2, 5000, 'filtered events');
      await sleep(100);
      expect(got.map((m) => m.event_type).sort()).toEqual(['item_sold', 'trait_offer']);
      // the server itself sent nothing else: the filter travelled in the join payload
      const delivered = h.stream.stats().eventsDelivered;
      expect(delivered.item_listed).toBe(0);
      expect(delivered.item_sold).toBe(1);
    } finally {
      client.disconnect(() => undefined);
    }
  });

  it('unsubscribing leaves the channel', async () => {
    const client = jsClient();
    const got: Msg[] = [];
    const off = client.onItemListed('harpoon-apes', (e) => {
      got.push(e as unknown as Msg);
    });
    try {
      await until(() => h.stream.stats().joins >= 1, 5000, 'join');
      h.log.append(sampleInput('listing'));
      await until(() => got.length === 1, 5000, 'first listing');
      off();
      await until(() => h.stream.stats().leaves === 1, 5000, 'leave');
      h.log.append(sampleInput('listing'));
      await sleep(100);
      expect(got).toHaveLength(1);
    } finally {
      client.disconnect(() => undefined);
    }
  });

  it('a bad key: the socket is refused and the client reports errors, receiving nothing', async () => {
    const client = jsClient('bad-key');
    const got: unknown[] = [];
    client.onItemListed('harpoon-apes', (e) => got.push(e));
    try {
      await until(() => errors.length > 0 && h.stream.stats().refused > 0, 5000, 'refusal');
      h.log.append(sampleInput('listing'));
      await sleep(100);
      expect(got).toEqual([]);
      expect(h.stream.stats().connectionsTotal).toBe(0);
    } finally {
      client.disconnect(() => undefined);
    }
  });
});

describe('@opensea/sdk/stream against the sandbox', () => {
  function sdkClient(apiKey = API_KEY, heartbeatIntervalMs?: number): SdkStreamClient {
    return new SdkStreamClient({
      apiKey,
      apiUrl: h.baseUrl,
      connectOptions: {
        transport: WebSocket as never,
        ...(heartbeatIntervalMs ? { heartbeatIntervalMs } : {}),
      },
      logLevel: SdkLogLevel.ERROR + 1,
      onError: (e) => errors.push(e),
    });
  }

  it('receives every event type through its typed on* methods', async () => {
    const client = sdkClient();
    const got = new Map<string, Msg[]>();
    const push = (type: string) => (e: unknown) => {
      got.set(type, [...(got.get(type) ?? []), e as Msg]);
    };
    const slug = 'harpoon-apes';
    client.onItemListed(slug, push('item_listed'));
    client.onItemSold(slug, push('item_sold'));
    client.onItemTransferred(slug, push('item_transferred'));
    client.onItemCancelled(slug, push('item_cancelled'));
    client.onItemReceivedBid(slug, push('item_received_bid'));
    client.onCollectionOffer(slug, push('collection_offer'));
    client.onTraitOffer(slug, push('trait_offer'));
    client.onItemMetadataUpdated(slug, push('item_metadata_updated'));
    client.onOrderInvalidate(slug, push('order_invalidate'));
    client.onOrderRevalidate(slug, push('order_revalidate'));
    try {
      await until(() => h.stream.stats().joins >= 1, 5000, 'sdk join');
      for (const kind of ALL_KINDS) h.log.append(sampleInput(kind));
      await until(
        () => got.size === 10 && (got.get('item_transferred')?.length ?? 0) === 2,
        5000,
        'all types',
      );
      for (const kind of ONE_KIND_PER_TYPE) {
        const type = streamEventTypeOf(kind);
        expectWellFormed(type, got.get(type)?.[0] as Msg);
      }
      const sold = got.get('item_sold')?.[0] as Msg;
      expect(sold.payload['sale_price']).toBe('1500000000000000000');
      expect(errors).toEqual([]);
    } finally {
      client.disconnect(() => undefined);
    }
  });

  it('onEvents filters server-side, and a wider subscriber widens the filter by rejoining', async () => {
    const client = sdkClient();
    const sold: Msg[] = [];
    const listed: Msg[] = [];
    client.onEvents('*', [SdkEventType.ITEM_SOLD], (e) => {
      sold.push(e as Msg);
    });
    try {
      await until(() => h.stream.stats().joins === 1, 5000, 'sdk join');
      h.log.append(sampleInput('listing'));
      h.log.append(sampleInput('sale'));
      await until(() => sold.length === 1, 5000, 'sale');
      await sleep(50);
      expect(h.stream.stats().eventsDelivered.item_listed).toBe(0);

      client.onItemListed('*', (e) => {
        listed.push(e as unknown as Msg);
      });
      await until(() => h.stream.stats().joins === 2, 5000, 'widening rejoin');
      h.log.append(sampleInput('listing'));
      h.log.append(sampleInput('sale'));
      await until(() => listed.length === 1 && sold.length === 2, 5000, 'widened delivery');
      expect(errors).toEqual([]);
    } finally {
      client.disconnect(() => undefined);
    }
  });

  it('a bad key: the socket is refused and the client reports errors, receiving nothing', async () => {
    const client = sdkClient('bad-key');
    const got: unknown[] = [];
    client.onItemListed('harpoon-apes', (e) => got.push(e));
    try {
      await until(() => errors.length > 0 && h.stream.stats().refused > 0, 5000, 'refusal');
      h.log.append(sampleInput('listing'));
      await sleep(100);
      expect(got).toEqual([]);
      expect(h.stream.stats().connectionsTotal).toBe(0);
    } finally {
      client.disconnect(() => undefined);
    }
  });

  it('its heartbeat is answered: no heartbeat timeout over several intervals', async () => {
    const client = sdkClient(API_KEY, 50);
    client.onItemListed('harpoon-apes', () => undefined);
    try {
      await until(() => h.stream.stats().heartbeats >= 4, 5000, 'heartbeats');
      expect(errors).toEqual([]);
      expect(h.stream.stats().connectionsTotal).toBe(1);
    } finally {
      client.disconnect(() => undefined);
    }
  });
});
