import { afterEach, describe, expect, it } from 'vitest';
import { createRateLimitServer, type RateLimitServer } from '../../../../src/sandbox/ratelimit/server.ts';

const LIMITS = {
  read: { capacity: 5, windowMs: 60_000 },
  write: { capacity: 2, windowMs: 60_000 },
  fulfillment: { capacity: 1, windowMs: 60_000 },
};

let server: RateLimitServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Partial<Parameters<typeof createRateLimitServer>[0]> = {}) {
  server = createRateLimitServer({ limits: LIMITS, ...options });
  const url = await server.listen();
  return { server, url };
}

async function newKey(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/api/v2/auth/keys`, { method: 'POST' });
  expect(res.status).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}

describe('rate-limit server', () => {
  it('creates instant keys with the advertised rate_limits, which may differ from what it enforces', async () => {
    const { url } = await start({ advertised: { read: '600/h', write: '30/h', fulfillment: '5/m' } });
    const key = await newKey(url);
    expect(key).toMatchObject({
      rate_limits: { read: '600/h', write: '30/h', fulfillment: '5/m' },
      upgrade_url: expect.stringMatching(/^https:\/\//),
    });
    expect(key['api_key']).toMatch(/^[0-9a-f]{48}$/);
    expect(key['name']).toMatch(/^agent_free_[0-9a-f]+$/);
    expect(Date.parse(String(key['expires_at']))).toBeGreaterThan(Date.now());
    // enforced: 5 reads, not 600
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${url}/api/v2/collections/x`, {
        headers: { 'x-api-key': String(key['api_key']) },
      });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('advertises its real limits by default', async () => {
    const { url } = await start();
    expect((await newKey(url))['rate_limits']).toEqual({ read: '5/m', write: '2/m', fulfillment: '1/m' });
  });

  it('refuses a missing or unknown key with 401 and the error body', async () => {
    const { url, server } = await start();
    for (const headers of [{}, { 'x-api-key': 'nope' }]) {
      const r = await fetch(`${url}/api/v2/collections/x`, { headers });
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual({ errors: ['Invalid API key'] });
      expect(r.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect(server.unauthorized).toBe(2);
  });

  it('meters GET as read, POST as write, fulfillment_data as fulfillment, with headers on every response', async () => {
    const { url, server } = await start();
    const key = String((await newKey(url))['api_key']);
    const call = async (method: string, path: string) => {
      const r = await fetch(`${url}${path}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        ...(method === 'GET' ? {} : { body: '{"a":1}' }),
      });
      const body = await r.text();
      return { status: r.status, headers: r.headers, body };
    };
    const before = Math.floor(Date.now() / 1000);
    const g = await call('GET', '/api/v2/collections/x');
    expect(g.status).toBe(200);
    expect(JSON.parse(g.body)).toEqual({ ok: true });
    expect(g.headers.get('x-ratelimit-limit')).toBe('5');
    expect(g.headers.get('x-ratelimit-remaining')).toBe('4');
    const reset = Number(g.headers.get('x-ratelimit-reset'));
    // one token of 5 per minute missing: full again in ~12 s
    expect(reset).toBeGreaterThanOrEqual(before + 11);
    expect(reset).toBeLessThanOrEqual(before + 14);

    expect(
      (await call('POST', '/api/v2/orders/ethereum/seaport/offers')).headers.get('x-ratelimit-limit'),
    ).toBe('2');
    const f1 = await call('POST', '/api/v2/listings/fulfillment_data');
    expect(f1.headers.get('x-ratelimit-limit')).toBe('1');
    const f2 = await call('POST', '/api/v2/offers/fulfillment_data');
    expect(f2.status).toBe(429);
    expect(f2.headers.get('retry-after')).toBe('60');
    expect(f2.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(JSON.parse(f2.body)).toEqual({
      errors: ['Request was throttled. Expected available in 60 seconds.'],
    });
    // the write bucket was not touched by fulfillment calls
    expect((await call('PATCH', '/api/v2/collections/x')).headers.get('x-ratelimit-remaining')).toBe('0');
    expect(server.counts()).toEqual({
      read: { served: 1, throttled: 0 },
      write: { served: 2, throttled: 0 },
      fulfillment: { served: 1, throttled: 1 },
    });
    const recs = server.records();
    expect(recs.map((r) => r.outcome)).toEqual(['served', 'served', 'served', 'throttled', 'served']);
    expect(recs.every((r, i) => i === 0 || r.t >= (recs[i - 1]?.t ?? 0))).toBe(true);
  });

  it('all keys of one account share one bucket; another account has its own', async () => {
    const { url } = await start({ keys: { other: 'acct-2' } });
    const k1 = String((await newKey(url))['api_key']);
    const k2 = String((await newKey(url))['api_key']);
    const get = async (key: string) => {
      const r = await fetch(`${url}/api/v2/x`, { headers: { 'x-api-key': key } });
      await r.arrayBuffer();
      return r.status;
    };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await get(k1), await get(k2));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await get('other')).toBe(200);
  });

  it('limits instant-key creation to 3 per hour per client address', async () => {
    const { url } = await start();
    for (let i = 0; i < 3; i++) await newKey(url);
    const r = await fetch(`${url}/api/v2/auth/keys`, { method: 'POST' });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    await r.arrayBuffer();
  });

  it('refills with real time', async () => {
    const { url, server } = await start({
      limits: { ...LIMITS, read: { capacity: 2, windowMs: 400 } },
      advertised: { read: '2/s', write: '2/m', fulfillment: '1/m' },
    });
    const key = String((await newKey(url))['api_key']);
    const get = async () => {
      const r = await fetch(`${url}/api/v2/x`, { headers: { 'x-api-key': key } });
      await r.arrayBuffer();
      return r.status;
    };
    expect([await get(), await get(), await get()]).toEqual([200, 200, 429]);
    await new Promise((r) => setTimeout(r, 450));
    expect([await get(), await get()]).toEqual([200, 200]);
    const recs = server.records();
    const first = recs[0]?.t ?? 0;
    const last = recs.at(-1)?.t ?? 0;
    expect(server.counts().read.served).toBeLessThanOrEqual(
      Math.floor(server.allowance('read', first, last)),
    );
  });
});
