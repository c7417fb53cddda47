import { describe, expect, it } from 'vitest';
import { planRefresh, REFRESH_KINDS } from '../../../src/market/budget.ts';
import { displayToUnits, unitsToDisplay } from '../../../src/market/units.ts';

describe('display prices', () => {
  it('turns API doubles into exact smallest units', () => {
    expect(displayToUnits(1.25, 18)).toBe(1_250_000_000_000_000_000n);
    expect(displayToUnits(0.1, 18)).toBe(100_000_000_000_000_000n);
    expect(displayToUnits(1e-7, 18)).toBe(100_000_000_000n);
    expect(displayToUnits(1500.25, 6)).toBe(1_500_250_000n);
    expect(displayToUnits(0.0000001, 6)).toBe(0n); // below the token's precision: truncated
    expect(displayToUnits(2e21, 18)).toBe(2_000n * 10n ** 36n);
    expect(displayToUnits(-1, 18)).toBeUndefined();
    expect(displayToUnits(Number.NaN, 18)).toBeUndefined();
  });

  it('round-trips prices with up to 15 significant digits', () => {
    for (const wei of [123_456_789_012_345n, 100_000_000_000_001n, 987_654_321_000_000_000n, 1n]) {
      expect(displayToUnits(unitsToDisplay(wei, 18), 18)).toBe(wei);
    }
    expect(unitsToDisplay(1_500_250_000n, 6)).toBe(1500.25);
  });
});

describe('refresh budget', () => {
  const intervals = Object.fromEntries(REFRESH_KINDS.map((k) => [k, 60_000])) as never;
  const costs = Object.fromEntries(REFRESH_KINDS.map((k) => [k, 1])) as never;

  it('keeps the wanted intervals when they fit', () => {
    const p = planRefresh({ intervals, costs, collections: 1, readsPerHour: 1000 });
    expect(p.factor).toBe(1);
    expect(p.intervals.stats).toBe(60_000);
    expect(p.readsPerHour).toBe(360);
  });

  it('stretches every interval by one factor when they do not', () => {
    const p = planRefresh({ intervals, costs, collections: 10, readsPerHour: 360 });
    expect(p.factor).toBe(10);
    expect(p.intervals.listings).toBe(600_000);
    expect(p.readsPerHour).toBeCloseTo(360);
  });
});

describe('display prices beyond a double', () => {
  it('a 19-digit price comes back only as close as the double allows (why floors match listings by display value)', () => {
    const wei = 10n ** 18n + 1n;
    expect(displayToUnits(unitsToDisplay(wei, 18), 18)).toBe(10n ** 18n);
  });
});
