import { describe, expect, it } from 'vitest';
import { decodeLine, decodeRecord, encodeRecord, type TapeRecord } from '../../../src/tape/format.ts';

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
