import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import { decodeCursor, encodeCursor, pageLimit, paginate } from '../../../../src/sandbox/market/paging.ts';

describe('limit', () => {
  it('defaults, accepts 1..200 (numbers or numeric strings), rejects the rest with 400', () => {
    expect(pageLimit(undefined, 100)).toBe(100);
    expect(pageLimit(1, 100)).toBe(1);
    expect(pageLimit('200', 100)).toBe(200);
    for (const bad of [0, 201, 1.5, -3, 'x', '0']) {
      try {
        pageLimit(bad, 100);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(HttpError);
        expect((e as HttpError).status).toBe(400);
      }
    }
  });
});

describe('cursors', () => {
  it('round-trip and are opaque', () => {
    const c = encodeCursor('best_listings', 40);
    expect(c).not.toContain('40');
    expect(decodeCursor('best_listings', c)).toBe(40);
    expect(decodeCursor('best_listings', undefined)).toBe(0);
  });

  it('refuse cursors of another list and garbage', () => {
    expect(() => decodeCursor('all_offers', encodeCursor('best_listings', 3))).toThrow('invalid cursor');
    expect(() => decodeCursor('all_offers', '!!!')).toThrow('invalid cursor');
    expect(() => decodeCursor('all_offers', Buffer.from('all_offers:-1').toString('base64url'))).toThrow(
      'invalid cursor',
    );
  });

  it('walk a list page by page without overlap or gaps', () => {
    const all = Array.from({ length: 7 }, (_, i) => i);
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const p = paginate(all, 't', 3, cursor);
      seen.push(...p.items);
      cursor = p.next;
      pages++;
      if (pages === 2) expect(p.previous).toBeDefined();
    } while (cursor);
    expect(seen).toEqual(all);
    expect(pages).toBe(3);
    expect(paginate(all, 't', 3, undefined).previous).toBeUndefined();
  });
});
