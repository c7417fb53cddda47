import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import {
  advertisedOf,
  FREE_TIER,
  KeyCreationThrottled,
  KeyStore,
} from '../../../../src/sandbox/server/keys.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';

function fakeClock(start = Date.UTC(2025, 0, 1)) {
  let wall = start;
  return {
    now: () => wall - start,
    wallNow: () => wall,
    advance(ms: number) {
      wall += ms;
    },
  };
}

const HOUR = 3_600_000;

describe('KeyStore: instant keys', () => {
  it('issues the documented five fields with the free tier and a 7-day expiry', () => {
    const clock = fakeClock();
    const store = new KeyStore({ clock, advertised: advertisedOf(FREE_TIER) });
    const body = store.createInstant('10.0.0.1');
    expectValidResponse('POST', '/api/v2/auth/keys', 201, body);
    expect(Object.keys(body).sort()).toEqual(['api_key', 'expires_at', 'name', 'rate_limits', 'upgrade_url']);
    expect(body.name).toMatch(/^agent_free_[0-9a-f]+$/);
    expect(body.rate_limits).toEqual({ read: '600/h', write: '30/h', fulfillment: '5/m' });
    expect(body.expires_at).toBe(new Date(clock.wallNow() + 7 * 24 * HOUR).toISOString());
    expect(body.upgrade_url).toMatch(/^https:\/\//);
    expect(store.authenticate(body.api_key)).toMatchObject({ account: 'ip:10.0.0.1', keyName: body.name });
    expect(store.issued).toBe(1);
  });

  it('allows 3 per source IP per sliding hour, then 429 with the seconds until the oldest leaves', () => {
    const clock = fakeClock();
    const store = new KeyStore({ clock, advertised: advertisedOf(FREE_TIER) });
    store.createInstant('1.1.1.1');
    clock.advance(10 * 60_000);
    store.createInstant('1.1.1.1');
    store.createInstant('1.1.1.1');
    let err: unknown;
    try {
      store.createInstant('1.1.1.1');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KeyCreationThrottled);
    expect((err as KeyCreationThrottled).status).toBe(429);
    expect((err as KeyCreationThrottled).retryAfterSeconds).toBe(50 * 60);
    expect((err as KeyCreationThrottled).toBody()).toEqual({
      errors: [expect.stringMatching(/3 per 60 minutes/)],
    });
    // another IP is not affected
    expect(() => store.createInstant('2.2.2.2')).not.toThrow();
    // when the first creation leaves the window, one more is allowed (and only one)
    clock.advance(50 * 60_000);
    expect(() => store.createInstant('1.1.1.1')).not.toThrow();
    expect(() => store.createInstant('1.1.1.1')).toThrow(KeyCreationThrottled);
    expect(store.refused).toBe(2);
  });

  it('keys of one IP share one account, so more keys never raise the limit', () => {
    const store = new KeyStore({ clock: fakeClock(), advertised: advertisedOf(FREE_TIER) });
    const a = store.createInstant('9.9.9.9');
    const b = store.createInstant('9.9.9.9');
    expect(a.api_key).not.toBe(b.api_key);
    expect(store.authenticate(a.api_key)?.account).toBe(store.authenticate(b.api_key)?.account);
  });

  it('answers 503 while disabled (by config or by the fault switch) and counts the refusal', () => {
    const store = new KeyStore({ clock: fakeClock(), advertised: advertisedOf(FREE_TIER) });
    expect(() => store.createInstant('1.2.3.4', true)).toThrow(HttpError);
    store.disabled = true;
    let err: unknown;
    try {
      store.createInstant('1.2.3.4');
    } catch (e) {
      err = e;
    }
    expect((err as HttpError).status).toBe(503);
    expect((err as HttpError).toBody()).toEqual({ errors: [expect.any(String)] });
    store.disabled = false;
    expect(() => store.createInstant('1.2.3.4')).not.toThrow();
    expect(store.refused).toBe(2);
  });

  it('an expired key stops working; configurable lifetime', () => {
    const clock = fakeClock();
    const store = new KeyStore({ clock, advertised: advertisedOf(FREE_TIER), keyLifetimeMs: 1_000 });
    const k = store.createInstant('5.5.5.5');
    expect(store.authenticate(k.api_key)).toBeDefined();
    clock.advance(999);
    expect(store.authenticate(k.api_key)).toBeDefined();
    clock.advance(1);
    expect(store.authenticate(k.api_key)).toBeUndefined();
  });

  it('preconfigured keys map to their accounts; unknown and empty tokens are refused', () => {
    const clock = fakeClock();
    const store = new KeyStore({
      clock,
      advertised: { read: '10/s', write: '2/s', fulfillment: '1/s' },
      keys: [
        { apiKey: 'k-alice', account: 'alice' },
        { apiKey: 'k-alice-2', account: 'alice', expiresAt: clock.wallNow() + 5 },
      ],
    });
    expect(store.authenticate('k-alice')?.account).toBe('alice');
    expect(store.authenticate('k-alice-2')?.account).toBe('alice');
    clock.advance(5);
    expect(store.authenticate('k-alice-2')).toBeUndefined();
    expect(store.authenticate('nope')).toBeUndefined();
    expect(store.authenticate('')).toBeUndefined();
    expect(store.authenticate(undefined)).toBeUndefined();
    const issued = store.issue('bob');
    expect(store.authenticate(issued.apiKey)?.account).toBe('bob');
    expect(store.createInstant('7.7.7.7').rate_limits).toEqual({
      read: '10/s',
      write: '2/s',
      fulfillment: '1/s',
    });
  });

  it('writes enforced limits as <count>/<unit>', () => {
    expect(advertisedOf(FREE_TIER)).toEqual({ read: '600/h', write: '30/h', fulfillment: '5/m' });
    expect(
      advertisedOf({
        read: { capacity: 5, windowMs: 1_000 },
        write: { capacity: 2, windowMs: 60_000 },
        fulfillment: { capacity: 1, windowMs: 86_400_000 },
      }),
    ).toEqual({ read: '5/s', write: '2/m', fulfillment: '1/d' });
  });
});
