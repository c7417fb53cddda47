import { describe, expect, it } from 'vitest';
import { Tombstones } from '../../../src/market/tombstones.ts';

describe('Tombstones', () => {
  it('drops the old ones oldest first, a hash written again counting from its last write', () => {
    const t = new Tombstones<string>();
    t.set('a', 100);
    t.set('b', 200);
    t.set('a', 300); // written again: its first write no longer drops it
    t.set('c', 400);
    t.dropOlderThan(550, 300); // drops what went before 250
    expect([t.has('a'), t.has('b'), t.has('c')]).toEqual([true, false, true]);
    expect(t.size).toBe(2);
    t.dropOlderThan(600, 300); // exactly 300 old stays
    expect(t.has('a')).toBe(true);
    t.dropOlderThan(601, 300);
    expect([t.has('a'), t.has('c')]).toEqual([false, true]);
  });

  it('since: every hash that went at or after a time, once, the deleted ones not', () => {
    const t = new Tombstones<string>();
    t.set('a', 10);
    t.set('b', 20);
    t.set('c', 30);
    t.set('b', 40);
    t.set('d', 40);
    t.delete('c');
    const seen: string[] = [];
    t.since(20, (k) => seen.push(k));
    expect(seen).toEqual(['d', 'b']);
    const all: string[] = [];
    t.since(0, (k) => all.push(k));
    expect(all.sort()).toEqual(['a', 'b', 'd']);
  });

  it('a deleted hash is not dropped again after it is written anew; the log is compacted as it drops', () => {
    const t = new Tombstones<number>();
    for (let i = 0; i < 5_000; i++) t.set(i, i);
    t.delete(10);
    t.set(10, 4_999);
    t.dropOlderThan(4_000, 0); // drops 0..3999 but 10, written again at 4999
    expect(t.size).toBe(1_001);
    expect(t.has(10)).toBe(true);
    expect(t.has(3_999)).toBe(false);
    const since: number[] = [];
    t.since(4_998, (k) => since.push(k));
    expect(since.sort((a, b) => a - b)).toEqual([10, 4_998, 4_999]);
    t.dropOlderThan(10_000, 0);
    expect(t.size).toBe(0);
  });
});
