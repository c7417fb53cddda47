import { LogLevel, OpenSeaStreamClient } from '@opensea/sdk/stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { sampleInput } from '../../../unit/sandbox/stream/samples.ts';
import {
  API_KEY,
  isArrayFrame,
  RawClient,
  type Received,
  type StreamHarness,
  sleep,
  startStream,
  until,
} from './harness.ts';

const APES = 'collection:harpoon-apes';
const OK = { status: 'ok', response: {} };

const harnesses: StreamHarness[] = [];
const clients: RawClient[] = [];

async function harness(options: Parameters<typeof startStream>[0] = {}): Promise<StreamHarness> {
  const h = await startStream(options);
  harnesses.push(h);
  return h;
}

async function joined(h: StreamHarness, topic = APES): Promise<RawClient> {
  const c = await RawClient.connect(h.socketUrl());
  clients.push(c);
  c.send(['1', '1', topic, 'phx_join', {}]);
  await c.take(isArrayFrame(topic, 'phx_reply'));
  return c;
}

/** A listing of token `id` (distinct order hash per id). */
function listing(id: number) {
  return {
    ...sampleInput('listing'),
    nft: {
      contract: '0xAbCdEf0000000000000000000000000000000001',
      identifier: String(id),
      standard: 'erc721' as const,
    },
    orderHash: `0x${id.toString(16).padStart(64, '0')}`,
  };
}

const tokenOf = (j: unknown): string => {
  const msg = (j as unknown[])[4] as { payload: { item: { nft_id: string } } };
  return msg.payload.item.nft_id.split('/')[2] as string;
};

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const h of harnesses.splice(0)) await h.close();
});

