import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StreamControl } from '../../../../src/sandbox/server/types.ts';
import { STREAM_EVENT_TYPES, streamEventTypeOf } from '../../../../src/sandbox/stream/render.ts';
import { ALL_KINDS, APES_CONTRACT, sampleInput } from '../../../unit/sandbox/stream/samples.ts';
import {
  API_KEY,
  isArrayFrame,
  RawClient,
  refusedUpgrade,
  type StreamHarness,
  sleep,
  startStream,
  until,
} from './harness.ts';

const APES = 'collection:harpoon-apes';
const PUNKS = 'collection:harpoon-punks';
const ALL = 'collection:*';
const OK = { status: 'ok', response: {} };

let h: StreamHarness;
const clients: RawClient[] = [];

async function client(vsn: string | null = '2.0.0'): Promise<RawClient> {
  const c = await RawClient.connect(h.socketUrl(vsn));
  clients.push(c);
  return c;
}

async function joined(topic: string, payload: unknown = {}, ref = '1'): Promise<RawClient> {
  const c = await client();
  c.send([ref, ref, topic, 'phx_join', payload]);
  expect(await c.take(isArrayFrame(topic, 'phx_reply'))).toEqual([ref, ref, topic, 'phx_reply', OK]);
  return c;
}

beforeEach(async () => {
  h = await startStream();
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h.close();
});

