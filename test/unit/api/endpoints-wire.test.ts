/**
 * A few endpoint methods through the real transport to a real node:http fake server: what the
 * RequestSpecs become on the wire (query encoding, auth headers, bodies) and how the answers that
 * need care come back (404 → null, plain text, empty bodies).
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/client.ts';
import { createTransport, type HttpTransport } from '../../../src/api/transport.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { FakeHttpServer, json } from '../fakes/http-server.ts';
import { FakeScheduler, VirtualClock } from '../fakes/scheduler.ts';

const ADDR = '0x1111111111111111111111111111111111111111';
const SLUG = 'doodles-official';
const API_KEY = 'test-api-key-0001';

let server: FakeHttpServer;
let transport: HttpTransport;
let api: ApiClient;
let logLines: string[];

beforeEach(async () => {
  server = await FakeHttpServer.start();
  const clock = new VirtualClock();
  logLines = [];
  transport = createTransport({
    baseUrl: server.url,
    scheduler: new FakeScheduler({ clock }),
    credentials: { apiKey: new Secret(API_KEY, 'apiKey') },
    clock,
    sleep: clock.sleep,
    random: () => 0.5,
    logger: createLogger({
      level: 'debug',
      destination: new Writable({
        write(chunk, _enc, cb) {
          logLines.push(String(chunk));
          cb();
        },
      }),
    }),
  });
  api = createApiClient(transport);
});

afterEach(async () => {
  await transport.close();
  await server.close();
});

describe('endpoints over the real transport', () => {
  it('best listing of an NFT: a 404 answer becomes null', async () => {
    server.route(
      'GET',
      `/api/v2/listings/collection/${SLUG}/nfts/5/best`,
      json(404, { errors: ['not found'] }),
    );
    await expect(api.listings.bestForNft(SLUG, '5')).resolves.toBeNull();
    expect(server.requests[0]?.headers['x-api-key']).toBe(API_KEY);
  });

  it('best listing of an NFT: a 200 answer is the listing', async () => {
    server.route('GET', `/api/v2/listings/collection/${SLUG}/nfts/5/best`, json(200, { order_hash: '0x1' }));
    await expect(api.listings.bestForNft(SLUG, '5')).resolves.toEqual({ order_hash: '0x1' });
  });

  it('repeats event_type and sends cursor.value and traits as the API expects', async () => {
    server
      .route('GET', '/api/v2/events', json(200, { asset_events: [] }))
      .route('GET', '/api/v2/orders/ethereum/seaport/offers', json(200, { orders: [] }))
      .route('GET', `/api/v2/listings/collection/${SLUG}/best`, json(200, { listings: [] }));
    await api.events.list({ event_type: ['sale', 'listing'], after: 5 });
    await api.offers.legacyList('ethereum', {
      'cursor.value': 'abc',
      token_ids: ['1', '2'],
      asset_contract_address: ADDR,
    });
    await api.listings.best(SLUG, { traits: [{ traitType: 'Eyes', value: 'Laser' }] });
    const [events, legacy, best] = server.requests;
    expect(events?.query.getAll('event_type')).toEqual(['sale', 'listing']);
    expect(events?.query.get('after')).toBe('5');
    expect(legacy?.query.get('cursor.value')).toBe('abc');
    expect(legacy?.query.getAll('token_ids')).toEqual(['1', '2']);
    expect(best?.query.get('traits')).toBe('[{"traitType":"Eyes","value":"Laser"}]');
    expect(logLines.join('')).toContain('/api/v2/offers/collection/{slug}/all');
  });

  it('NFT refresh returns the plain-text answer', async () => {
    server.route('POST', `/api/v2/chain/ethereum/contract/${ADDR}/nfts/1/refresh`, {
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: 'Refresh queued',
    });
    await expect(
      api.nfts.refreshMetadata('ethereum', ADDR, '1', { ignoreCachedItemUrls: true }),
    ).resolves.toBe('Refresh queued');
    expect(server.requests[0]?.query.get('ignoreCachedItemUrls')).toBe('true');
  });

  it('collection refresh accepts an empty answer', async () => {
    server.route('POST', `/api/v2/collections/${SLUG}/refresh`, { status: 202 });
    await expect(api.collections.refreshMetadata(SLUG)).resolves.toBe('');
  });

  it('PAT exchange sends the camelCase body without an API key', async () => {
    server.route(
      'POST',
      '/api/v2/auth/tokens/exchange',
      json(200, { accessToken: 'jwt', tokenType: 'Bearer' }),
    );
    await expect(api.auth.exchange('pat_0123456789')).resolves.toMatchObject({ accessToken: 'jwt' });
    const req = server.requests[0];
    expect(JSON.parse(req?.body ?? '')).toEqual({
      subjectToken: 'pat_0123456789',
      subjectTokenType: 'ACCESS_TOKEN',
    });
    expect(req?.headers['x-api-key']).toBeUndefined();
  });

  it('instant key creation answers 201', async () => {
    const key = { api_key: 'k', name: 'agent_free_1', expires_at: 'x', rate_limits: {}, upgrade_url: 'u' };
    server.route('POST', '/api/v2/auth/keys', json(201, key));
    await expect(api.auth.createInstantKey()).resolves.toEqual(key);
    expect(server.requests[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('cancel with a wallet JWT sends both credentials and the camelCase signature', async () => {
    const jwtTransport = createTransport({
      baseUrl: server.url,
      scheduler: new FakeScheduler({ clock: new VirtualClock() }),
      credentials: { apiKey: new Secret(API_KEY, 'apiKey'), walletJwt: new Secret('jwt-0001', 'jwt') },
    });
    try {
      const hash = `0x${'ab'.repeat(32)}`;
      server.route(
        'POST',
        `/api/v2/orders/chain/ethereum/protocol/${ADDR}/${hash}/cancel`,
        json(200, { last_signature_issued_valid_until: 'x' }),
      );
      await createApiClient(jwtTransport).orders.cancelWithWallet('ethereum', ADDR, hash, {
        offererSignature: '0xs',
      });
      const req = server.requests[0];
      expect(req?.headers['authorization']).toBe('Bearer jwt-0001');
      expect(req?.headers['x-api-key']).toBe(API_KEY);
      expect(JSON.parse(req?.body ?? '')).toEqual({ offererSignature: '0xs' });
    } finally {
      await jwtTransport.close();
    }
  });
});
