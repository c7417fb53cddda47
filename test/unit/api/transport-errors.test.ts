/**
 * One test per row of the spec's Errors table, against a real local HTTP server.
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { httpErrorInfo } from '../../../src/api/errors.ts';
import { createTransport, type HttpTransport, type TransportOptions } from '../../../src/api/transport.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { FatalError, RateLimitedError, RejectedError, TransientError } from '../../../src/errors/index.ts';
import { FakeHttpServer, json } from '../fakes/http-server.ts';
import { FakeScheduler, VirtualClock } from '../fakes/scheduler.ts';

let server: FakeHttpServer;
let clock: VirtualClock;
let scheduler: FakeScheduler;
const transports: HttpTransport[] = [];

const ORDER_POST = '/api/v2/orders/ethereum/seaport/listings';
const MINT = '/api/v2/drops/cool-drop/mint';

function make(overrides: Partial<TransportOptions> = {}): HttpTransport {
  const t = createTransport({
    baseUrl: server.url,
    scheduler,
    credentials: { apiKey: new Secret('key-v1-000000'), walletJwt: new Secret('jwt-v1-000000') },
    clock,
    sleep: clock.sleep,
    random: () => 0.5,
    ...overrides,
  });
  transports.push(t);
  return t;
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the request to fail');
}

beforeEach(async () => {
  server = await FakeHttpServer.start();
  clock = new VirtualClock();
  scheduler = new FakeScheduler({ clock });
});

afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  await server.close();
});

describe('400 invalid request → RejectedError http_400 with the server reasons', () => {
  it('string reasons; path without query in the error; not retried', async () => {
    server.route(
      'POST',
      '/api/v2/listings/fulfillment_data',
      json(400, { errors: ['Order hash does not exist'] }),
    );
    const t = make();
    const e = await failure(
      t.request({
        method: 'POST',
        path: '/api/v2/listings/fulfillment_data',
        group: 'fulfillment',
        body: {},
        query: { secretish: 'q' },
      }),
    );
    expect(e).toBeInstanceOf(RejectedError);
    expect(e).toMatchObject({ code: 'http_400' });
    expect(e.message).toBe('POST /api/v2/listings/fulfillment_data → 400: Order hash does not exist');
    expect(httpErrorInfo(e)).toEqual({
      status: 400,
      method: 'POST',
      path: '/api/v2/listings/fulfillment_data',
      reasons: ['Order hash does not exist'],
    });
    expect(JSON.stringify(e)).not.toContain('secretish');
    expect(server.requests).toHaveLength(1);
  });

  it('object reasons ({code,message}) of drop mint', async () => {
    server.route(
      'POST',
      MINT,
      json(400, { errors: [{ code: 'invalid_quantity', message: 'quantity must be > 0' }] }),
    );
    const e = await failure(
      make().request({ method: 'POST', path: MINT, body: { minter: '0x0', quantity: 0 } }),
    );
    expect(httpErrorInfo(e)?.reasons).toEqual(['invalid_quantity: quantity must be > 0']);
  });

  it('auth endpoint shape {error:{message}} and plain text', async () => {
    server
      .route(
        'POST',
        '/api/v2/auth/siwe/verify',
        json(400, { error: { message: 'Invalid signature', status: 400 } }),
      )
      .route('GET', '/api/v2/search', {
        status: 400,
        body: 'query is required',
        headers: { 'content-type': 'text/plain' },
      });
    const t = make();
    const a = await failure(
      t.request({ method: 'POST', path: '/api/v2/auth/siwe/verify', auth: 'none', body: {} }),
    );
    expect(httpErrorInfo(a)?.reasons).toEqual(['Invalid signature']);
    const b = await failure(t.request({ method: 'GET', path: '/api/v2/search' }));
    expect(httpErrorInfo(b)?.reasons).toEqual(['query is required']);
    expect(server.requests).toHaveLength(2);
  });
});

describe('401 → refresh once, then FatalError unauthorized', () => {
  it('apiKey auth: refreshApiKey once, resend with the new key, succeed', async () => {
    server.route('GET', '/x', json(401, { errors: ['Invalid API key'] }), json(200, { ok: 1 }));
    let calls = 0;
    const t = make({
      credentials: {
        apiKey: new Secret('key-v1-000000'),
        refreshApiKey: async () => new Secret(`key-v${++calls + 1}-000000`),
        refreshWalletJwt: async () => {
          throw new Error('must not be called');
        },
      },
    });
    await expect(t.request({ method: 'GET', path: '/x' })).resolves.toEqual({ ok: 1 });
    expect(calls).toBe(1);
    expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual(['key-v1-000000', 'key-v2-000000']);
  });

  it('a second 401 after the refresh is FatalError unauthorized (two requests, one refresh)', async () => {
    server.route('POST', ORDER_POST, json(401, { errors: ['Invalid API key'] }));
    let calls = 0;
    const t = make({
      credentials: {
        apiKey: new Secret('key-v1-000000'),
        refreshApiKey: async () => {
          calls++;
          return new Secret('key-v2-00');
        },
      },
    });
    const e = await failure(t.request({ method: 'POST', path: ORDER_POST, body: {} }));
    expect(e).toBeInstanceOf(FatalError);
    expect(e).toMatchObject({ code: 'unauthorized' });
    expect(calls).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it('no refresh hook → FatalError at once', async () => {
    server.route('GET', '/x', json(401, { errors: ['Invalid API key'] }));
    const e = await failure(make().request({ method: 'GET', path: '/x' }));
    expect(e).toBeInstanceOf(FatalError);
    expect(e).toMatchObject({ code: 'unauthorized' });
    expect(server.requests).toHaveLength(1);
  });

  it('wallet auth refreshes the wallet JWT (not the API key)', async () => {
    server.route(
      'POST',
      '/api/v2/orders/chain/ethereum/protocol/0xabc/0xhash/cancel',
      json(401, {}),
      json(200, {}),
    );
    let keyCalls = 0;
    let jwtCalls = 0;
    const t = make({
      credentials: {
        apiKey: new Secret('key-v1-000000'),
        walletJwt: new Secret('jwt-v1-000000'),
        refreshApiKey: async () => {
          keyCalls++;
          return new Secret('key-v2-000000');
        },
        refreshWalletJwt: async () => {
          jwtCalls++;
          return new Secret('jwt-v2-000000');
        },
      },
    });
    await t.request({
      method: 'POST',
      path: '/api/v2/orders/chain/ethereum/protocol/0xabc/0xhash/cancel',
      auth: 'wallet',
      body: {},
    });
    expect([keyCalls, jwtCalls]).toEqual([0, 1]);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer jwt-v1-000000',
      'Bearer jwt-v2-000000',
    ]);
    expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual(['key-v1-000000', 'key-v1-000000']);
  });

  it('concurrent 401s share one refresh', async () => {
    server.route('GET', '/x', (req) =>
      req.headers['x-api-key'] === 'key-v1-000000' ? json(401, { errors: ['expired'] }) : json(200, {}),
    );
    let calls = 0;
    const t = make({
      credentials: {
        apiKey: new Secret('key-v1-000000'),
        refreshApiKey: async () => {
          calls++;
          await new Promise((r) => setTimeout(r, 20));
          return new Secret('key-v2-000000');
        },
      },
    });
    await Promise.all([1, 2, 3].map(() => t.request({ method: 'GET', path: '/x' })));
    expect(calls).toBe(1);
  });

  it('a refresh hook that fails is fatal, and its raw error is not carried', async () => {
    server.route('GET', '/x', json(401, {}));
    const t = make({
      credentials: {
        apiKey: new Secret('key-v1-000000'),
        refreshApiKey: async () => {
          throw new Error('portal said: key key-v1-000000 revoked');
        },
      },
    });
    const e = await failure(t.request({ method: 'GET', path: '/x' }));
    expect(e).toBeInstanceOf(FatalError);
    expect(e).toMatchObject({ code: 'credential_refresh_failed' });
    expect(e.cause).toBeUndefined();
  });
});

describe('403 missing scope → RejectedError forbidden, never retried with the same credentials', () => {
  it('one request, no refresh', async () => {
    server.route(
      'GET',
      '/api/v2/drops/x/eligibility',
      json(403, { errors: ['missing scope read:eligibility'] }),
    );
    let refreshes = 0;
    const t = make({
      credentials: {
        apiKey: new Secret('key-v1-000000'),
        walletJwt: new Secret('jwt-v1-000000'),
        refreshApiKey: async () => {
          refreshes++;
          return new Secret('k2-0000000');
        },
        refreshWalletJwt: async () => {
          refreshes++;
          return new Secret('j2-0000000');
        },
      },
    });
    const e = await failure(
      t.request({ method: 'GET', path: '/api/v2/drops/x/eligibility', auth: 'wallet' }),
    );
    expect(e).toBeInstanceOf(RejectedError);
    expect(e).toMatchObject({ code: 'forbidden' });
    expect(httpErrorInfo(e)?.reasons).toEqual(['missing scope read:eligibility']);
    expect(refreshes).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});

describe.each([
  [404, 'http_404', { errors: ['Drop not found'] }, 'Drop not found'],
  [409, 'http_409', { errors: ['Drop is not active'] }, 'Drop is not active'],
  [422, 'http_422', { errors: ['Wallet not in allowlist'] }, 'Wallet not in allowlist'],
])('%i → RejectedError %s', (status, code, body, reason) => {
  it('drop mint: rejected with the server reason, sent once', async () => {
    server.route('POST', MINT, json(status, body));
    const e = await failure(
      make().request({ method: 'POST', path: MINT, body: { minter: '0x1', quantity: 1 } }),
    );
    expect(e).toBeInstanceOf(RejectedError);
    expect(e).toMatchObject({ code });
    expect(e.message).toContain(reason);
    expect(e.message).toContain(`POST ${MINT} → ${status}`);
    expect(server.requests).toHaveLength(1);
  });
});

describe('429 → wait through the scheduler (Retry-After, else X-RateLimit-Reset), never at once', () => {
  it('Retry-After: the resend starts only after the wait; the scheduler paused the group', async () => {
    server.route(
      'GET',
      '/api/v2/collections/x',
      json(429, { detail: 'throttled' }, { 'retry-after': '2' }),
      json(200, { ok: 1 }),
    );
    const t = make();
    const t0 = clock.now();
    await expect(t.request({ method: 'GET', path: '/api/v2/collections/x' })).resolves.toEqual({ ok: 1 });
    expect(server.requests).toHaveLength(2);
    const [first, second] = scheduler.startTimes();
    expect(first).toBe(t0);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(2_000);
    expect(scheduler.observed(429)).toEqual([
      expect.objectContaining({ group: 'read', retryAfterMs: 2_000 }),
    ]);
    expect(scheduler.pauseWaits).toEqual([2_000]);
    // The transport itself did not sleep: the wait happened in the scheduler queue.
    expect(clock.sleeps).toEqual([]);
  });

  it('X-RateLimit-Reset fallback when there is no Retry-After', async () => {
    const resetSec = Math.floor(clock.now() / 1000) + 5;
    server.route(
      'GET',
      '/x',
      json(
        429,
        {},
        { 'x-ratelimit-reset': String(resetSec), 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '600' },
      ),
      json(200, {}),
    );
    const t = make();
    await t.request({ method: 'GET', path: '/x' });
    const [first, second] = scheduler.startTimes();
    expect(second).toBeGreaterThanOrEqual(resetSec * 1000);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(4_000);
    expect(server.requests).toHaveLength(2);
  });

  it('never retries immediately even with a scheduler that does not pause', async () => {
    scheduler = new FakeScheduler({ clock, pauseOn429: false });
    server.route('GET', '/x', json(429, {}, { 'retry-after': '3' }), json(200, {}));
    const t = make();
    await t.request({ method: 'GET', path: '/x' });
    const [first, second] = scheduler.startTimes().slice(-2);
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3_000 - 20);
    expect(clock.now() - (first ?? 0)).toBeGreaterThanOrEqual(3_000 - 20);
    expect(second).toBeDefined();
  });

  it('no Retry-After and no reset: the transport tells the scheduler a fallback pause', async () => {
    server.route('GET', '/x', json(429, {}), json(200, {}));
    const t = make({ retry: { fallback429WaitMs: 1_500 } });
    await t.request({ method: 'GET', path: '/x' });
    expect(scheduler.observed(429)[0]?.retryAfterMs).toBe(1_500);
    const [a, b] = scheduler.startTimes();
    expect((b ?? 0) - (a ?? 0)).toBeGreaterThanOrEqual(1_500);
  });

  it('bounded: after max429Waits waits, RateLimitedError(group, retryAfterMs)', async () => {
    server.route('POST', ORDER_POST, json(429, {}, { 'retry-after': '1' }));
    const t = make({ retry: { max429Waits: 2 } });
    const t0 = clock.now();
    const e = await failure(t.request({ method: 'POST', path: ORDER_POST, body: {} }));
    expect(e).toBeInstanceOf(RateLimitedError);
    expect(e).toMatchObject({ group: 'write', retryAfterMs: 1_000, code: 'rate_limited' });
    expect(server.requests).toHaveLength(3);
    expect(clock.now() - t0).toBeGreaterThanOrEqual(2_000);
    const starts = scheduler.startTimes();
    for (let i = 1; i < starts.length; i++)
      expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  it('a 429 POST was not processed: resending it is safe', async () => {
    server.route(
      'POST',
      ORDER_POST,
      json(429, {}, { 'retry-after': '1' }),
      json(201, { listing: { order_hash: '0x1' } }),
    );
    const t = make();
    await expect(t.request({ method: 'POST', path: ORDER_POST, body: { a: 1 } })).resolves.toEqual({
      listing: { order_hash: '0x1' },
    });
    expect(server.requests.map((r) => r.body)).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('a wait longer than maxRateLimitWaitMs is thrown at once (the group stays paused)', async () => {
    server.route('GET', '/x', json(429, {}, { 'retry-after': '3600' }));
    const t = make({ retry: { maxRateLimitWaitMs: 60_000 } });
    const e = await failure(t.request({ method: 'GET', path: '/x' }));
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(server.requests).toHaveLength(1);
    expect(scheduler.pausedUntil.read).toBe(clock.now() + 3_600_000);
  });

  it('instant key creation 429 (per-IP cap) is a RateLimitedError too', async () => {
    server.route(
      'POST',
      '/api/v2/auth/keys',
      json(429, { errors: ['Too many keys'] }, { 'retry-after': '1200' }),
    );
    const e = await failure(
      make({ retry: { maxRateLimitWaitMs: 1_000 } }).request({
        method: 'POST',
        path: '/api/v2/auth/keys',
        auth: 'none',
      }),
    );
    expect(e).toBeInstanceOf(RateLimitedError);
  });
});

describe('500/502/503/504 → TransientError; retried only when idempotent', () => {
  it.each([500, 502, 503, 504])('GET %i is retried with bounded backoff, then succeeds', async (status) => {
    server.route(
      'GET',
      '/x',
      json(status, { errors: ['Internal error'] }),
      json(status, {}),
      json(200, { ok: 1 }),
    );
    const t = make({ retry: { maxAttempts: 3, backoffBaseMs: 100, backoffCapMs: 1_000 } });
    await expect(t.request({ method: 'GET', path: '/x' })).resolves.toEqual({ ok: 1 });
    expect(server.requests).toHaveLength(3);
    // random()=0.5 → equal jitter: 0.75 of min(cap, base·2ⁿ)
    expect(clock.sleeps).toEqual([75, 150]);
  });

  it('GET 500 every time → TransientError http_500 after maxAttempts, not maybeProcessed', async () => {
    server.route('GET', '/x', json(500, { errors: ['Internal error'] }));
    const t = make({ retry: { maxAttempts: 4, backoffBaseMs: 1_000, backoffCapMs: 2_500 } });
    const e = await failure(t.request({ method: 'GET', path: '/x' }));
    expect(e).toBeInstanceOf(TransientError);
    expect(e).toMatchObject({ code: 'http_500', maybeProcessed: false });
    expect(server.requests).toHaveLength(4);
    expect(clock.sleeps).toEqual([750, 1_500, 1_875]);
  });

  it('order-creating POST 500 is never resent: TransientError maybeProcessed', async () => {
    server.route('POST', ORDER_POST, json(500, { errors: ['Internal error'] }), json(201, {}));
    const e = await failure(make().request({ method: 'POST', path: ORDER_POST, body: {} }));
    expect(e).toBeInstanceOf(TransientError);
    expect(e).toMatchObject({ code: 'http_500', maybeProcessed: true });
    expect(e.message).toContain('Internal error');
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('cancel and mint (POST) are not resent after 502/504 either', async () => {
    server
      .route('POST', MINT, json(502, 'bad gateway'))
      .route('POST', '/api/v2/orders/chain/c/protocol/p/h/cancel', json(504, {}));
    const t = make();
    await expect(t.request({ method: 'POST', path: MINT, body: {} })).rejects.toMatchObject({
      maybeProcessed: true,
    });
    await expect(
      t.request({
        method: 'POST',
        path: '/api/v2/orders/chain/c/protocol/p/h/cancel',
        auth: 'wallet',
        body: {},
      }),
    ).rejects.toMatchObject({ maybeProcessed: true });
    expect(server.requests).toHaveLength(2);
  });

  it('a POST marked idempotent is retried', async () => {
    server.route('POST', '/api/v2/collections/batch', json(503, {}), json(200, { collections: [] }));
    const t = make();
    await expect(
      t.request({ method: 'POST', path: '/api/v2/collections/batch', body: {}, idempotent: true }),
    ).resolves.toEqual({ collections: [] });
    expect(server.requests).toHaveLength(2);
  });

  it('a 503 with Retry-After waits at least that long before the retry', async () => {
    server.route('GET', '/x', json(503, {}, { 'retry-after': '4' }), json(200, {}));
    await make().request({ method: 'GET', path: '/x' });
    expect(clock.sleeps).toEqual([4_000]);
  });
});

describe('503 on instant key creation → TransientError unavailable', () => {
  it('not resent, not maybeProcessed (nothing was created)', async () => {
    server.route('POST', '/api/v2/auth/keys', json(503, { errors: ['Instant API keys are disabled'] }));
    const e = await failure(make().request({ method: 'POST', path: '/api/v2/auth/keys', auth: 'none' }));
    expect(e).toBeInstanceOf(TransientError);
    expect(e).toMatchObject({ code: 'unavailable', maybeProcessed: false });
    expect(e.message).toContain('Instant API keys are disabled');
    expect(server.requests).toHaveLength(1);
  });
});

describe('network errors follow the same idempotency rule', () => {
  async function closedPortUrl(): Promise<string> {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const { port } = s.address() as { port: number };
    await new Promise<void>((r) => s.close(() => r()));
    return `http://127.0.0.1:${port}`;
  }

  it('connection refused: GET retried, then network error not maybeProcessed', async () => {
    const t = make({ baseUrl: await closedPortUrl() });
    const e = await failure(t.request({ method: 'GET', path: '/x' }));
    expect(e).toBeInstanceOf(TransientError);
    expect(e).toMatchObject({ code: 'network', maybeProcessed: false });
    expect(e.message).toContain('ECONNREFUSED');
    expect(scheduler.jobs).toHaveLength(3);
  });

  it('connection refused on a POST: not resent, and known not to have been processed', async () => {
    const t = make({ baseUrl: await closedPortUrl() });
    const e = await failure(t.request({ method: 'POST', path: ORDER_POST, body: {} }));
    expect(e).toMatchObject({ code: 'network', maybeProcessed: false });
    expect(scheduler.jobs).toHaveLength(1);
  });

  it('socket reset after the server received a POST: maybeProcessed, not resent', async () => {
    server.route('POST', ORDER_POST, { destroy: true });
    const e = await failure(make().request({ method: 'POST', path: ORDER_POST, body: {} }));
    expect(e).toBeInstanceOf(TransientError);
    expect(e).toMatchObject({ code: 'network', maybeProcessed: true });
    expect(server.requests).toHaveLength(1);
  });

  it('body cut short on a GET: retried', async () => {
    server.route('GET', '/x', { status: 200, body: '{"a":1}', truncateAfter: '{"a"' }, json(200, { a: 1 }));
    await expect(make().request({ method: 'GET', path: '/x' })).resolves.toEqual({ a: 1 });
    expect(server.requests).toHaveLength(2);
  });
});
