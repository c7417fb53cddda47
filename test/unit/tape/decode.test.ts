import { describe, expect, it } from 'vitest';
import {
  decodeLine,
  decodeRecord,
  encodeRecord,
  REST_DELTA_KEYS,
  type RestCall,
  RestDeltaDecoder,
  RestDeltaEncoder,
  TapeFormatError,
  type TapeRecord,
  type TapeRest,
} from '../../../src/tape/format.ts';

const at = (line: string) => {
  const buf = Buffer.from(`xx${line}\nyy`, 'utf8');
  return decodeLine(buf, 2, 2 + Buffer.byteLength(line));
};

describe('decodeLine', () => {
  it('a REST answer: the head at once, the body when first read, equal to a whole decode', () => {
    const rec: TapeRecord = {
      k: 'rest',
      at: 1_800_000_000_000,
      call: 'traitOffers',
      slug: 'punks',
      next: 'c,"response":1', // a cursor holding the body's own marker
      response: { offers: [{ price: '1', trait: 'Fur ✓' }], next: null },
    };
    const line = encodeRecord(rec);
    const lazy = at(line);
    expect(lazy).toMatchObject({ k: 'rest', at: rec.at, call: 'traitOffers', slug: 'punks', next: rec.next });
    const body = (lazy as { response: unknown }).response;
    expect(body).toEqual(rec.response);
    expect((lazy as { response: unknown }).response).toBe(body); // parsed once
    expect(JSON.parse(JSON.stringify(lazy))).toEqual(JSON.parse(JSON.stringify(decodeRecord(line))));
  });

  it('a REST line written another way, and any other line, are decoded whole', () => {
    const other = '{"at":5,"k":"rest","call":"stats","slug":"apes","next":null,"response":{"total":{}}}';
    const r = at(other);
    expect(Object.getOwnPropertyDescriptor(r, 'response')?.get).toBeUndefined();
    expect(r).toEqual(decodeRecord(other));
    const extra =
      '{"k":"rest","at":5,"call":"stats","slug":"apes","next":null,"more":1,"response":{"total":{}}}';
    expect(Object.getOwnPropertyDescriptor(at(extra), 'response')?.get).toBeUndefined();
    const gas = encodeRecord({ k: 'gas', at: 7, price: 12n });
    expect(at(gas)).toEqual({ k: 'gas', at: 7, price: 12n });
  });

  it('a REST body that is not JSON fails when read, naming the answer', () => {
    const line = encodeRecord({
      k: 'rest',
      at: 1,
      call: 'stats',
      slug: 'a',
      next: null,
      response: { total: {} },
    });
    const r = at(line.slice(0, -2));
    expect(() => (r as { response: unknown }).response).toThrow(
      /the stats answer for a recorded at 1 is not JSON/,
    );
  });
});

const offer = (n: number, price = String(n)) => ({
  order_hash: `0x${n.toString(16).padStart(4, '0')}`,
  price,
});
const answer = (
  at: number,
  response: unknown,
  call: RestCall = 'traitOffers',
  slug = 'punks',
  next: string | null = null,
): TapeRest => ({ k: 'rest', at, call, slug, next, response });

/** Encodes in version 3 with one writer's memory, decodes each line as a reader does. */
function writeAndRead(records: TapeRest[]): { lines: string[]; back: (TapeRecord | undefined)[] } {
  const enc = new RestDeltaEncoder();
  const dec = new RestDeltaDecoder();
  const lines = records.map((r) => encodeRecord(r, 3, enc));
  return { lines, back: lines.map((l) => dec.resolve(at(l))) };
}

