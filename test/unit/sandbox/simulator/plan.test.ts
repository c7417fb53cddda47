import { describe, expect, it } from 'vitest';
import { prng } from '../../../../src/sandbox/catalog/traits.ts';
import {
  ACTION_KINDS,
  type ActionKind,
  actionRng,
  chooseKind,
  DEFAULT_WEIGHTS,
  LISTING_SIGMA,
  listingPriceFactor,
  OFFER_RANGES,
  offerPriceFactor,
  PRICE_STEP,
  planActions,
  scalePrice,
} from '../../../../src/sandbox/simulator/plan.ts';

const ETH = 10n ** 18n;

describe('action choice', () => {
  it('is a pure function of the seed: same seed, same sequence; another seed, another one', () => {
    const a = planActions(42, 200);
    expect(planActions(42, 200)).toEqual(a);
    expect(planActions(43, 200)).not.toEqual(a);
    expect(a.every((k) => (ACTION_KINDS as readonly string[]).includes(k))).toBe(true);
  });

  it('action n does not depend on what came before (its own PRNG per (seed, n))', () => {
    const all = planActions(7, 60);
    expect(planActions(7, 20, DEFAULT_WEIGHTS, 40)).toEqual(all.slice(40));
    // the parameters an action draws after its kind are reproducible too
    const draws = (n: number) => {
      const r = actionRng(7, n);
      return Array.from({ length: 8 }, () => r());
    };
    expect(draws(5)).toEqual(draws(5));
    expect(draws(5)).not.toEqual(draws(6));
  });

  it('follows the weights', () => {
    const n = 20_000;
    const counts = new Map<ActionKind, number>();
    for (const k of planActions(1, n)) counts.set(k, (counts.get(k) ?? 0) + 1);
    const total = Object.values(DEFAULT_WEIGHTS).reduce((s, w) => s + w, 0);
    for (const k of ACTION_KINDS) {
      const expected = DEFAULT_WEIGHTS[k] / total;
      expect(Math.abs((counts.get(k) ?? 0) / n - expected), k).toBeLessThan(0.015);
    }
  });

  it('never picks a zero-weight kind; refuses weights without a positive sum', () => {
    const onlyBuys = { ...Object.fromEntries(ACTION_KINDS.map((k) => [k, 0])), buy: 1 } as Record<
      ActionKind,
      number
    >;
    expect(new Set(planActions(3, 500, onlyBuys))).toEqual(new Set(['buy']));
    const noList = { ...DEFAULT_WEIGHTS, list: 0 };
    expect(planActions(3, 2000, noList)).not.toContain('list');
    expect(chooseKind(0.999_999_999, onlyBuys)).toBe('buy');
    expect(chooseKind(0, DEFAULT_WEIGHTS)).toBe('list');
    const zero = Object.fromEntries(ACTION_KINDS.map((k) => [k, 0])) as Record<ActionKind, number>;
    expect(() => chooseKind(0.5, zero)).toThrow(/positive sum/);
  });
});

describe('price spread', () => {
  const draws = (share: number, n = 20_000, seed = 9) => {
    const rng = prng(seed);
    return Array.from({ length: n }, () => listingPriceFactor(rng, share));
  };

  it('puts about `underpricedShare` of listings 20–40 % below the floor, the rest at or above it', () => {
    const d = draws(0.1);
    const under = d.filter((x) => x.underpriced);
    expect(Math.abs(under.length / d.length - 0.1)).toBeLessThan(0.01);
    for (const x of under) {
      expect(x.factor).toBeGreaterThanOrEqual(0.6);
      expect(x.factor).toBeLessThanOrEqual(0.8);
    }
    // the underpriced ones spread over the whole band, not one price
    expect(Math.min(...under.map((x) => x.factor))).toBeLessThan(0.62);
    expect(Math.max(...under.map((x) => x.factor))).toBeGreaterThan(0.78);
    const regular = d.filter((x) => !x.underpriced).map((x) => x.factor);
    expect(regular.every((f) => f >= 1)).toBe(true);
    // log-normal-ish above the floor: median of |z|·σ is 0.674σ, a tail but no outliers
    const sorted = [...regular].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    expect(Math.log(median)).toBeCloseTo(0.674 * LISTING_SIGMA, 2);
    expect(sorted[sorted.length - 1]).toBeLessThan(Math.exp(5 * LISTING_SIGMA));
    expect(sorted.filter((f) => f > 1.3).length).toBeGreaterThan(0);
  });

  it('honours the share at its bounds', () => {
    expect(draws(0, 2000).some((x) => x.underpriced)).toBe(false);
    expect(draws(1, 2000).every((x) => x.underpriced)).toBe(true);
    const d = draws(0.3, 10_000, 4);
    expect(Math.abs(d.filter((x) => x.underpriced).length / d.length - 0.3)).toBeLessThan(0.02);
  });

  it('bids offers under the floor in their ranges', () => {
    const rng = prng(11);
    for (const kind of ['item_offer', 'collection_offer', 'trait_offer'] as const) {
      const [lo, hi] = OFFER_RANGES[kind];
      const xs = Array.from({ length: 2000 }, () => offerPriceFactor(rng, kind));
      expect(Math.min(...xs)).toBeGreaterThanOrEqual(lo);
      expect(Math.max(...xs)).toBeLessThan(hi);
      expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan((hi - lo) * 0.9);
    }
    expect(OFFER_RANGES.collection_offer[1]).toBeLessThan(1);
  });

  it('scales a floor to whole price steps', () => {
    const floor = (5n * ETH) / 100n;
    expect(scalePrice(floor, 1)).toBe(floor);
    expect(scalePrice(floor, 0.7)).toBe((floor * 7n) / 10n);
    const odd = scalePrice(floor, 1.234_567_89);
    expect(odd % PRICE_STEP).toBe(0n);
    expect(Number(odd) / Number(floor)).toBeCloseTo(1.234_568, 4);
    expect(scalePrice(1n, 0.5)).toBe(PRICE_STEP);
  });
});
