import { describe, expect, it } from 'vitest';
import {
  combinations,
  parseSweep,
  parseSweeps,
  rank,
  type SweepResult,
} from '../../../src/backtest/sweep.ts';

describe('sweep specs', () => {
  it('ranges include both ends; lists keep numbers as numbers', () => {
    expect(parseSweep('sniper.discountBps=1000..3000:500')).toMatchObject({
      strategy: 'sniper',
      path: ['discountBps'],
      values: [1000, 1500, 2000, 2500, 3000],
    });
    expect(parseSweep('sniper.discountBps=1..3').values).toEqual([1, 2, 3]);
    expect(parseSweep('seller.markupBps=0.5..1.5:0.25').values).toEqual([0.5, 0.75, 1, 1.25, 1.5]);
    expect(parseSweep('sniper.basis=collection,trait').values).toEqual(['collection', 'trait']);
    expect(parseSweep('seller.collectionFeeBps.harpoon-apes=300,350').path).toEqual([
      'collectionFeeBps',
      'harpoon-apes',
    ]);
  });

  it('refuses what is not a spec', () => {
    expect(() => parseSweep('sniper.discountBps')).toThrow(/expected strategy.param=values/);
    expect(() => parseSweep('discountBps=1,2')).toThrow(/strategy.param/);
    expect(() => parseSweep('sniper.discountBps=3000..1000:500')).toThrow(/ends before it starts/);
    expect(() => parseSweep('sniper.discountBps=1..5:0')).toThrow(/step must be > 0/);
    expect(() => parseSweep('sniper.discountBps=1,,2')).toThrow(/comma-separated/);
    // a range gone wrong is said as one, not read as a list of words
    expect(() => parseSweep('sniper.discountBps=1000..3000:-500')).toThrow(/a range is from\.\.to/);
    expect(() => parseSweep('sniper.discountBps=1000..x')).toThrow(/a range is from\.\.to/);
    // scientific notation is no range's number (it was taken as the text "1e3..2e3")
    expect(() => parseSweep('sniper.discountBps=1e3..2e3')).toThrow(/plain numbers \(1000, not 1e3\)/);
    // in quotes, it is one text value
    expect(parseSweep(`a.b='x..y'`).values).toEqual(['x..y']);
    // the same value twice would run one combination twice
    expect(() => parseSweep('sniper.discountBps=1000,2000,1000')).toThrow(
      "--sweep 'sniper.discountBps=1000,2000,1000': 1000 is listed twice",
    );
    expect(() => parseSweep(`sniper.maxPrice="0.01",'0.01'`)).toThrow(/"0\.01" is listed twice/);
  });

  it('a value in quotes stays text (an amount); the same parameter twice is refused', () => {
    expect(parseSweep(`sniper.maxPrice="0.01","0.05"`).values).toEqual(['0.01', '0.05']);
    expect(parseSweep(`sniper.maxPrice='0.010',0.05`).values).toEqual(['0.010', 0.05]);
    expect(parseSweeps(['sniper.discountBps=1,2', 'seller.markupBps=3']).map((a) => a.values)).toEqual([
      [1, 2],
      [3],
    ]);
    expect(() => parseSweeps(['sniper.discountBps=1,2', 'sniper.discountBps=3,4'])).toThrow(
      /'sniper\.discountBps=3,4': sniper\.discountBps is already swept by 'sniper\.discountBps=1,2'/,
    );
  });

  it('combinations: the cartesian product, first axis slowest', () => {
    const c = combinations([parseSweep('a.x=1,2'), parseSweep('b.y=p,q,r')]);
    expect(c).toHaveLength(6);
    expect(c.map((o) => o.map((x) => x.value).join(''))).toEqual(['1p', '1q', '1r', '2p', '2q', '2r']);
  });

  it('ranks by equity, then smaller drawdown, then the order of the combinations', () => {
    const r = (index: number, equity: string, dd: string) =>
      ({ index, params: {}, equity, total: { maxDrawdown: dd }, byStrategy: [] }) as unknown as SweepResult;
    const ranked = rank([r(0, '5', '3'), r(1, '9', '1'), r(2, '5', '2'), r(3, '5', '2'), r(4, '-1', '0')]);
    expect(ranked.map((x) => [x.index, x.rank])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [0, 4],
      [4, 5],
    ]);
  });
});
