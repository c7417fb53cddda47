import { describe, expect, it } from 'vitest';
import type { OrderHash } from '../../../src/domain/ids.ts';
import { GroupedBook } from '../../../src/market/book.ts';
import type { OrderEntry } from '../../../src/market/entries.ts';
import { SharedMap } from '../../../src/market/shared-map.ts';
import type { Known, PriceLevel } from '../../../src/market/snapshot.ts';
import { prng } from '../../../src/sandbox/catalog/traits.ts';
import { ETH } from './fakes.ts';

let serial = 0;
function entry(group: string, price: bigint): OrderEntry {
  const orderHash = `0x${(++serial).toString(16).padStart(64, '0')}` as OrderHash;
  const level: PriceLevel = { price, paymentToken: ETH, orderHash, maker: null, expiresAt: null };
  const known: Known<PriceLevel> = { value: level, learnedAt: serial, from: 'stream' };
  return {
    side: 'listing',
    orderHash,
    nftKey: group,
    traitKey: null,
    remaining: 1n,
    level,
    createdAt: serial,
    learnedAt: serial,
    from: 'stream',
    known,
  };
}

const cheapestFirst = (a: OrderEntry, b: OrderEntry) =>
  a.level.price < b.level.price ? -1 : a.level.price > b.level.price ? 1 : a.createdAt - b.createdAt;

/** What a snapshot made whole from the book holds, in the book's order. */
const whole = (book: GroupedBook) => [...book.bests()].map(([k, e]) => [k, e.known] as const);

describe('shared maps of the bests', () => {
  it('a map made from the last one by the changes since is the map made whole, in the same order', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const next = prng(seed);
      const book = new GroupedBook((e) => e.nftKey, cheapestFirst);
      const live: OrderEntry[] = [];
      let map: SharedMap<string, Known<PriceLevel>> | undefined;
      const maps: [SharedMap<string, Known<PriceLevel>>, (readonly [string, Known<PriceLevel>])[]][] = [];
      for (let step = 0; step < 3_000; step++) {
        const r = next();
        if (r < 0.5 || live.length === 0) {
          const e = entry(`g${Math.floor(next() * 40)}`, BigInt(1 + Math.floor(next() * 20)));
          book.add(e);
          live.push(e);
        } else if (r < 0.95) {
          const i = Math.floor(next() * live.length);
          const [e] = live.splice(i, 1);
          book.remove((e as OrderEntry).orderHash);
        } else if (r < 0.96) {
          book.reset(live);
        }
        // a snapshot now and then (several changes between two, or one)
        if (next() < 0.3) {
          const changes = book.takeChanges();
          map = changes === null || map === undefined ? SharedMap.of(whole(book)) : map.with(changes);
          const expected = whole(book);
          expect([...map]).toEqual(expected);
          expect(map.size).toBe(expected.length);
          if (step % 97 === 0) maps.push([map, expected]);
        }
      }
      // every map handed out is still what it was
      for (const [m, expected] of maps) expect([...m.entries()]).toEqual(expected);
    }
  });

  it('reads like a Map and cannot be changed', () => {
    const a = SharedMap.of<string, number>([
      ['x', 1],
      ['y', 2],
      ['z', 3],
    ]);
    const b = a.with([
      ['y', undefined, false],
      ['w', 4, true],
      ['x', 10, false],
      ['y', 20, true],
      ['v', 5, true],
      ['v', undefined, false],
      ['q', undefined, false],
    ]);
    expect([...a]).toEqual([
      ['x', 1],
      ['y', 2],
      ['z', 3],
    ]);
    expect([...b]).toEqual([
      ['x', 10],
      ['z', 3],
      ['w', 4],
      ['y', 20],
    ]);
    expect([...b.keys()]).toEqual(['x', 'z', 'w', 'y']);
    expect([...b.values()]).toEqual([10, 3, 4, 20]);
    expect(b.size).toBe(4);
    expect(b.get('y')).toBe(20);
    expect(b.get('v')).toBeUndefined();
    expect(b.has('v')).toBe(false);
    expect(b.has('z')).toBe(true);
    const seen: string[] = [];
    b.forEach((v, k, m) => {
      seen.push(`${k}=${v}${m === b ? '' : '?'}`);
    });
    expect(seen).toEqual(['x=10', 'z=3', 'w=4', 'y=20']);
    expect(Object.isFrozen(b)).toBe(true);
    expect((b as unknown as { set?: unknown }).set).toBeUndefined();
  });
});