describe('stream server, vsn 2 array frames', () => {
  it('answers a join with ok and the join refs', async () => {
    const c = await client();
    c.send(['7', '8', APES, 'phx_join', {}]);
    expect(await c.take(isArrayFrame(APES, 'phx_reply'))).toEqual(['7', '8', APES, 'phx_reply', OK]);
    expect(h.stream.stats().joins).toBe(1);
  });

  it('answers a heartbeat on topic phoenix', async () => {
    const c = await client();
    c.send([null, '42', 'phoenix', 'heartbeat', {}]);
    expect(await c.take(isArrayFrame('phoenix', 'phx_reply'))).toEqual([
      null,
      '42',
      'phoenix',
      'phx_reply',
      OK,
    ]);
    expect(h.stream.stats().heartbeats).toBe(1);
  });

  it('delivers events of the joined collection only, as broadcast frames', async () => {
    const c = await joined(APES);
    const e = h.log.append(sampleInput('listing'));
    h.log.append(sampleInput('listing', 'harpoon-punks'));
    const frame = (await c.take(isArrayFrame(APES, 'item_listed'))) as unknown[];
    expect(frame.slice(0, 4)).toEqual([null, null, APES, 'item_listed']);
    const msg = frame[4] as Record<string, unknown>;
    expect(msg['event_type']).toBe('item_listed');
    expect(msg['version']).toBe(e.version);
    expect(msg['sent_at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    const payload = msg['payload'] as Record<string, unknown>;
    expect(payload['base_price']).toBe('1500000000000000000');
    expect((payload['item'] as Record<string, unknown>)['nft_id']).toBe(
      `ethereum/${APES_CONTRACT.toLowerCase()}/7`,
    );
    await sleep(100);
    expect(c.all((j) => Array.isArray(j) && j[2] === PUNKS)).toEqual([]);
    expect(c.all((j) => Array.isArray(j) && j[3] === 'item_listed')).toHaveLength(1);
  });

  it('delivers every event type; collection:* gets every collection on topic collection:*', async () => {
    const c = await joined(ALL);
    for (const kind of ALL_KINDS) h.log.append(sampleInput(kind));
    h.log.append(sampleInput('sale', 'harpoon-punks'));
    for (const kind of ALL_KINDS) {
      const type = streamEventTypeOf(kind);
      const f = (await c.take(isArrayFrame(ALL, type))) as unknown[];
      const msg = f[4] as Record<string, unknown>;
      expect(msg['event_type']).toBe(type);
      expect((msg['payload'] as Record<string, unknown>)['collection']).toEqual({ slug: 'harpoon-apes' });
    }
    const punks = (await c.take(isArrayFrame(ALL, 'item_sold'))) as unknown[];
    expect(
      ((punks[4] as Record<string, unknown>)['payload'] as Record<string, unknown>)['collection'],
    ).toEqual({
      slug: 'harpoon-punks',
    });
    const counts = h.stream.stats().eventsDelivered;
    expect(Object.keys(counts).sort()).toEqual([...STREAM_EVENT_TYPES].sort());
    expect(counts.item_transferred).toBe(2); // transfer + mint
    expect(counts.item_sold).toBe(2);
    expect(counts.item_listed).toBe(1);
  });

  it('a socket joined to a collection and to collection:* gets the event once per channel', async () => {
    const c = await joined(APES);
    c.send(['2', '2', ALL, 'phx_join', {}]);
    await c.take(isArrayFrame(ALL, 'phx_reply'));
    h.log.append(sampleInput('sale'));
    await c.take(isArrayFrame(APES, 'item_sold'));
    await c.take(isArrayFrame(ALL, 'item_sold'));
    await sleep(50);
    expect(c.all((j) => Array.isArray(j) && j[3] === 'item_sold')).toHaveLength(2);
  });

  it('leave: ok reply, phx_close, then no more events', async () => {
    const c = await joined(APES);
    h.log.append(sampleInput('listing'));
    await c.take(isArrayFrame(APES, 'item_listed'));
    c.send(['1', '5', APES, 'phx_leave', {}]);
    expect(await c.take(isArrayFrame(APES, 'phx_reply'))).toEqual(['1', '5', APES, 'phx_reply', OK]);
    expect(await c.take(isArrayFrame(APES, 'phx_close'))).toEqual(['1', '1', APES, 'phx_close', {}]);
    h.log.append(sampleInput('listing'));
    await sleep(100);
    expect(c.all(isArrayFrame(APES, 'item_listed'))).toHaveLength(1);
    expect(h.stream.stats().leaves).toBe(1);
  });

  it('ignores a leave that carries the join_ref of an earlier join of the topic', async () => {
    const c = await joined(APES, {}, '1');
    c.send(['2', '2', APES, 'phx_join', {}]);
    await c.take(isArrayFrame(APES, 'phx_reply'));
    c.send(['1', '3', APES, 'phx_leave', {}]); // stale: the channel now has join_ref "2"
    c.send([null, '4', 'phoenix', 'heartbeat', {}]);
    await c.take(isArrayFrame('phoenix', 'phx_reply'));
    expect(c.all(isArrayFrame(APES, 'phx_reply'))).toHaveLength(2); // the two joins only
    h.log.append(sampleInput('listing'));
    await c.take(isArrayFrame(APES, 'item_listed'));
    c.send(['2', '5', APES, 'phx_leave', {}]);
    expect(await c.take(isArrayFrame(APES, 'phx_reply'))).toEqual(['2', '5', APES, 'phx_reply', OK]);
  });

  it('event_types filter: only those types; a rejoin replaces the filter', async () => {
    const c = await joined(APES, { event_types: ['item_sold', 'item_transferred'] });
    h.log.append(sampleInput('listing'));
    h.log.append(sampleInput('sale'));
    h.log.append(sampleInput('transfer'));
    await c.take(isArrayFrame(APES, 'item_sold'));
    await c.take(isArrayFrame(APES, 'item_transferred'));
    await sleep(50);
    expect(c.all(isArrayFrame(APES, 'item_listed'))).toEqual([]);

    c.send(['3', '3', APES, 'phx_join', { event_types: ['item_listed'] }]);
    expect(await c.take(isArrayFrame(APES, 'phx_reply'))).toEqual(['3', '3', APES, 'phx_reply', OK]);
    h.log.append(sampleInput('sale'));
    h.log.append(sampleInput('listing'));
    await c.take(isArrayFrame(APES, 'item_listed'));
    await sleep(50);
    expect(c.all(isArrayFrame(APES, 'item_sold'))).toHaveLength(1);
  });

  it('a malformed event_types is refused', async () => {
    const c = await client();
    c.send(['1', '1', APES, 'phx_join', { event_types: 'item_listed' }]);
    const r = (await c.take(isArrayFrame(APES, 'phx_reply'))) as unknown[];
    expect((r[4] as Record<string, unknown>)['status']).toBe('error');
  });

  it('refuses a join on an invalid topic; error-replies unknown events', async () => {
    const c = await client();
    c.send(['1', '1', 'room:lobby', 'phx_join', {}]);
    expect(await c.take(isArrayFrame('room:lobby', 'phx_reply'))).toEqual([
      '1',
      '1',
      'room:lobby',
      'phx_reply',
      { status: 'error', response: { reason: 'unmatched topic' } },
    ]);
    c.send(['2', '2', APES, 'phx_join', {}]);
    await c.take(isArrayFrame(APES, 'phx_reply'));
    c.send(['2', '3', APES, 'new_msg', { body: 'hi' }]);
    const r = (await c.take(isArrayFrame(APES, 'phx_reply'))) as unknown[];
    expect(r.slice(0, 2)).toEqual(['2', '3']);
    expect((r[4] as Record<string, unknown>)['status']).toBe('error');
    c.send([null, '4', PUNKS, 'new_msg', {}]);
    const u = (await c.take(isArrayFrame(PUNKS, 'phx_reply'))) as unknown[];
    expect(u[4]).toEqual({ status: 'error', response: { reason: 'unmatched topic' } });
    expect(h.stream.stats().joinErrors).toBe(1);
  });

  it('a collection that does not exist can be joined and delivers nothing', async () => {
    const c = await joined('collection:no-such-collection');
    for (const kind of ALL_KINDS) h.log.append(sampleInput(kind));
    await sleep(100);
    expect(c.all((j) => Array.isArray(j) && j[3] !== 'phx_reply')).toEqual([]);
  });

  it('survives malformed client frames', async () => {
    const c = await client();
    for (const bad of ['not json', '{"a":1}', '[1,2]', '[null,null,1,2,3]', '']) c.send(bad);
    c.ws.send(Buffer.from([0xff, 0x00]), { binary: true });
    c.send([null, '9', 'phoenix', 'heartbeat', {}]);
    expect(await c.take(isArrayFrame('phoenix', 'phx_reply'))).toEqual([
      null,
      '9',
      'phoenix',
      'phx_reply',
      OK,
    ]);
    expect(h.stream.stats().malformedReceived).toBe(6);
    expect(c.closed).toBeNull();
  });

  it('fans out to many sockets', async () => {
    const many = await Promise.all(Array.from({ length: 10 }, (_, i) => joined(i % 2 ? APES : ALL)));
    for (let i = 0; i < 20; i++) h.log.append(sampleInput('listing'));
    for (const [i, c] of many.entries()) {
      const topic = i % 2 ? APES : ALL;
      await until(() => c.all(isArrayFrame(topic, 'item_listed')).length === 20, 3000, `client ${i}`);
    }
    expect(h.stream.stats().eventsDelivered.item_listed).toBe(200);
    expect(h.stream.stats().eventsPublished).toBe(20);
  });
});

describe('stream server, vsn 1 object frames', () => {
  it('join, heartbeat and events as objects; numeric refs echoed', async () => {
    const c = await client(null);
    c.send({ topic: APES, event: 'phx_join', payload: {}, ref: 1 });
    const isObj = (topic: string, event: string) => (j: unknown) =>
      typeof j === 'object' &&
      j !== null &&
      !Array.isArray(j) &&
      (j as Record<string, unknown>)['topic'] === topic &&
      (j as Record<string, unknown>)['event'] === event;
    expect(await c.take(isObj(APES, 'phx_reply'))).toEqual({
      topic: APES,
      event: 'phx_reply',
      payload: OK,
      ref: 1,
    });
    c.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 0 });
    expect(await c.take(isObj('phoenix', 'phx_reply'))).toEqual({
      topic: 'phoenix',
      event: 'phx_reply',
      payload: OK,
      ref: 0,
    });
    h.log.append(sampleInput('sale'));
    const ev = (await c.take(isObj(APES, 'item_sold'))) as Record<string, unknown>;
    expect(ev['ref']).toBeNull();
    expect((ev['payload'] as Record<string, unknown>)['event_type']).toBe('item_sold');
    expect(
      ((ev['payload'] as Record<string, unknown>)['payload'] as Record<string, unknown>)['sale_price'],
    ).toBe('1500000000000000000');
  });

  it('vsn=1.0.0 explicitly is the object serializer too', async () => {
    const c = await client('1.0.0');
    c.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '1' });
    const r = await c.take((j) => !Array.isArray(j));
    expect(r).toEqual({ topic: 'phoenix', event: 'phx_reply', payload: OK, ref: '1' });
  });
});

