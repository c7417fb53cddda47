import { describe, expect, it } from 'vitest';
import { createBackoff, SeenWindow } from '../../../src/stream/index.ts';

const S = 1_700_000_000;

describe('SeenWindow', () => {
  it('new, duplicate, late; resume point never before what is remembered', () => {
    const w = new SeenWindow({ windowSec: 10, maxIds: 100, baselineMs: S * 1000 });
    expect(w.add('a', S * 1000 + 5)).toBe('new');
    expect(w.add('a', S * 1000 + 5)).toBe('duplicate');
    expect(w.add('old', (S - 1) * 1000)).toBe('late');
    expect(w.add('b', (S + 30) * 1000)).toBe('new');
    expect(w.newestMs).toBe((S + 30) * 1000);
    // 'a' fell out of the 10 s window: the invariant moves sinceSec past it
    expect(w.has('a')).toBe(false);
    expect(w.sinceSec).toBe(S + 1);
    expect(w.resumeSec(5)).toBe(S + 25);
    expect(w.resumeSec(100)).toBe(S + 1);
  });

  it('is bounded by count, and moves sinceSec past what it forgot', () => {
    const w = new SeenWindow({ windowSec: 1000, maxIds: 20, baselineMs: S * 1000 });
    for (let i = 0; i < 50; i++) w.add(`e${i}`, (S + i) * 1000);
    expect(w.size).toBe(20);
    expect(w.has('e49')).toBe(true);
    expect(w.has('e29')).toBe(false);
    expect(w.sinceSec).toBe(S + 30);
    expect(w.add('e10', (S + 10) * 1000)).toBe('late');
  });

  it('export / import round trip keeps the ids after the resume point', () => {
    const w = new SeenWindow({ windowSec: 1000, maxIds: 1000, baselineMs: S * 1000 });
    for (let i = 0; i < 10; i++) w.add(`e${i}`, (S + i) * 1000);
    const mark = w.export(3);
    expect(mark.sinceSec).toBe(S + 6);
    expect([...mark.ids].sort()).toEqual(['e6', 'e7', 'e8', 'e9']);
    const back = new SeenWindow({ windowSec: 1000, maxIds: 1000, initial: mark });
    expect(back.add('e7', (S + 7) * 1000)).toBe('duplicate');
    expect(back.add('e10', (S + 10) * 1000)).toBe('new');
    expect(back.add('e2', (S + 2) * 1000)).toBe('late');
  });
});

describe('createBackoff', () => {
  it('grows by factor, caps, and spreads by jitter', () => {
    const lo = createBackoff({ initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.5 }, () => 0);
    const hi = createBackoff({ initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.5 }, () => 1);
    expect([0, 1, 2, 3, 4, 5].map((a) => lo.delay(a))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 5].map((a) => hi.delay(a))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});