describe('stream faults', () => {
  it('dropAll terminates every socket abruptly', async () => {
    const h = await harness();
    const a = await joined(h);
    const b = await joined(h, 'collection:*');
    expect(h.stream.faults.dropAll()).toBe(2);
    expect((await a.waitClosed()).code).toBe(1006); // no close frame
    expect((await b.waitClosed()).code).toBe(1006);
    expect(h.stream.stats().drops).toBe(2);
    expect(h.stream.connectionCount).toBe(0);
  });

  it('dropAll: the SDK client reconnects, rejoins and receives events again', async () => {
    const h = await harness();
    const errors: unknown[] = [];
    const client = new OpenSeaStreamClient({
      apiKey: API_KEY,
      apiUrl: h.baseUrl,
      connectOptions: { transport: WebSocket as never },
      logLevel: LogLevel.ERROR + 1,
      onError: (e) => errors.push(e),
    });
    const got: unknown[] = [];
    client.onItemListed('harpoon-apes', (e) => got.push(e));
    try {
      await until(() => h.stream.stats().joins === 1, 5000, 'join');
      h.stream.faults.dropAll();
      await until(() => h.stream.stats().joins === 2, 5000, 'rejoin after drop');
      expect(h.stream.stats().connectionsTotal).toBe(2);
      h.log.append(sampleInput('listing'));
      await until(() => got.length === 1, 5000, 'event after reconnect');
    } finally {
      client.disconnect(() => undefined);
    }
  });

  it('stall: heartbeats and events go unanswered while the socket stays open', async () => {
    const h = await harness();
    const c = await joined(h);
    expect(h.stream.faults.stall(400)).toBe(1);
    c.send([null, 'hb1', 'phoenix', 'heartbeat', {}]);
    h.log.append(sampleInput('listing'));
    await sleep(200);
    expect(c.all(isArrayFrame('phoenix', 'phx_reply'))).toEqual([]);
    expect(c.all(isArrayFrame(APES, 'item_listed'))).toEqual([]);
    expect(c.closed).toBeNull();
    await sleep(300);
    c.send([null, 'hb2', 'phoenix', 'heartbeat', {}]);
    expect(await c.take(isArrayFrame('phoenix', 'phx_reply'))).toEqual([
      null,
      'hb2',
      'phoenix',
      'phx_reply',
      OK,
    ]);
    // nothing was queued: the stalled heartbeat reply and event are gone for good
    expect(c.all(isArrayFrame('phoenix', 'phx_reply'))).toHaveLength(1);
    expect(c.all(isArrayFrame(APES, 'item_listed'))).toEqual([]);
    expect(h.stream.stats().framesSuppressed).toBe(2);
    expect(h.stream.stats().stalls).toBe(1);
  });

  it('stall only affects sockets open at the time', async () => {
    const h = await harness();
    await joined(h);
    h.stream.faults.stall(5000);
    const fresh = await joined(h);
    h.log.append(sampleInput('listing'));
    await fresh.take(isArrayFrame(APES, 'item_listed'));
  });

  it('stall: the SDK client detects the heartbeat timeout and reconnects', async () => {
    const h = await harness();
    const errors: unknown[] = [];
    const client = new OpenSeaStreamClient({
      apiKey: API_KEY,
      apiUrl: h.baseUrl,
      connectOptions: { transport: WebSocket as never, heartbeatIntervalMs: 100 },
      logLevel: LogLevel.ERROR + 1,
      onError: (e) => errors.push(e),
    });
    const got: unknown[] = [];
    client.onItemListed('harpoon-apes', (e) => got.push(e));
    try {
      await until(() => h.stream.stats().joins === 1, 5000, 'join');
      h.stream.faults.stall(10_000);
      await until(() => h.stream.stats().connectionsTotal === 2, 5000, 'reconnect after stall');
      expect(errors.some((e) => e instanceof Error && /heartbeat timeout/i.test(e.message))).toBe(true);
      await until(() => h.stream.stats().joins === 2, 5000, 'rejoin');
      h.log.append(sampleInput('listing'));
      await until(() => got.length === 1, 5000, 'event on the new socket');
    } finally {
      client.disconnect(() => undefined);
    }
  });

  it('duplicateRate 1 delivers every event twice', async () => {
    const h = await harness();
    const c = await joined(h);
    h.stream.faults.duplicateRate = 1;
    for (let i = 1; i <= 5; i++) h.log.append(listing(i));
    await until(() => c.all(isArrayFrame(APES, 'item_listed')).length === 10, 3000, '10 frames');
    const tokens = c.all(isArrayFrame(APES, 'item_listed')).map(tokenOf);
    expect(tokens).toEqual(['1', '1', '2', '2', '3', '3', '4', '4', '5', '5']);
    expect(h.stream.stats().duplicatesInjected).toBe(5);
  });

  it('duplicates are deterministic for a seed', async () => {
    const run = async (seed: number) => {
      const h = await harness({ seed });
      const c = await joined(h);
      h.stream.faults.duplicateRate = 0.5;
      for (let i = 1; i <= 20; i++) h.log.append(listing(i));
      await until(() => h.stream.stats().eventsPublished === 20, 3000, 'published');
      const expected = 20 + h.stream.stats().duplicatesInjected;
      await until(() => c.all(isArrayFrame(APES, 'item_listed')).length === expected, 3000, 'frames');
      return c.all(isArrayFrame(APES, 'item_listed')).map(tokenOf).join(',');
    };
    const a = await run(11);
    const b = await run(11);
    expect(a).toBe(b);
    expect(a.split(',').length).toBeGreaterThan(20);
    expect(a.split(',').length).toBeLessThan(40);
  });

  it('reorderWindow holds N events and delivers them shuffled', async () => {
    const h = await harness({ seed: 3 });
    const c = await joined(h);
    h.stream.faults.reorderWindow = 8;
    for (let i = 1; i <= 8; i++) h.log.append(listing(i));
    await until(() => c.all(isArrayFrame(APES, 'item_listed')).length === 8, 3000, '8 frames');
    const tokens = c.all(isArrayFrame(APES, 'item_listed')).map(tokenOf);
    expect([...tokens].sort((x, y) => Number(x) - Number(y))).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
    ]);
    expect(tokens).not.toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
  });

  it('reorder releases a partial window after reorderHoldMs, and at once when turned off', async () => {
    const h = await harness({ reorderHoldMs: 150 });
    const c = await joined(h);
    h.stream.faults.reorderWindow = 10;
    h.log.append(listing(1));
    h.log.append(listing(2));
    await sleep(60);
    expect(c.all(isArrayFrame(APES, 'item_listed'))).toEqual([]);
    await until(() => c.all(isArrayFrame(APES, 'item_listed')).length === 2, 2000, 'timed release');
    h.log.append(listing(3));
    h.stream.faults.reorderWindow = 0;
    await until(() => c.all(isArrayFrame(APES, 'item_listed')).length === 3, 100, 'release on reset');
  });

  it('malformedRate 1 puts a malformed frame before every event', async () => {
    const h = await harness({ seed: 5 });
    const c = await joined(h);
    h.stream.faults.malformedRate = 1;
    for (let i = 1; i <= 12; i++) h.log.append(listing(i));
    await until(() => c.received.length >= 1 + 24, 3000, '24 frames');
    const frames = c.received.slice(1); // after the join reply
    let invalidJson = 0;
    let brokenPrice = 0;
    for (let i = 0; i < frames.length; i += 2) {
      const bad = frames[i] as Received;
      const good = frames[i + 1] as Received;
      expect(good.valid).toBe(true);
      const goodMsg = (good.json as unknown[])[4] as { payload: Record<string, unknown> };
      expect(goodMsg.payload['base_price']).toBe('1500000000000000000');
      if (!bad.valid) invalidJson++;
      else {
        const badMsg = (bad.json as unknown[])[4] as { payload: Record<string, unknown> };
        expect(badMsg.payload['base_price']).toBe('abc');
        brokenPrice++;
      }
    }
    expect(invalidJson + brokenPrice).toBe(12);
    expect(invalidJson).toBeGreaterThan(0);
    expect(brokenPrice).toBeGreaterThan(0);
    expect(h.stream.stats().malformedInjected).toBe(12);
    expect(h.stream.stats().eventsDelivered.item_listed).toBe(12);
  });

  it('faults are off again after reset()', async () => {
    const h = await harness();
    const c = await joined(h);
    h.stream.faults.configure({ duplicateRate: 1, malformedRate: 1, reorderWindow: 4 });
    h.stream.faults.reset();
    for (let i = 1; i <= 3; i++) h.log.append(listing(i));
    await until(() => c.all(isArrayFrame(APES, 'item_listed')).length === 3, 2000, '3 frames');
    await sleep(50);
    expect(c.received).toHaveLength(4);
    expect(c.all(isArrayFrame(APES, 'item_listed')).map(tokenOf)).toEqual(['1', '2', '3']);
  });
});
