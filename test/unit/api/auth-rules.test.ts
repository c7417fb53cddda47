/**
 * The client's side of the spec's Authentication rules 2–4 (the table of every rule and its tests
 * on both ends is at the top of test/integration/sandbox/auth/rules.test.ts): the typed client over
 * the real transport, with every credential configured at once (API key, wallet JWT, session
 * cookies), to a fake HTTP server — so each request shows which credential it chose to send.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/client.ts';
import { createTransport, type HttpTransport } from '../../../src/api/transport.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { FakeHttpServer, json } from '../fakes/http-server.ts';
import { FakeScheduler, VirtualClock } from '../fakes/scheduler.ts';

const KEY = 'key-rules-0001';
const JWT = 'jwt-rules-0001';
const PAT = 'pat_rules_value_0001';
const COOKIES = 'access_token=acc-rules; refresh_token=ref-rules';

let server: FakeHttpServer;
let transport: HttpTransport;
let api: ApiClient;

beforeEach(async () => {
  server = await FakeHttpServer.start();
  transport = createTransport({
    baseUrl: server.url,
    scheduler: new FakeScheduler({ clock: new VirtualClock() }),
    credentials: { apiKey: new Secret(KEY, 'apiKey'), walletJwt: new Secret(JWT, 'jwt') },
  });
  transport.credentials.cookies.store([
    'access_token=acc-rules; HttpOnly',
    'refresh_token=ref-rules; HttpOnly',
  ]);
  api = createApiClient(transport);
});

afterEach(async () => {
  await transport.close();
  await server.close();
});

/** The credential headers of each request the server saw. */
const credentialsSent = () =>
  server.requests.map((r) => ({
    path: `${r.method} ${r.path}`,
    apiKey: r.headers['x-api-key'],
    authorization: r.headers.authorization,
    cookie: r.headers.cookie,
  }));

describe('Authentication rules on the client', () => {
  it('rule 2: a wallet-scoped call (drop eligibility, cancel by wallet) sends the API key and the wallet JWT', async () => {
    const hash = `0x${'cd'.repeat(32)}`;
    const seaport = '0x0000000000000068f116a894984e2db1123eb395';
    server
      .route('GET', '/api/v2/drops/genesis/eligibility', json(200, { stages: [] }))
      .route('POST', `/api/v2/orders/chain/ethereum/protocol/${seaport}/${hash}/cancel`, json(200, {}));
    await api.drops.eligibility('genesis');
    await api.orders.cancelWithWallet('ethereum', seaport, hash);
    for (const sent of credentialsSent()) {
      expect(sent, sent.path).toMatchObject({
        apiKey: KEY,
        authorization: `Bearer ${JWT}`,
        cookie: undefined,
      });
    }
    expect(server.requests).toHaveLength(2);
  });

  it('rule 3: the PAT travels only in the exchange body — never in Authorization, nor anywhere else', async () => {
    server
      .route(
        'POST',
        '/api/v2/auth/tokens/exchange',
        json(200, { accessToken: 'jwt-new', tokenType: 'Bearer' }),
      )
      .route('GET', '/api/v2/drops/genesis/eligibility', json(200, { stages: [] }));
    await api.auth.exchange(new Secret(PAT, 'pat'));
    await api.drops.eligibility('genesis');
    const [exchange, wallet] = server.requests;
    expect(JSON.parse(exchange?.body ?? '')).toEqual({ subjectToken: PAT, subjectTokenType: 'ACCESS_TOKEN' });
    expect(exchange?.headers.authorization).toBeUndefined();
    expect(exchange?.headers['x-api-key']).toBeUndefined();
    expect(wallet?.headers.authorization).toBe(`Bearer ${JWT}`);
    // the PAT appears in no header of any request, and in no body but the exchange's
    for (const r of server.requests) expect(JSON.stringify(r.headers)).not.toContain(PAT);
    expect(server.requests.filter((r) => r.body.includes(PAT))).toHaveLength(1);
  });

  it('rule 4: PAT list, create, rotate and revoke send the session cookies only (no API key, no wallet JWT)', async () => {
    server
      .route('GET', '/api/v2/auth/tokens', json(200, { tokens: [] }))
      .route('POST', '/api/v2/auth/tokens', json(201, { id: 'p1', token: PAT, scopes: ['write:orders'] }))
      .route('POST', '/api/v2/auth/tokens/p1/rotate', json(200, { id: 'p1', token: `${PAT}x` }))
      .route('DELETE', '/api/v2/auth/tokens/p1', json(200, {}));
    await api.auth.listTokens();
    await api.auth.createToken({ label: 'l', scopes: ['write:orders'], expiresInDays: 7 });
    await api.auth.rotateToken('p1');
    await api.auth.revokeToken('p1');
    expect(credentialsSent()).toEqual([
      { path: 'GET /api/v2/auth/tokens', apiKey: undefined, authorization: undefined, cookie: COOKIES },
      { path: 'POST /api/v2/auth/tokens', apiKey: undefined, authorization: undefined, cookie: COOKIES },
      {
        path: 'POST /api/v2/auth/tokens/p1/rotate',
        apiKey: undefined,
        authorization: undefined,
        cookie: COOKIES,
      },
      { path: 'DELETE /api/v2/auth/tokens/p1', apiKey: undefined, authorization: undefined, cookie: COOKIES },
    ]);
  });
});
