import { describe, expect, it } from 'vitest';
import { effectiveMargin, LocalBucket } from '../../../src/ratelimit/bucket.ts';

const rate = { count: 10, windowMs: 1000 }; // one token per 100 ms

describe('LocalBucket', () => {
  it('starts full, grants up to the tokens it has, and says when the next one comes', () => {
    const b = new LocalBucket(rate, 0, 0);
    const r1 = b.take(15, 0);
    expect(r1).toMatchObject({ granted: 10, firstTicket: 1, waitMs: 100 });
    const r2 = b.take(1, 50);
    expect(r2).toMatchObject({ granted: 0, firstTicket: 11, waitMs: 50 });
    const r3 = b.take(1, 100);
    expect(r3).toMatchObject({ granted: 1, firstTicket: 11, waitMs: 0 });
  });

  it('refills continuously and never above capacity', () => {
    const b = new LocalBucket(rate, 0, 0);
    b.take(10, 0);
    expect(b.snapshot(250).tokens).toBeCloseTo(2.5);
    expect(b.snapshot(60_000).tokens).toBe(10);
  });

  it('holds back the safety margin, but never more than half the spare capacity', () => {
    const b = new LocalBucket(rate, 1, 0);
    expect(b.take(20, 0).granted).toBe(9);
    expect(effectiveMargin(1, 10)).toBe(1);
    expect(effectiveMargin(1, 2)).toBe(0.5);
    expect(effectiveMargin(1, 1)).toBe(0);
    const one = new LocalBucket({ count: 1, windowMs: 1000 }, 1, 0);
    expect(one.take(1, 0).granted).toBe(1);
  });

  it('sync: limit replaces capacity and rate; remaining minus later tickets replaces the tokens', () => {
    const b = new LocalBucket(rate, 0, 0);
    b.take(3, 0); // tickets 1..3
    b.sync({ ticket: 1, remaining: 5, limit: 6, uncountedBefore: 0 }, 0);
    const s = b.snapshot(0);
    expect(s.limit).toBe(6);
    expect(s.tokens).toBe(5 - 2);
    // 6 per second now: a token every ~166.7 ms
    expect(b.snapshot(500).tokens).toBeCloseTo(3 + 3);
  });

  it('sync: ignores observations older than one already applied', () => {
    const b = new LocalBucket(rate, 0, 0);
    b.take(4, 0);
    b.sync({ ticket: 3, remaining: 2, uncountedBefore: 0 }, 0);
    expect(b.snapshot(0).tokens).toBe(1);
    b.sync({ ticket: 2, remaining: 9, uncountedBefore: 0 }, 0);
    expect(b.snapshot(0).tokens).toBe(1);
  });

  it('sync without a ticket only lowers', () => {
    const b = new LocalBucket(rate, 0, 0);
    b.take(2, 0);
    b.sync({ remaining: 9, uncountedBefore: 0 }, 0);
    expect(b.snapshot(0).tokens).toBe(8);
    b.sync({ remaining: 4, uncountedBefore: 1 }, 0);
    expect(b.snapshot(0).tokens).toBe(3);
  });

  it('a debt (negative estimate) delays the next token accordingly', () => {
    const b = new LocalBucket(rate, 0, 0);
    b.take(5, 0); // tickets 1..5
    b.sync({ ticket: 1, remaining: 0, uncountedBefore: 0 }, 0); // 4 sent after it: -4
    expect(b.take(1, 0)).toMatchObject({ granted: 0, waitMs: 500 });
  });

  it('pause blocks every take until it ends; a later pause wins', () => {
    const b = new LocalBucket(rate, 0, 0);
    b.pause(1000, 0);
    b.pause(500, 0);
    expect(b.take(1, 999)).toMatchObject({ granted: 0, waitMs: 1 });
    expect(b.take(1, 1000).granted).toBe(1);
  });

  it('setRate re-sizes and asks for a new probe (synced false)', () => {
    const b = new LocalBucket(rate, 0, 0);
    b.sync({ ticket: 0, limit: 10, uncountedBefore: 0 }, 0);
    b.sync({ limit: 12, uncountedBefore: 0 }, 0);
    expect(b.snapshot(0).synced).toBe(true);
    b.setRate({ count: 3, windowMs: 60_000 }, 0);
    expect(b.snapshot(0)).toMatchObject({ limit: 3, windowMs: 60_000, tokens: 3, synced: false });
  });
});
