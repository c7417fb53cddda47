import { afterEach, describe, expect, it } from 'vitest';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { type Harness, manualClock, startHarness } from './harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const KEYS = '/api/v2/auth/keys';

describe('POST /api/v2/auth/keys', () => {
  it('201 with the documented shape; the key works at once on every endpoint', async () => {
    h = await startHarness();
    const r = await h.call('POST', KEYS, { body: {} });
    expect(r.status).toBe(201);
    expectValidResponse('POST', KEYS, 201, r.body);
    const key = r.body as { api_key: string; name: string; rate_limits: unknown; expires_at: string };
    expect(key.name).toMatch(/^agent_free_[0-9a-f]+$/);
    expect(key.rate_limits).toEqual({ read: '600/h', write: '30/h', fulfillment: '5/m' });
    const days = (Date.parse(key.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    const ev = await h.call('GET', '/api/v2/events', { key: key.api_key });
    expect(ev.status).toBe(200);
    expect(h.server.authenticate(key.api_key)).toBeDefined();
  });

  it('the 4th key within an hour from one IP is 429 with Retry-After and the error body', async () => {
    h = await startHarness();
    for (let i = 0; i < 3; i++) expect((await h.call('POST', KEYS)).status).toBe(201);
    const r = await h.call('POST', KEYS);
    expect(r.status).toBe(429);
    expectValidResponse('POST', KEYS, 429, r.body);
    const retry = Number(r.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(3500);
    expect(retry).toBeLessThanOrEqual(3600);
  });

  it('503 {"errors": [...]} when disabled by config, and when disabled through the admin faults', async () => {
    h = await startHarness({ keysDisabled: true });
    const r = await h.call('POST', KEYS);
    expect(r.status).toBe(503);
    expectValidResponse('POST', KEYS, 503, r.body);
    await h.close();

    h = await startHarness();
    expect((await h.call('POST', '/_sandbox/faults', { body: { keysDisabled: true } })).status).toBe(200);
    expect((await h.call('POST', KEYS)).status).toBe(503);
    expect((await h.call('POST', '/_sandbox/reset-faults')).status).toBe(200);
    expect((await h.call('POST', KEYS)).status).toBe(201);
  });

  it('expiry is configurable; an expired key answers 401', async () => {
    const clock = manualClock();
    h = await startHarness({ clock, keyLifetimeMs: 60_000 });
    const r = await h.call('POST', KEYS);
    const key = (r.body as { api_key: string; expires_at: string }).api_key;
    expect((r.body as { expires_at: string }).expires_at).toBe(
      new Date(clock.wallNow() + 60_000).toISOString(),
    );
    expect((await h.call('GET', '/api/v2/events', { key })).status).toBe(200);
    clock.advance(60_000);
    const gone = await h.call('GET', '/api/v2/events', { key });
    expect(gone.status).toBe(401);
    expect(gone.body).toEqual({ errors: ['Invalid API key'] });
  });
});

describe('API key on /api requests', () => {
  it('401 {"errors":["Invalid API key"]} without a key or with an unknown one; no rate headers', async () => {
    h = await startHarness({ keys: [{ apiKey: 'good-key', account: 'acct' }] });
    for (const key of [undefined, 'wrong-key', '']) {
      const r = await h.call('GET', '/api/v2/events', key === undefined ? {} : { key });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ errors: ['Invalid API key'] });
      expect(r.headers.get('x-ratelimit-limit')).toBeNull();
    }
    // unknown /api paths also need the key first
    expect((await h.call('GET', '/api/v2/nothing')).status).toBe(401);
    expect((await h.call('GET', '/api/v2/nothing', { key: 'good-key' })).status).toBe(404);
    expect(h.server.stats().unauthorized).toBe(4);
  });

  it('the header name is case-insensitive', async () => {
    h = await startHarness({ keys: [{ apiKey: 'good-key', account: 'acct' }] });
    for (const name of ['x-api-key', 'X-Api-Key', 'X-API-KEY']) {
      const r = await h.call('GET', '/api/v2/events', { headers: { [name]: 'good-key' } });
      expect(r.status).toBe(200);
    }
  });
});

describe('rate limits', () => {
  const SHORT = {
    read: { capacity: 3, windowMs: 60_000 },
    write: { capacity: 2, windowMs: 60_000 },
    fulfillment: { capacity: 1, windowMs: 60_000 },
  };

  it('X-RateLimit-* on every authenticated answer; 429 with Retry-After when the bucket is empty', async () => {
    const clock = manualClock();
    h = await startHarness({ clock, limits: SHORT, keys: [{ apiKey: 'k', account: 'a' }] });
    const seen: { status: number; limit: string | null; remaining: string | null; reset: string | null }[] =
      [];
    for (let i = 0; i < 4; i++) {
      const r = await h.call('GET', '/api/v2/events', { key: 'k' });
      seen.push({
        status: r.status,
        limit: r.headers.get('x-ratelimit-limit'),
        remaining: r.headers.get('x-ratelimit-remaining'),
        reset: r.headers.get('x-ratelimit-reset'),
      });
      if (r.status === 429) {
        expect(r.headers.get('retry-after')).toBe('20');
        expect(r.body).toEqual({ errors: [expect.stringMatching(/throttled/)] });
      }
    }
    expect(seen.map((s) => s.status)).toEqual([200, 200, 200, 429]);
    expect(seen.map((s) => s.limit)).toEqual(['3', '3', '3', '3']);
    expect(seen.map((s) => s.remaining)).toEqual(['2', '1', '0', '0']);
    for (const s of seen) expect(Number(s.reset)).toBeGreaterThanOrEqual(Math.floor(clock.wallNow() / 1000));
    // a 404 is metered too and still carries the headers
    clock.advance(20_000);
    const nf = await h.call('GET', '/api/v2/nope', { key: 'k' });
    expect(nf.status).toBe(404);
    expect(nf.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(h.server.stats().requests.read).toEqual({ requests: 5, throttled: 1 });
  });

  it('groups are separate; all keys of one account share the buckets; accounts are independent', async () => {
    const clock = manualClock();
    h = await startHarness({
      clock,
      limits: SHORT,
      keys: [
        { apiKey: 'k1', account: 'shared' },
        { apiKey: 'k2', account: 'shared' },
        { apiKey: 'k3', account: 'other' },
      ],
    });
    // fulfillment: 1 per window, shared by k1 and k2
    const f1 = await h.call('POST', '/api/v2/listings/fulfillment_data', { key: 'k1', body: {} });
    expect(f1.headers.get('x-ratelimit-limit')).toBe('1');
    expect(f1.status).toBe(503); // no market attached, but metered
    const f2 = await h.call('POST', '/api/v2/listings/fulfillment_data', { key: 'k2', body: {} });
    expect(f2.status).toBe(429);
    expect(f2.headers.get('retry-after')).toBe('60');
    const f3 = await h.call('POST', '/api/v2/offers/fulfillment_data', { key: 'k3', body: {} });
    expect(f3.status).toBe(503);
    // read and write buckets of the shared account are untouched by fulfillment
    expect((await h.call('GET', '/api/v2/events', { key: 'k2' })).headers.get('x-ratelimit-remaining')).toBe(
      '2',
    );
    const w = await h.call('POST', '/api/v2/offers/build', { key: 'k1', body: {} });
    expect(w.headers.get('x-ratelimit-limit')).toBe('2');
    expect(w.headers.get('x-ratelimit-remaining')).toBe('1');
    // refill: after the window one more fulfillment goes through
    clock.advance(60_000);
    expect((await h.call('POST', '/api/v2/listings/fulfillment_data', { key: 'k2', body: {} })).status).toBe(
      503,
    );
    expect(h.server.stats().requests.fulfillment).toEqual({ requests: 4, throttled: 1 });
  });

  it('advertised rate_limits follow the configured limits', async () => {
    h = await startHarness({
      limits: {
        read: { capacity: 10, windowMs: 1_000 },
        write: { capacity: 2, windowMs: 1_000 },
        fulfillment: { capacity: 1, windowMs: 1_000 },
      },
    });
    const r = await h.call('POST', KEYS);
    expect((r.body as { rate_limits: unknown }).rate_limits).toEqual({
      read: '10/s',
      write: '2/s',
      fulfillment: '1/s',
    });
  });
});