describe('REST answers as changes (version 3)', () => {
  it('an answer is written as its new items and runs of the one before, and read back equal, fields in order', () => {
    const first = { offers: [1, 2, 3, 4, 5, 6].map((n) => offer(n)), next: 'c1', total: 6 };
    // 2 and 5 gone, 3 repriced, 7 and 8 new, 6 moved ahead of 4
    const second = {
      offers: [offer(1), offer(8), offer(3, '9'), offer(6), offer(4), offer(7)],
      next: null,
      total: 6,
    };
    const third = { offers: [offer(8), offer(3, '9'), offer(6)], next: null, total: 3 };
    const { lines, back } = writeAndRead([answer(1, first), answer(2, second), answer(3, third)]);
    expect(lines[0]).not.toContain('"same"');
    expect(lines[1]).toContain('"same":{"offers":[0,1,-1,2,5,1,3,1,-1,1]}');
    expect(lines[2]).toContain('"same":{"offers":[1,3]}');
    expect(lines[2]).toContain('"offers":[]');
    expect(lines[2]?.length).toBeLessThan(encodeRecord(answer(3, third), 2).length);
    const responses = back.map((r) => (r as TapeRest).response);
    expect(responses).toEqual([first, second, third]);
    expect(responses.map((r) => JSON.stringify(r))).toEqual(
      [first, second, third].map((r) => JSON.stringify(r)),
    );
    // what is the same is the same object as in the answer before
    const [a, b] = responses as { offers: unknown[] }[];
    expect(b?.offers[0]).toBe(a?.offers[0]);
    expect(back[1]).toEqual({
      k: 'rest',
      at: 2,
      call: 'traitOffers',
      slug: 'punks',
      next: null,
      response: second,
    });
  });

  it('written whole: the first of each call and collection, a later page always, one with nothing the same, and any answer that is not an object of fields', () => {
    const recs = [
      answer(1, { offers: [offer(1), offer(2)] }),
      answer(2, { offers: [offer(1), offer(2)] }, 'traitOffers', 'apes'),
      answer(3, { offers: [offer(1), offer(2)] }, 'traitOffers', 'punks', 'p2'),
      answer(4, { offers: [offer(1), offer(2)] }, 'collectionOffers'),
      answer(5, { offers: [offer(3)] }),
      answer(6, [offer(3)]),
      answer(7, null),
      answer(8, { offers: [offer(3)], names: ['a', 'b'], empty: [] }),
      // a later page again, the same: still whole (a live API's cursors change with its book)
      answer(9, { offers: [offer(1), offer(2)] }, 'traitOffers', 'punks', 'p2'),
      answer(10, { offers: [offer(3)], names: ['a', 'b'], empty: [] }),
    ];
    const { lines, back } = writeAndRead(recs);
    expect(lines.map((l) => l.includes('"same"'))).toEqual([...Array(9).fill(false), true]);
    // a whole answer is the line version 2 writes (read lazily, as before)
    for (let i = 0; i < 9; i++) expect(lines[i]).toBe(encodeRecord(recs[i] as TapeRest, 2));
    expect(lines[9]).toContain('"same":{"offers":[0,1]}');
    expect(back.map((r) => (r as TapeRest).response)).toEqual(recs.map((r) => r.response));
  });

  it('a field named __proto__ is written as changes and read back as a field', () => {
    const odd = (n: number) => JSON.parse(`{"__proto__":[{"n":1},{"n":${n}}],"next":null}`) as unknown;
    const { lines, back } = writeAndRead([answer(1, odd(2)), answer(2, odd(3))]);
    expect(lines[1]).toContain('"same":{"__proto__":[0,1,-1,1]}');
    const got = (back[1] as TapeRest).response as object;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(JSON.stringify(got)).toBe('{"__proto__":[{"n":1},{"n":3}],"next":null}');
  });

  it('a writer that forgot (clear) writes the next answer whole; version 2 never writes changes', () => {
    const enc = new RestDeltaEncoder();
    const r = answer(1, { offers: [offer(1)] });
    encodeRecord(r, 3, enc);
    expect(encodeRecord({ ...r, at: 2 }, 3, enc)).toContain('"same"');
    enc.clear();
    expect(encodeRecord({ ...r, at: 3 }, 3, enc)).not.toContain('"same"');
    expect(encodeRecord({ ...r, at: 4 }, 2, enc)).toBe(JSON.stringify({ ...r, at: 4 }));
  });

  it('the last answer of at most REST_DELTA_KEYS calls, collections and cursors is remembered, by writer and reader alike', () => {
    const slugs = Array.from({ length: REST_DELTA_KEYS + 1 }, (_, i) => `c${i}`);
    const recs = [
      ...slugs.map((slug, i) => answer(i, { offers: [offer(i)] }, 'listings', slug)),
      // the first was forgotten (the least recently answered): whole; the last is remembered
      answer(5_000, { offers: [offer(0)] }, 'listings', 'c0'),
      answer(5_001, { offers: [offer(REST_DELTA_KEYS)] }, 'listings', `c${REST_DELTA_KEYS}`),
      // a stats answer that is no object of fields counts as answered too
      answer(5_002, null, 'stats', 'c1'),
    ];
    const { lines, back } = writeAndRead(recs);
    expect(lines.slice(-3).map((l) => l.includes('"same"'))).toEqual([false, true, false]);
    expect(back.map((r) => (r as TapeRest).response)).toEqual(recs.map((r) => r.response));
  });

  it('changes of an answer not on the tape are read as not recorded; changes that do not fit are a format error naming the answer', () => {
    const enc = new RestDeltaEncoder();
    encodeRecord(answer(1, { offers: [offer(1), offer(2)] }), 3, enc);
    const delta = encodeRecord(answer(2, { offers: [offer(2), offer(3)] }), 3, enc);
    expect(delta).toContain('"same"');
    // the answer before went into a tape that was deleted: this one is not recorded
    const fresh = new RestDeltaDecoder();
    expect(fresh.resolve(at(delta))).toBeUndefined();
    expect(fresh.resolve(decodeRecord(encodeRecord({ k: 'gas', at: 3, price: 1n })))).toEqual({
      k: 'gas',
      at: 3,
      price: 1n,
    });
    const bad = (same: string, fresh = '[]') => {
      const dec = new RestDeltaDecoder();
      dec.resolve(at(encodeRecord(answer(1, { offers: [offer(1), offer(2)] }), 3)));
      return () =>
        dec.resolve(
          at(
            `{"k":"rest","at":2,"call":"traitOffers","slug":"punks","next":null,"same":${same},"response":{"offers":${fresh}}}`,
          ),
        );
    };
    const why =
      /the traitOffers answer for punks recorded at 2 is written as changes that do not fit the answer before it: offers: /;
    expect(bad('{"offers":[0,3]}')).toThrow(why);
    expect(bad('{"offers":[0]}')).toThrow(why);
    expect(bad('{"offers":[-1,2]}', '[{"a":1}]')).toThrow(why);
    expect(bad('{"offers":[0,1]}', '[{"a":1}]')).toThrow(why);
    expect(bad('{"offers":[0,0]}')).toThrow(TapeFormatError);
    // an answer to a later page is never written as changes
    const dec = new RestDeltaDecoder();
    const page2 = (extra: string) =>
      at(
        `{"k":"rest","at":2,"call":"traitOffers","slug":"punks","next":"p2"${extra},"response":{"offers":[]}}`,
      );
    expect(dec.resolve(page2(''))).toMatchObject({ next: 'p2', response: { offers: [] } });
    expect(() => dec.resolve(page2(',"same":{"offers":[0,1]}'))).toThrow(
      /recorded at 2 is written as changes that do not fit the answer before it: an answer to a later page is written whole/,
    );
    expect(bad('{"offers":[0,2]}')()).toMatchObject({ response: { offers: [offer(1), offer(2)] } });
  });
});
