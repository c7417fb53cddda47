import { describe, expect, it } from 'vitest';
import {
  collectionTopic,
  decodeFrame,
  encodeBroadcast,
  encodeFrame,
  parseEventTypesFilter,
  parseTopic,
  parseVsn,
  replyFrame,
} from '../../../../src/sandbox/stream/protocol.ts';

describe('parseVsn', () => {
  it('absent or 1.x → 1, 2.x → 2, anything else → null', () => {
    expect(parseVsn(null)).toBe(1);
    expect(parseVsn(undefined)).toBe(1);
    expect(parseVsn('')).toBe(1);
    expect(parseVsn('1.0.0')).toBe(1);
    expect(parseVsn('2.0.0')).toBe(2);
    expect(parseVsn('3.0.0')).toBeNull();
    expect(parseVsn('2')).toBeNull();
    expect(parseVsn('latest')).toBeNull();
  });
});

describe('parseTopic', () => {
  it('collection:<slug>, collection:* and phoenix', () => {
    expect(parseTopic('collection:harpoon-apes')).toEqual({ kind: 'collection', slug: 'harpoon-apes' });
    expect(parseTopic('collection:no-such-collection')).toEqual({
      kind: 'collection',
      slug: 'no-such-collection',
    });
    expect(parseTopic('collection:*')).toEqual({ kind: 'all' });
    expect(parseTopic('phoenix')).toEqual({ kind: 'phoenix' });
  });

  it('rejects anything else', () => {
    for (const t of ['collection:', 'collections:x', 'room:lobby', '', 'collection:a b', 'COLLECTION:x']) {
      expect(parseTopic(t), t).toBeNull();
    }
  });

  it('collectionTopic is the inverse for slugs', () => {
    expect(collectionTopic('harpoon-apes')).toBe('collection:harpoon-apes');
    expect(parseTopic(collectionTopic('x'))).toEqual({ kind: 'collection', slug: 'x' });
  });
});

describe('vsn 2 codec (arrays)', () => {
  it('decodes [join_ref, ref, topic, event, payload]', () => {
    const r = decodeFrame(2, '["1","1","collection:x","phx_join",{"event_types":["item_listed"]}]');
    expect(r).toEqual({
      ok: true,
      frame: {
        joinRef: '1',
        ref: '1',
        topic: 'collection:x',
        event: 'phx_join',
        payload: { event_types: ['item_listed'] },
      },
    });
  });

  it('keeps null and numeric refs', () => {
    const r = decodeFrame(2, '[null,7,"phoenix","heartbeat",{}]');
    expect(r.ok && r.frame.joinRef).toBeNull();
    expect(r.ok && r.frame.ref).toBe(7);
  });

  it('rejects malformed frames without throwing', () => {
    for (const text of [
      'not json',
      '{"topic":"x","event":"y","payload":{},"ref":1}',
      '[1,2,3]',
      '[null,null,5,"e",{}]',
      '[null,null,"t",null,{}]',
      '[{},null,"t","e",{}]',
      '[null,null,"t","e",{},"extra"]',
      '',
    ]) {
      const r = decodeFrame(2, text);
      expect(r.ok, text).toBe(false);
    }
  });

  it('encodes arrays', () => {
    const f = replyFrame({ joinRef: '3', ref: '4', topic: 'collection:x' }, 'ok');
    expect(encodeFrame(2, f)).toBe('["3","4","collection:x","phx_reply",{"status":"ok","response":{}}]');
  });

  it('encodeBroadcast wraps pre-serialized JSON like encodeFrame would', () => {
    const payload = { event_type: 'item_listed', payload: { a: 1 }, sent_at: 's', version: 1 };
    const text = encodeBroadcast(2, 'collection:x', 'item_listed', JSON.stringify(payload));
    expect(JSON.parse(text)).toEqual([null, null, 'collection:x', 'item_listed', payload]);
    expect(text).toBe(
      encodeFrame(2, { joinRef: null, ref: null, topic: 'collection:x', event: 'item_listed', payload }),
    );
  });
});

describe('vsn 1 codec (objects)', () => {
  it('decodes {topic, event, payload, ref} with optional join_ref', () => {
    expect(decodeFrame(1, '{"topic":"collection:x","event":"phx_join","payload":{},"ref":1}')).toEqual({
      ok: true,
      frame: { joinRef: null, ref: 1, topic: 'collection:x', event: 'phx_join', payload: {} },
    });
    const r = decodeFrame(1, '{"topic":"t","event":"e","payload":{},"ref":"2","join_ref":"1"}');
    expect(r.ok && r.frame.joinRef).toBe('1');
  });

  it('rejects arrays and junk', () => {
    for (const text of [
      '[null,null,"t","e",{}]',
      'null',
      '"x"',
      '{"topic":1,"event":"e"}',
      '{"event":"e"}',
    ]) {
      expect(decodeFrame(1, text).ok, text).toBe(false);
    }
  });

  it('encodes objects', () => {
    const f = replyFrame({ joinRef: null, ref: 0, topic: 'phoenix' }, 'ok');
    expect(JSON.parse(encodeFrame(1, f))).toEqual({
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: 0,
    });
    const text = encodeBroadcast(1, 'collection:*', 'item_sold', '{"k":true}');
    expect(JSON.parse(text)).toEqual({
      topic: 'collection:*',
      event: 'item_sold',
      payload: { k: true },
      ref: null,
    });
  });
});

describe('parseEventTypesFilter', () => {
  it('no payload, {} or an empty list → no filter', () => {
    expect(parseEventTypesFilter(undefined)).toEqual({ ok: true, filter: null });
    expect(parseEventTypesFilter({})).toEqual({ ok: true, filter: null });
    expect(parseEventTypesFilter({ event_types: [] })).toEqual({ ok: true, filter: null });
  });

  it('a list of names → that set', () => {
    const r = parseEventTypesFilter({ event_types: ['item_listed', 'item_sold'] });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.filter?.has('item_listed')).toBe(true);
      expect(r.filter?.has('item_sold')).toBe(true);
      expect(r.filter?.has('item_transferred')).toBe(false);
    }
  });

  it('anything else is an error', () => {
    for (const p of [{ event_types: 'item_listed' }, { event_types: [1] }, 'x', [1]]) {
      expect(parseEventTypesFilter(p).ok).toBe(false);
    }
  });
});
