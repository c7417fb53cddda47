import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CookieJar } from '../../../src/api/cookies.ts';
import { Credentials } from '../../../src/api/credentials.ts';
import type { RequestSpec } from '../../../src/api/request.ts';
import {
  createTransport,
  encodeQuery,
  type HttpTransport,
  serializeBody,
  type TransportOptions,
  warnDeprecatedField,
} from '../../../src/api/transport.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { FatalError, RejectedError, SupersededError, TransientError } from '../../../src/errors/index.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { FakeHttpServer, json } from '../fakes/http-server.ts';
import { FakeScheduler, VirtualClock } from '../fakes/scheduler.ts';

let server: FakeHttpServer;
let clock: VirtualClock;
let scheduler: FakeScheduler;
let logLines: string[];
const transports: HttpTransport[] = [];

function logSink() {
  return new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  });
}

function make(overrides: Partial<TransportOptions> = {}): HttpTransport {
  const t = createTransport({
    baseUrl: server.url,
    scheduler,
    credentials: {
      apiKey: new Secret('test-api-key-0001', 'apiKey'),
      walletJwt: new Secret('jwt-0001', 'jwt'),
    },
    clock,
    sleep: clock.sleep,
    random: () => 0.5,
    logger: createLogger({ level: 'debug', destination: logSink() }),
    ...overrides,
  });
  transports.push(t);
  return t;
}

beforeEach(async () => {
  server = await FakeHttpServer.start();
  clock = new VirtualClock();
  scheduler = new FakeScheduler({ clock });
  logLines = [];
});

afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  await server.close();
});

