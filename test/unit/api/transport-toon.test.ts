/**
 * The transport's `toon` option (config `api.toon`): every GET that does not name its format asks
 * for TOON (`Accept: text/markdown`) and decodes it to the value its JSON would give; anything
 * else (POST, an explicit `format: 'json'`, a plain-text answer) still asks for JSON, and with the
 * option off every request asks for JSON. Against a real local HTTP server.
 */
import { inspect } from 'node:util';
import { encode } from '@toon-format/toon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTransport, type HttpTransport } from '../../../src/api/transport.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { TransientError } from '../../../src/errors/index.ts';
import { FakeHttpServer, type RecordedRequest } from '../fakes/http-server.ts';
import { FakeScheduler, VirtualClock } from '../fakes/scheduler.ts';

const LISTINGS = '/api/v2/listings/collection/harpoon-apes/best';
const OFFERS = '/api/v2/offers';

/** A best-listings page: nested objects, a tabular array, wei strings, numeric-looking strings, nulls. */
const page = {
  listings: [
    {
      order_hash: '0x6b2ec8f0c3d1a0f4b5d2a1c0e9f8d7c6b5a4938271605f4e3d2c1b0a99887766',
      chain: 'ethereum',
      price: { current: { currency: 'ETH', decimals: 18, value: '1000000000000000000' } },
      protocol_data: {
        parameters: {
          offerer: '0x1111111111111111111111111111111111111111',
          offer: [
            { itemType: 2, token: '0x2222222222222222222222222222222222222222', identifierOrCriteria: '007' },
          ],
          consideration: [
            {
              itemType: 0,
              startAmount: '990000000000000000',
              recipient: '0x1111111111111111111111111111111111111111',
            },
            {
              itemType: 0,
              startAmount: '10000000000000000',
              recipient: '0x0000a26b00c1f0df003000390027140000faa719',
            },
          ],
          counter: '0',
        },
        signature: null,
      },
      remaining_quantity: 1,
      status: 'ACTIVE',
    },
  ],
  floors: [
    { trait_type: 'Eyes', value: '123', floor_price: 0.0123 },
    { trait_type: 'Hat, with comma', value: 'true', floor_price: 2 },
  ],
  next: null,
};
/** What `JSON.parse` gives for the JSON answer. */
const asJson = JSON.parse(JSON.stringify(page)) as unknown;

const TOON_HEADERS = { 'content-type': 'text/markdown; charset=utf-8' };

let server: FakeHttpServer;
let clock: VirtualClock;
const transports: HttpTransport[] = [];

function make(toon: boolean | undefined): HttpTransport {
  const t = createTransport({
    baseUrl: server.url,
    scheduler: new FakeScheduler({ clock }),
    credentials: { apiKey: new Secret('toon-key-000002') },
    clock,
    sleep: clock.sleep,
    random: () => 0.5,
    ...(toon !== undefined ? { toon } : {}),
  });
  transports.push(t);
  return t;
}

/** Answers TOON when asked for `text/markdown`, JSON otherwise — the sandbox's and the API's rule. */
function negotiated(value: unknown) {
  return (req: RecordedRequest) =>
    req.headers.accept === 'text/markdown'
      ? { status: 200, headers: TOON_HEADERS, body: encode(value) }
      : { status: 200, body: value };
}

function accepts(): (string | undefined)[] {
  return server.requests.map((r) => r.headers.accept);
}

beforeEach(async () => {
  server = await FakeHttpServer.start();
  clock = new VirtualClock();
});

afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  await server.close();
});

describe('toon: true', () => {
  it('a GET without a format asks for TOON and decodes it to the same value as its JSON', async () => {
    server.route('GET', LISTINGS, negotiated(page));
    const viaToon = await make(true).request({ method: 'GET', path: LISTINGS, query: { limit: 2 } });
    const viaJson = await make(false).request({ method: 'GET', path: LISTINGS, query: { limit: 2 } });
    expect(accepts()).toEqual(['text/markdown', 'application/json']);
    expect(viaToon).toStrictEqual(asJson);
    expect(viaToon).toStrictEqual(viaJson);
    // wei amounts and token ids stay strings, nulls stay null
    const v = viaToon as typeof page;
    expect(v.listings[0]?.price.current.value).toBe('1000000000000000000');
    expect(v.listings[0]?.protocol_data.parameters.offer[0]?.identifierOrCriteria).toBe('007');
    expect(v.floors[0]?.value).toBe('123');
    expect(v.next).toBeNull();
  });

  it('a POST still asks for JSON (and gets it)', async () => {
    server.route('POST', OFFERS, negotiated({ order_hash: '0x01' }));
    const v = await make(true).request({ method: 'POST', path: OFFERS, body: { a: 1 } });
    expect(accepts()).toEqual(['application/json']);
    expect(v).toEqual({ order_hash: '0x01' });
  });

  it('a GET that names format json, or expects plain text, still asks for JSON', async () => {
    server.route('GET', LISTINGS, negotiated(page));
    server.route('GET', '/api/v2/refresh', { status: 200, body: 'queued' });
    const t = make(true);
    await expect(t.request({ method: 'GET', path: LISTINGS, format: 'json' })).resolves.toStrictEqual(asJson);
    await expect(t.request({ method: 'GET', path: '/api/v2/refresh', text: true })).resolves.toBe('queued');
    expect(accepts()).toEqual(['application/json', 'application/json']);
  });

  it('a malformed TOON body is a malformed-response error that names TOON, not the body', async () => {
    // declares 3 rows, sends 1: strict decoding refuses a truncated table
    const body = 'listings[3]{order_hash,chain}:\n  0xBODYMARKER,ethereum\n';
    server.route('GET', LISTINGS, { status: 200, headers: TOON_HEADERS, body });
    const e = await make(true)
      .request({ method: 'GET', path: LISTINGS })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TransientError);
    expect(e).toMatchObject({
      code: 'malformed_response',
      maybeProcessed: false,
      details: { format: 'toon', method: 'GET', path: LISTINGS, status: 200 },
    });
    expect((e as Error).message).toContain('malformed TOON response');
    expect(inspect(e, { depth: 10 })).not.toContain('BODYMARKER');
    expect(accepts().every((a) => a === 'text/markdown')).toBe(true);
  });
});

describe('toon: false (and absent)', () => {
  it.each([false, undefined])('toon: %s — GET and POST both ask for JSON', async (toon) => {
    server.route('GET', LISTINGS, negotiated(page));
    server.route('POST', OFFERS, negotiated({ order_hash: '0x02' }));
    const t = make(toon);
    await expect(t.request({ method: 'GET', path: LISTINGS })).resolves.toStrictEqual(asJson);
    await expect(t.request({ method: 'POST', path: OFFERS, body: {} })).resolves.toEqual({
      order_hash: '0x02',
    });
    expect(accepts()).toEqual(['application/json', 'application/json']);
  });
});
