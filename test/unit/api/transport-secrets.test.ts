/**
 * Canary secrets (threats.md "Secrets in logs"): put recognizable credentials in every slot, trigger
 * every kind of failure, and scan every sink: error messages, stacks, JSON, util.inspect, causes
 * and log lines — in plain, URL-encoded and base64 forms. Zero hits.
 */
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport, type HttpTransport, type TransportOptions } from '../../../src/api/transport.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { BaseError } from '../../../src/errors/index.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { FakeHttpServer, json } from '../fakes/http-server.ts';
import { FakeScheduler, VirtualClock } from '../fakes/scheduler.ts';

const KEY1 = 'CANARYKEY1-7f3a9c1e55';
const KEY2 = 'CANARYKEY2-0b8d4e2a66';
const JWT1 = 'CANARYJWT1.eyJhbGciOi.9f8e7d';
const JWT2 = 'CANARYJWT2.eyJzdWIiOi.1a2b3c';
const COOKIE_ACCESS = 'CANARYCOOKIEA-4c5d6e';
const COOKIE_REFRESH = 'CANARYCOOKIER-7f8a9b';
const PAT = 'CANARYPAT-3e4f5a6b7c';
const CANARIES = [KEY1, KEY2, JWT1, JWT2, COOKIE_ACCESS, COOKIE_REFRESH, PAT];

function forms(s: string): string[] {
  return [s, encodeURIComponent(s), Buffer.from(s).toString('base64'), JSON.stringify(s).slice(1, -1)];
}

function hits(text: string): string[] {
  return CANARIES.filter((c) => forms(c).some((f) => text.includes(f)));
}

let server: FakeHttpServer;
let logLines: string[];
const errors: Array<{ label: string; error: unknown }> = [];
const transports: HttpTransport[] = [];

function make(overrides: Partial<TransportOptions> = {}): HttpTransport {
  const clock = new VirtualClock();
  const t = createTransport({
    baseUrl: server.url,
    scheduler: new FakeScheduler({ clock }),
    credentials: {
      apiKey: new Secret(KEY1, 'apiKey'),
      walletJwt: new Secret(JWT1, 'jwt'),
      refreshApiKey: async () => new Secret(KEY2, 'apiKey'),
      refreshWalletJwt: async () => new Secret(JWT2, 'jwt'),
    },
    clock,
    sleep: clock.sleep,
    timeoutMs: 100,
    logger: createLogger({
      level: 'trace',
      destination: new Writable({
        write(chunk, _e, cb) {
          logLines.push(String(chunk));
          cb();
        },
      }),
    }),
    ...overrides,
  });
  transports.push(t);
  return t;
}

async function capture(label: string, p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (error) {
    errors.push({ label, error });
    return;
  }
  throw new Error(`${label}: expected a failure`);
}

/** Every server error body echoes the credentials it saw, like a careless API might. */
function echo(status: number, headers: Record<string, string> = {}) {
  return (req: { headers: Record<string, unknown>; body: string }) =>
    json(
      status,
      {
        errors: [
          `bad key ${String(req.headers['x-api-key'])}`,
          `auth ${String(req.headers.authorization)}`,
          `body ${req.body}`,
        ],
        detail: `cookie ${String(req.headers.cookie)}`,
      },
      headers,
    );
}