describe('construction', () => {
  it('validates baseUrl and requires a scheduler', () => {
    const s = new FakeScheduler();
    expect(() => createTransport({ baseUrl: 'ftp://x', scheduler: s })).toThrow(/http/);
    expect(() => createTransport({ baseUrl: 'not a url', scheduler: s })).toThrow(/valid URL/);
    expect(() => createTransport({ baseUrl: 'https://user:pw@api.example', scheduler: s })).toThrow(
      /credentials/,
    );
    expect(() => createTransport({ baseUrl: 'https://api.example?x=1', scheduler: s })).toThrow(/query/);
    expect(() => createTransport({ baseUrl: 'https://api.example' } as TransportOptions)).toThrow(
      /scheduler/,
    );
  });

  it('ignores trailing slashes and keeps a base path prefix', async () => {
    server.route('GET', '/prefix/api/v2/chains', json(200, { chains: [] }));
    const t = make({ baseUrl: `${server.url}/prefix///` });
    expect(t.baseUrl).toBe(`${server.url}/prefix`);
    await expect(t.request({ method: 'GET', path: '/api/v2/chains' })).resolves.toEqual({ chains: [] });
    expect(server.requests[0]?.url).toBe('/prefix/api/v2/chains');
  });

  it('refuses paths with a query, fragment or no leading slash', async () => {
    const t = make();
    for (const path of ['/a?b=1', '/a#x', 'api/v2/x', '/a b']) {
      await expect(t.request({ method: 'GET', path })).rejects.toBeInstanceOf(RejectedError);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('every request goes through the scheduler', () => {
  it('passes group, priority, coalesceKey and signal; default group from the method', async () => {
    server
      .route('GET', '/r', json(200, {}))
      .route('POST', '/w', json(200, {}))
      .route('POST', '/f', json(200, {}));
    const t = make();
    const ac = new AbortController();
    await t.request({ method: 'GET', path: '/r' });
    await t.request({ method: 'POST', path: '/w', body: {}, priority: 1, coalesceKey: 'k1' });
    await t.request({ method: 'POST', path: '/f', body: {}, group: 'fulfillment', signal: ac.signal });
    expect(scheduler.jobs.map((j) => j.options)).toEqual([
      { group: 'read' },
      { group: 'write', priority: 1, coalesceKey: 'k1' },
      { group: 'fulfillment', signal: ac.signal },
    ]);
  });

  it('serializes concurrent requests through schedule()', async () => {
    server.route('GET', '/slow', { status: 200, body: {}, delayMs: 30 });
    const t = make();
    await Promise.all(Array.from({ length: 5 }, () => t.request({ method: 'GET', path: '/slow' })));
    expect(scheduler.jobs).toHaveLength(5);
    expect(scheduler.maxConcurrent).toBe(1);
    expect(server.requests).toHaveLength(5);
  });

  it('a superseded job rejects with SupersededError and sends nothing', async () => {
    server.route('GET', '/slow', { status: 200, body: {}, delayMs: 50 }).route('POST', '/bid', json(200, {}));
    const t = make();
    const first = t.request({ method: 'GET', path: '/slow' });
    const old = t.request({ method: 'POST', path: '/bid', body: { v: 1 }, coalesceKey: 'bid:x' });
    const newer = t.request({ method: 'POST', path: '/bid', body: { v: 2 }, coalesceKey: 'bid:x' });
    await expect(old).rejects.toBeInstanceOf(SupersededError);
    await first;
    await newer;
    expect(server.requestsTo('POST', '/bid').map((r) => JSON.parse(r.body))).toEqual([{ v: 2 }]);
  });

  it('calls observe() on every response, errors included, with parsed rate-limit headers', async () => {
    const rl = {
      'x-ratelimit-limit': '600',
      'x-ratelimit-remaining': '42',
      'x-ratelimit-reset': '1700000100',
    };
    server
      .route('GET', '/ok', json(200, {}, rl))
      .route('GET', '/bad', json(400, { errors: ['nope'] }, rl))
      .route('POST', '/boom', json(500, { errors: ['x'] }, rl))
      .route('POST', '/missing', json(404, { errors: ['x'] }));
    const t = make();
    await t.request({ method: 'GET', path: '/ok' });
    await expect(t.request({ method: 'GET', path: '/bad' })).rejects.toThrow();
    await expect(t.request({ method: 'POST', path: '/boom', group: 'fulfillment' })).rejects.toThrow();
    await expect(t.request({ method: 'POST', path: '/missing' })).rejects.toThrow();
    expect(scheduler.observations.map((o) => [o.group, o.status])).toEqual([
      ['read', 200],
      ['read', 400],
      ['fulfillment', 500],
      ['write', 404],
    ]);
    expect(scheduler.observations[1]).toMatchObject({
      limit: 600,
      remaining: 42,
      resetAtMs: 1_700_000_100_000,
    });
    expect(scheduler.observations[3]?.limit).toBeUndefined();
    expect(scheduler.observations.every((o) => typeof o.sentAtMs === 'number')).toBe(true);
  });
});

describe('headers per auth mode', () => {
  beforeEach(() => {
    server.route('GET', '/x', json(200, {})).route('POST', '/x', json(200, {}));
  });

  it('apiKey (default): X-API-KEY, no Authorization, no Cookie', async () => {
    const t = make();
    t.credentials.cookies.store(['access_token=abc123456']);
    await t.request({ method: 'GET', path: '/x' });
    const h = server.requests[0]?.headers ?? {};
    expect(h['x-api-key']).toBe('test-api-key-0001');
    expect(h.authorization).toBeUndefined();
    expect(h.cookie).toBeUndefined();
    expect(h.accept).toBe('application/json');
    expect(h['user-agent']).toBe('harpoon/0.1.0');
    expect(h['content-type']).toBeUndefined();
  });

  it('wallet: X-API-KEY and Authorization: Bearer <jwt>', async () => {
    const t = make();
    await t.request({ method: 'POST', path: '/x', auth: 'wallet', body: { a: 1 } });
    const h = server.requests[0]?.headers ?? {};
    expect(h['x-api-key']).toBe('test-api-key-0001');
    expect(h.authorization).toBe('Bearer jwt-0001');
    expect(h['content-type']).toBe('application/json');
    expect(server.requests[0]?.body).toBe('{"a":1}');
  });

  it('wallet JWT can come from a provider', async () => {
    let n = 0;
    const t = make({
      credentials: { apiKey: new Secret('k-000001'), walletJwt: () => new Secret(`provided-${++n}`) },
    });
    await t.request({ method: 'GET', path: '/x', auth: 'wallet' });
    await t.request({ method: 'GET', path: '/x', auth: 'wallet' });
    const sent = server.requests.map((r) => r.headers.authorization);
    expect(sent).toHaveLength(2);
    expect(sent.every((a) => /^Bearer provided-\d+$/.test(a ?? ''))).toBe(true);
    expect(sent[0]).not.toBe(sent[1]);
  });

  it('session: cookies only, no API key', async () => {
    const t = make();
    t.credentials.cookies.store(['access_token=acc-1; HttpOnly; Path=/', 'refresh_token=ref-1; HttpOnly']);
    await t.request({ method: 'GET', path: '/x', auth: 'session' });
    const h = server.requests[0]?.headers ?? {};
    expect(h.cookie).toBe('access_token=acc-1; refresh_token=ref-1');
    expect(h['x-api-key']).toBeUndefined();
    expect(h.authorization).toBeUndefined();
  });

  it('none: no credentials at all', async () => {
    const t = make();
    await t.request({ method: 'POST', path: '/x', auth: 'none', body: {} });
    const h = server.requests[0]?.headers ?? {};
    expect(h['x-api-key']).toBeUndefined();
    expect(h.authorization).toBeUndefined();
    expect(h.cookie).toBeUndefined();
  });

  it('toon format asks for text/markdown', async () => {
    const t = make();
    await t.request({ method: 'GET', path: '/x', format: 'toon' });
    expect(server.requests[0]?.headers.accept).toBe('text/markdown');
  });

  it('missing credentials fail fast without a request or a rate token', async () => {
    const t = make({ credentials: {} });
    await expect(t.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({
      code: 'missing_credentials',
    });
    await expect(t.request({ method: 'GET', path: '/x', auth: 'session' })).rejects.toBeInstanceOf(
      FatalError,
    );
    const w = make({ credentials: { apiKey: new Secret('k-000001') } });
    await expect(w.request({ method: 'GET', path: '/x', auth: 'wallet' })).rejects.toMatchObject({
      code: 'missing_credentials',
    });
    expect(server.requests).toHaveLength(0);
    expect(scheduler.jobs).toHaveLength(0);
  });

  it('a missing API key is obtained through refreshApiKey when there is a hook', async () => {
    const t = make({ credentials: { refreshApiKey: async () => new Secret('instant-key-1') } });
    await t.request({ method: 'GET', path: '/x' });
    expect(server.requests[0]?.headers['x-api-key']).toBe('instant-key-1');
  });
});

describe('redirects', () => {
  it('are never followed (a key must not travel to another host): unexpected_status', async () => {
    server.route('GET', '/moved', { status: 302, headers: { location: `${server.url}/elsewhere` } });
    server.route('GET', '/elsewhere', json(200, {}));
    const t = make();
    await expect(t.request({ method: 'GET', path: '/moved' })).rejects.toMatchObject({
      code: 'unexpected_status',
    });
    expect(server.requests.map((r) => r.path)).toEqual(['/moved']);
  });
});

describe('session cookies', () => {
  it('a 401 on a session request runs refreshSession once, which may itself use the transport', async () => {
    server
      .route('GET', '/api/v2/auth/tokens', (req) =>
        req.headers.cookie?.includes('access_token=A2') ? json(200, { tokens: [] }) : json(401, {}),
      )
      .route(
        'POST',
        '/api/v2/auth/session/refresh',
        json(200, {}, { 'set-cookie': ['access_token=A2', 'refresh_token=R2'] }),
      );
    let refreshes = 0;
    const creds = new Credentials({
      refreshSession: async () => {
        refreshes++;
        await t.request({ method: 'POST', path: '/api/v2/auth/session/refresh', auth: 'session', body: {} });
      },
    });
    const t = make({ credentials: creds });
    creds.cookies.store(['access_token=A1', 'refresh_token=R1']);
    await expect(t.request({ method: 'GET', path: '/api/v2/auth/tokens', auth: 'session' })).resolves.toEqual(
      {
        tokens: [],
      },
    );
    expect(refreshes).toBe(1);
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.headers.cookie}`)).toEqual([
      'GET /api/v2/auth/tokens access_token=A1; refresh_token=R1',
      'POST /api/v2/auth/session/refresh access_token=A1; refresh_token=R1',
      'GET /api/v2/auth/tokens access_token=A2; refresh_token=R2',
    ]);
  });

  it('stores Set-Cookie from auth endpoints, sends them on session requests, rotates and expires', async () => {
    server
      .route(
        'POST',
        '/api/v2/auth/siwe/verify',
        json(
          200,
          { ok: true },
          { 'set-cookie': ['access_token=A1; HttpOnly; Path=/', 'refresh_token=R1; HttpOnly'] },
        ),
      )
      .route(
        'POST',
        '/api/v2/auth/session/refresh',
        json(200, {}, { 'set-cookie': ['refresh_token=R2; Max-Age=2592000', 'access_token=A2'] }),
      )
      .route('GET', '/api/v2/auth/tokens', json(200, { tokens: [] }))
      .route('POST', '/api/v2/auth/logout-ish', json(200, {}, { 'set-cookie': 'access_token=; Max-Age=0' }))
      .route('GET', '/api/v2/other', json(200, {}, { 'set-cookie': 'tracker=zzz' }));
    const t = make();
    const verify = await t.requestRaw({
      method: 'POST',
      path: '/api/v2/auth/siwe/verify',
      auth: 'none',
      body: {},
    });
    expect(verify.headers.get('set-cookie')).toBeNull();
    await t.request({ method: 'GET', path: '/api/v2/auth/tokens', auth: 'session' });
    await t.request({ method: 'POST', path: '/api/v2/auth/session/refresh', auth: 'session', body: {} });
    await t.request({ method: 'GET', path: '/api/v2/auth/tokens', auth: 'session' });
    await t.request({ method: 'GET', path: '/api/v2/other' });
    await t.request({ method: 'POST', path: '/api/v2/auth/logout-ish', auth: 'session', body: {} });
    await t.request({ method: 'GET', path: '/api/v2/auth/tokens', auth: 'session' });
    expect(server.requestsTo('GET', '/api/v2/auth/tokens').map((r) => r.headers.cookie)).toEqual([
      'access_token=A1; refresh_token=R1',
      'access_token=A2; refresh_token=R2',
      'refresh_token=R2',
    ]);
    expect(t.credentials.cookies.has('tracker')).toBe(false);
  });

  it('cookie values are Secrets and expire on the clock', () => {
    const c = new VirtualClock();
    const jar = new CookieJar(c.now);
    jar.store(['access_token=TOPSECRET1; Max-Age=60']);
    expect(String(jar.get('access_token'))).toBe('[REDACTED]');
    expect(jar.header()).toBe('access_token=TOPSECRET1');
    c.advance(61_000);
    expect(jar.header()).toBeUndefined();
  });
});

describe('query encoding', () => {
  it('repeats array keys, stringifies scalars, drops undefined, keeps dotted keys', async () => {
    server.route('GET', '/api/v2/events', json(200, { asset_events: [] }));
    const t = make();
    await t.request({
      method: 'GET',
      path: '/api/v2/events',
      query: {
        event_type: ['sale', 'listing'],
        after: 1_700_000_000,
        token_id: 123456789012345678901234567890n,
        include_private_listings: false,
        'cursor.value': 'abc/def+=&',
        next: undefined,
        empty: [],
      },
    });
    const r = server.requests[0];
    expect(r?.url).toBe(
      '/api/v2/events?event_type=sale&event_type=listing&after=1700000000&token_id=123456789012345678901234567890&include_private_listings=false&cursor.value=abc%2Fdef%2B%3D%26',
    );
    expect(r?.query.getAll('event_type')).toEqual(['sale', 'listing']);
    expect(r?.query.get('cursor.value')).toBe('abc/def+=&');
  });

  it('refuses secrets and non-finite numbers', () => {
    expect(() => encodeQuery({ token: new Secret('x') as unknown as string })).toThrow(/secret/);
    expect(() => encodeQuery({ n: Number.NaN })).toThrow(RejectedError);
    expect(encodeQuery(undefined)).toBe('');
  });

  it('bodies: bigint as decimal string, Secret revealed on the wire only', () => {
    const body = {
      amount: 10n ** 18n,
      subjectToken: new Secret('pat-123456'),
      nested: { s: new Secret('n-1') },
    };
    expect(serializeBody(body)).toBe(
      '{"amount":"1000000000000000000","subjectToken":"pat-123456","nested":{"s":"n-1"}}',
    );
    expect(JSON.stringify({ ...body, amount: 0 })).not.toContain('pat-123456');
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    expect(() => serializeBody(circular)).toThrow(RejectedError);
  });
});

describe('response parsing', () => {
  it('requestRaw returns status, data and headers', async () => {
    server.route('POST', '/api/v2/auth/keys', json(201, { api_key: 'k' }, { 'x-custom': 'v' }));
    const t = make();
    const r = await t.requestRaw<{ api_key: string }>({
      method: 'POST',
      path: '/api/v2/auth/keys',
      auth: 'none',
    });
    expect(r.status).toBe(201);
    expect(r.data.api_key).toBe('k');
    expect(r.headers.get('x-custom')).toBe('v');
  });

  it('acceptStatus statuses are returned, not thrown', async () => {
    server.route('GET', '/best', json(404, { errors: ['none'] }));
    const t = make();
    const r = await t.requestRaw({ method: 'GET', path: '/best', acceptStatus: [404] });
    expect(r.status).toBe(404);
    expect(r.data).toEqual({ errors: ['none'] });
    await expect(t.request({ method: 'GET', path: '/best' })).rejects.toMatchObject({ code: 'http_404' });
  });

  it('text responses return the string', async () => {
    server
      .route('POST', '/refresh', { status: 200, body: 'queued', headers: { 'content-type': 'text/plain' } })
      .route('POST', '/refresh-json', {
        status: 200,
        body: '"ok"',
        headers: { 'content-type': 'application/json' },
      });
    const t = make();
    await expect(t.request({ method: 'POST', path: '/refresh', text: true })).resolves.toBe('queued');
    await expect(t.request({ method: 'POST', path: '/refresh-json', text: true })).resolves.toBe('ok');
  });

  it('204 gives undefined', async () => {
    server.route('DELETE', '/thing', { status: 204 });
    const t = make();
    await expect(t.request({ method: 'DELETE', path: '/thing', auth: 'none' })).resolves.toBeUndefined();
  });

  it.each([
    ['invalid JSON', '{"listings": [', 'invalid JSON'],
    ['empty body', '', 'empty body'],
    ['a JSON string', '"ok"', 'got string'],
    ['JSON null', 'null', 'got null'],
    ['a number', '42', 'got number'],
    ['HTML', '<html>oops</html>', 'invalid JSON'],
  ])('malformed GET body (%s) → malformed_response after bounded retries', async (_n, body, msg) => {
    server.route('GET', '/m', { status: 200, body, headers: { 'content-type': 'application/json' } });
    const t = make();
    const err = await t.request({ method: 'GET', path: '/m' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect(err).toMatchObject({ code: 'malformed_response', maybeProcessed: false });
    expect((err as Error).message).toContain(msg);
    expect(server.requests).toHaveLength(3);
  });

  it('malformed 2xx body of an order POST: processed, not resent', async () => {
    server.route('POST', '/api/v2/orders/ethereum/seaport/listings', { status: 201, body: '{"listing":' });
    const t = make();
    const err = await t
      .request({ method: 'POST', path: '/api/v2/orders/ethereum/seaport/listings', body: {} })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'malformed_response', maybeProcessed: true });
    expect(server.requests).toHaveLength(1);
  });

  it('a body above maxResponseBytes is malformed_response', async () => {
    server.route('GET', '/big', json(200, { data: 'x'.repeat(5000) }));
    const t = make({ maxResponseBytes: 1000, retry: { maxAttempts: 1 } });
    await expect(t.request({ method: 'GET', path: '/big' })).rejects.toMatchObject({
      code: 'malformed_response',
    });
  });
});

describe('timeouts and aborts', () => {
  it('a POST that times out is maybeProcessed (unknown, not failed) and not resent', async () => {
    server.route('POST', '/api/v2/offers', { hang: true });
    const t = make({ timeoutMs: 100 });
    const started = Date.now();
    const err = await t
      .request({ method: 'POST', path: '/api/v2/offers', body: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect(err).toMatchObject({ code: 'timeout', maybeProcessed: true });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });

  it('a GET that times out is retried, then timeout with maybeProcessed false', async () => {
    server.route('GET', '/hang', { hang: true });
    const t = make({ retry: { maxAttempts: 2 } });
    const err = await t.request({ method: 'GET', path: '/hang', timeoutMs: 80 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'timeout', maybeProcessed: false });
    expect(server.requests).toHaveLength(2);
  });

  it("the caller's signal aborts an in-flight request", async () => {
    server.route('POST', '/slow', { status: 200, body: {}, delayMs: 2_000 });
    const t = make();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await t
      .request({ method: 'POST', path: '/slow', body: {}, signal: ac.signal })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'aborted', maybeProcessed: true });
  });

  it('an already-aborted signal sends nothing', async () => {
    server.route('GET', '/x', json(200, {}));
    const t = make();
    const ac = new AbortController();
    ac.abort();
    await expect(t.request({ method: 'GET', path: '/x', signal: ac.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('close() rejects later requests', async () => {
    const t = make();
    await t.close();
    await expect(t.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({
      code: 'transport_closed',
    });
  });
});

describe('deprecation warnings', () => {
  const legacy = (chain: string): RequestSpec => ({
    method: 'GET',
    path: `/api/v2/orders/${chain}/seaport/listings`,
    deprecated: { replacement: '/api/v2/listings/collection/{slug}/all' },
  });

  it('logs one warning per deprecated endpoint per transport, naming the replacement', async () => {
    server
      .route('GET', '/api/v2/orders/ethereum/seaport/listings', json(200, { orders: [] }))
      .route('GET', '/api/v2/orders/base/seaport/listings', json(200, { orders: [] }))
      .route('GET', '/api/v2/orders/ethereum/seaport/offers', json(200, { orders: [] }));
    const t = make();
    await t.request(legacy('ethereum'));
    await t.request(legacy('ethereum'));
    await t.request(legacy('base'));
    const warnings = () => logLines.filter((l) => l.includes('deprecated endpoint'));
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('/api/v2/listings/collection/{slug}/all');
    await t.request({
      method: 'GET',
      path: '/api/v2/orders/ethereum/seaport/offers',
      deprecated: { replacement: '/api/v2/offers/collection/{slug}/all' },
    });
    expect(warnings()).toHaveLength(2);
    const other = make();
    await other.request(legacy('ethereum'));
    expect(warnings()).toHaveLength(3);
  });

  it('warnDeprecatedField logs once per field', () => {
    const lines: string[] = [];
    const logger = createLogger({
      destination: new Writable({
        write(c, _e, cb) {
          lines.push(String(c));
          cb();
        },
      }),
    });
    expect(warnDeprecatedField(logger, 'order', 'listing')).toBe(true);
    expect(warnDeprecatedField(logger, 'order', 'listing')).toBe(false);
    expect(warnDeprecatedField(logger, 'trait', 'traits')).toBe(true);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("use 'listing'");
  });
});

describe('credentials object', () => {
  it('can be shared and replaced at runtime', async () => {
    server.route('GET', '/x', json(200, {}));
    const creds = new Credentials({ apiKey: new Secret('first-key-1') });
    const t = make({ credentials: creds });
    await t.request({ method: 'GET', path: '/x' });
    creds.setApiKey(new Secret('second-key-2'));
    await t.request({ method: 'GET', path: '/x' });
    expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual(['first-key-1', 'second-key-2']);
    expect(t.credentials).toBe(creds);
  });
});
