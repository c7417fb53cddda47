import { describe, expect, it } from 'vitest';
import { groupOfRequest, throttledBody } from '../../../../src/sandbox/ratelimit/http.ts';
import { type LimiterClock, TokenBucketLimiter } from '../../../../src/sandbox/ratelimit/token-bucket.ts';

class ManualClock implements LimiterClock {
  mono = 0;
  wall = 1_700_000_000_000;
  now() {
    return this.mono;
  }
  wallNow() {
    return this.wall + this.mono;
  }
  advance(ms: number) {
    this.mono += ms;
  }
}

const LIMITS = {
  read: { capacity: 4, windowMs: 1000 }, // a token per 250 ms
  write: { capacity: 2, windowMs: 60_000 },
  fulfillment: { capacity: 1, windowMs: 10_000 },
};

describe('TokenBucketLimiter', () => {
  it('allows a burst up to capacity, then refuses', () => {
    const clock = new ManualClock();
    const l = new TokenBucketLimiter({ limits: LIMITS, clock });
    const got = Array.from({ length: 5 }, () => l.take('acct', 'read'));
    expect(got.map((d) => d.allowed)).toEqual([true, true, true, true, false]);
    expect(got.map((d) => d.remaining)).toEqual([3, 2, 1, 0, 0]);
    expect(got[0]?.limit).toBe(4);
  });

  it('refills continuously at capacity per window', () => {
    const clock = new ManualClock();
    const l = new TokenBucketLimiter({ limits: LIMITS, clock });
    for (let i = 0; i < 4; i++) l.take('acct', 'read');
    clock.advance(249);
    expect(l.take('acct', 'read').allowed).toBe(false);
    clock.advance(1);
    expect(l.take('acct', 'read').allowed).toBe(true);
    clock.advance(10_000);
    expect(l.peek('acct', 'read').remaining).toBe(4);
  });

  it('Reset is the epoch second when the bucket is full again; Retry-After rounds up to whole seconds', () => {
    const clock = new ManualClock();
    const l = new TokenBucketLimiter({ limits: LIMITS, clock });
    const wall0 = clock.wallNow();
    l.take('acct', 'write');
    const second = l.take('acct', 'write');
    // empty: full again in 60 s
    expect(second.resetEpochSeconds).toBe(Math.ceil((wall0 + 60_000) / 1000));
    const refused = l.take('acct', 'write');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 30 });
    clock.advance(29_500);
    expect(l.take('acct', 'write').retryAfterSeconds).toBe(1);
    // read: a token in 250 ms is still "1 second"
    for (let i = 0; i < 4; i++) l.take('acct', 'read');
    expect(l.take('acct', 'read').retryAfterSeconds).toBe(1);
  });

  it('buckets are per account and per group', () => {
    const clock = new ManualClock();
    const l = new TokenBucketLimiter({ limits: LIMITS, clock });
    expect(l.take('a', 'fulfillment').allowed).toBe(true);
    expect(l.take('a', 'fulfillment').allowed).toBe(false);
    expect(l.take('b', 'fulfillment').allowed).toBe(true);
    expect(l.take('a', 'read').allowed).toBe(true);
  });

  it('setLimit changes capacity live; invalid limits are refused', () => {
    const clock = new ManualClock();
    const l = new TokenBucketLimiter({ limits: LIMITS, clock });
    l.take('a', 'read');
    l.setLimit('read', { capacity: 2, windowMs: 1000 });
    expect(l.take('a', 'read')).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(() => l.setLimit('read', { capacity: 0, windowMs: 1000 })).toThrow(RangeError);
    expect(() => new TokenBucketLimiter({ limits: { read: { capacity: 1, windowMs: 0 } } })).toThrow(
      /windowMs/,
    );
  });
});

describe('request groups and the throttle body', () => {
  it.each([
    ['GET', '/api/v2/collections/x', 'read'],
    ['HEAD', '/api/v2/collections/x', 'read'],
    ['POST', '/api/v2/listings/fulfillment_data', 'fulfillment'],
    ['POST', '/api/v2/offers/fulfillment_data?x=1', 'fulfillment'],
    ['POST', '/api/v2/orders/ethereum/seaport/offers', 'write'],
    ['PATCH', '/api/v2/collections/x', 'write'],
    ['DELETE', '/api/v2/auth/tokens/1', 'write'],
    ['POST', '/api/v2/collections/batch', 'read'],
    ['POST', '/api/v2/nfts/batch', 'read'],
    ['POST', '/api/v2/tokens/batch?x=1', 'read'],
    ['POST', '/api/v2/collections/batch/extra', 'write'],
  ] as const)('%s %s → %s', (method, path, group) => {
    expect(groupOfRequest(method, path)).toBe(group);
  });

  it('says when to come back', () => {
    expect(JSON.parse(throttledBody(3))).toEqual({
      errors: ['Request was throttled. Expected available in 3 seconds.'],
    });
  });
});