beforeAll(async () => {
  server = await FakeHttpServer.start();
  logLines = [];
  const ORDER = '/api/v2/orders/ethereum/seaport/listings';
  server
    .route('POST', '/400', echo(400))
    .route('GET', '/401', echo(401))
    .route('POST', '/401w', echo(401))
    .route('GET', '/401s', echo(401))
    .route('GET', '/403', echo(403))
    .route('GET', '/404', echo(404))
    .route('POST', '/409', echo(409))
    .route('POST', '/422', echo(422))
    .route('GET', '/429', echo(429, { 'retry-after': '1' }))
    .route('POST', ORDER, echo(500))
    .route('GET', '/500', echo(500))
    .route('POST', '/api/v2/auth/keys', echo(503))
    .route('POST', '/hang', { hang: true })
    .route('POST', '/reset', { destroy: true })
    .route('GET', '/badjson', { status: 200, body: `{"api_key":"${KEY1}", "jwt": "${JWT1}"` })
    .route('GET', '/badtoon', {
      status: 200,
      body: `x[5]: ${KEY1},${JWT1}`,
      headers: { 'content-type': 'text/markdown' },
    })
    .route('POST', '/api/v2/auth/tokens/exchange', echo(403))
    .route('POST', '/slow', { status: 200, body: {}, delayMs: 1_000 });

  const t = make();
  t.credentials.cookies.store([
    `access_token=${COOKIE_ACCESS}; HttpOnly`,
    `refresh_token=${COOKIE_REFRESH}; HttpOnly`,
  ]);

  await capture('400', t.request({ method: 'POST', path: '/400', body: { x: 1 } }));
  await capture('401 apiKey', t.request({ method: 'GET', path: '/401' }));
  await capture('401 wallet', t.request({ method: 'POST', path: '/401w', auth: 'wallet', body: {} }));
  await capture('401 session', t.request({ method: 'GET', path: '/401s', auth: 'session' }));
  await capture('403', t.request({ method: 'GET', path: '/403', auth: 'wallet' }));
  await capture('404', t.request({ method: 'GET', path: '/404' }));
  await capture('409', t.request({ method: 'POST', path: '/409', body: {} }));
  await capture('422', t.request({ method: 'POST', path: '/422', body: {} }));
  await capture('429', t.request({ method: 'GET', path: '/429' }));
  await capture('500 POST', t.request({ method: 'POST', path: ORDER, body: {} }));
  await capture('500 GET', t.request({ method: 'GET', path: '/500' }));
  await capture('503 keys', t.request({ method: 'POST', path: '/api/v2/auth/keys', auth: 'none' }));
  await capture('timeout', t.request({ method: 'POST', path: '/hang', auth: 'wallet', body: {} }));
  await capture('reset', t.request({ method: 'POST', path: '/reset', auth: 'wallet', body: {} }));
  await capture('malformed json', t.request({ method: 'GET', path: '/badjson' }));
  await capture('malformed toon', t.request({ method: 'GET', path: '/badtoon', format: 'toon' }));
  await capture(
    'PAT exchange 403',
    t.request({
      method: 'POST',
      path: '/api/v2/auth/tokens/exchange',
      auth: 'none',
      body: { subjectToken: new Secret(PAT), subjectTokenType: 'ACCESS_TOKEN' },
    }),
  );
  await capture(
    'secret in query',
    t.request({ method: 'GET', path: '/404', query: { token: new Secret(KEY1) as unknown as string } }),
  );
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 30);
  await capture(
    'abort',
    t.request({ method: 'POST', path: '/slow', auth: 'wallet', body: {}, signal: ac.signal }),
  );

  // Connection refused.
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  await capture(
    'refused',
    make({ baseUrl: `http://127.0.0.1:${port}` }).request({ method: 'GET', path: '/x' }),
  );

  // A refresh hook whose own error quotes the key.
  const bad = make({
    credentials: {
      apiKey: new Secret(KEY1),
      refreshApiKey: async () => {
        throw new Error(`portal: key ${KEY1} revoked, try ${KEY2}`);
      },
    },
  });
  await capture('refresh hook failure', bad.request({ method: 'GET', path: '/401' }));
  // Missing credentials.
  await capture(
    'missing jwt',
    make({ credentials: { apiKey: new Secret(KEY1) } }).request({
      method: 'GET',
      path: '/x',
      auth: 'wallet',
    }),
  );
}, 30_000);

afterAll(async () => {
  for (const t of transports.splice(0)) await t.close();
  await server.close();
});

describe('canary secrets never leak', () => {
  it('the canaries really went over the wire (so the scan can fail)', () => {
    const seen = server.requests.flatMap((r) => [
      String(r.headers['x-api-key']),
      String(r.headers.authorization),
      String(r.headers.cookie),
      r.body,
    ]);
    for (const c of CANARIES) expect(seen.some((v) => v.includes(c))).toBe(true);
    expect(errors.length).toBeGreaterThanOrEqual(21);
  });

  it('every failure is a BaseError with a useful code', () => {
    const codes = Object.fromEntries(errors.map(({ label, error }) => [label, (error as BaseError).code]));
    for (const { error } of errors) expect(error).toBeInstanceOf(BaseError);
    expect(codes).toMatchObject({
      '400': 'http_400',
      '401 apiKey': 'unauthorized',
      '401 wallet': 'unauthorized',
      '401 session': 'unauthorized',
      '403': 'forbidden',
      '429': 'rate_limited',
      '500 POST': 'http_500',
      '503 keys': 'unavailable',
      timeout: 'timeout',
      reset: 'network',
      refused: 'network',
      'malformed json': 'malformed_response',
      'malformed toon': 'malformed_response',
      abort: 'aborted',
      'refresh hook failure': 'credential_refresh_failed',
      'missing jwt': 'missing_credentials',
    });
  });

  it('no canary in any error: message, stack, JSON, util.inspect, String, causes', () => {
    for (const { label, error } of errors) {
      const e = error as Error;
      const views: string[] = [
        e.message,
        String(e.stack),
        JSON.stringify(e),
        inspect(e, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
        String(e),
      ];
      for (let c: unknown = e.cause, i = 0; c !== undefined && i < 5; c = (c as Error).cause, i++) {
        views.push(inspect(c, { depth: Number.POSITIVE_INFINITY, showHidden: true }), String(c));
      }
      expect({ label, hits: hits(views.join('\n')) }).toEqual({ label, hits: [] });
    }
  });

  it('server reasons that echoed a credential were scrubbed, not dropped', () => {
    const e400 = errors.find((x) => x.label === '400')?.error as Error;
    expect(e400.message).toContain('bad key [REDACTED]');
  });

  it('no canary in any log line (and the log was not empty)', () => {
    expect(logLines.length).toBeGreaterThan(5);
    expect(logLines.some((l) => l.includes('retrying'))).toBe(true);
    expect(hits(logLines.join('\n'))).toEqual([]);
  });
});