describe('stream server, refusals and lifecycle', () => {
  it('a bad key is refused before the handshake: 401 {"errors":["Invalid API key"]}', async () => {
    const r = await refusedUpgrade(h.socketUrl('2.0.0', 'wrong-key'));
    expect(r.status).toBe(401);
    expect(r.contentType).toMatch(/application\/json/);
    expect(JSON.parse(r.body)).toEqual({ errors: ['Invalid API key'] });
    const missing = await refusedUpgrade(`${h.baseUrl}/websocket?vsn=2.0.0`);
    expect(missing.status).toBe(401);
    expect(h.stream.stats().refused).toBe(2);
    expect(h.stream.stats().connectionsTotal).toBe(0);
  });

  it('an async key check is honoured', async () => {
    const h2 = await startStream({ authenticate: async (t) => t === 'async-key' });
    try {
      const ok = await RawClient.connect(h2.socketUrl('2.0.0', 'async-key'));
      ok.close();
      expect((await refusedUpgrade(h2.socketUrl('2.0.0', API_KEY))).status).toBe(401);
    } finally {
      await h2.close();
    }
  });

  it('an unsupported vsn gets 400, another path 404', async () => {
    const v = await refusedUpgrade(h.socketUrl('9.0.0'));
    expect(v.status).toBe(400);
    expect(JSON.parse(v.body).errors[0]).toMatch(/vsn/);
    const p = await refusedUpgrade(`ws://127.0.0.1:${h.port}/other/websocket?token=${API_KEY}`);
    expect(p.status).toBe(404);
  });

  it('closes a socket idle for idleTimeoutMs; a heartbeat keeps it open', async () => {
    const h2 = await startStream({ idleTimeoutMs: 300 });
    try {
      const idle = await RawClient.connect(h2.socketUrl());
      const busy = await RawClient.connect(h2.socketUrl());
      const beat = setInterval(() => busy.send([null, 'hb', 'phoenix', 'heartbeat', {}]), 100);
      try {
        const closed = await idle.waitClosed(2000);
        expect(closed.code).toBe(1000);
        await sleep(300);
        expect(busy.closed).toBeNull();
        expect(h2.stream.stats().idleClosed).toBe(1);
      } finally {
        clearInterval(beat);
        busy.close();
      }
    } finally {
      await h2.close();
    }
  });

  it('close() closes client sockets with 1001 and detaches from the HTTP server', async () => {
    const c = await joined(APES);
    await h.stream.close();
    const closed = await c.waitClosed();
    expect(closed.code).toBe(1001);
    expect(h.stream.connectionCount).toBe(0);
    expect(h.http.listenerCount('upgrade')).toBe(0);
    // events appended after close go nowhere and do not throw
    expect(() => h.log.append(sampleInput('listing'))).not.toThrow();
  });

  it('counts connections', async () => {
    const a = await client();
    await client();
    expect(h.stream.stats().connections).toBe(2);
    a.close();
    await until(() => h.stream.stats().connections === 1, 2000, 'connection count');
    expect(h.stream.stats().connectionsTotal).toBe(2);
  });

  it('is the StreamControl the REST admin surface forwards faults to', () => {
    const control: StreamControl = h.stream;
    control.faults.configure({ duplicateRate: 0.5, reorderWindow: 3 });
    expect(h.stream.faults.settings()).toEqual({ duplicateRate: 0.5, reorderWindow: 3, malformedRate: 0 });
    control.faults.reset();
    expect(h.stream.faults.settings()).toEqual({ duplicateRate: 0, reorderWindow: 0, malformedRate: 0 });
    expect(control.faults.dropAll()).toBe(0);
  });
});
