import { inspect } from 'node:util';
import { encode } from '@toon-format/toon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { httpErrorInfo } from '../../../src/api/errors.ts';
import { decodeToon, isToonContentType } from '../../../src/api/toon.ts';
import { createTransport, type HttpTransport } from '../../../src/api/transport.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { TransientError } from '../../../src/errors/index.ts';
import { FakeHttpServer } from '../fakes/http-server.ts';
import { FakeScheduler, VirtualClock } from '../fakes/scheduler.ts';

const SEAPORT = '0x0000000000000068F116a894984e2DB1123eB395';

/** A best-listings page shaped like the real wire (nested arrays of objects, wei strings, nulls). */
const listingsPage = {
  listings: [
    {
      order_hash: '0x6b2ec8f0c3d1a0f4b5d2a1c0e9f8d7c6b5a4938271605f4e3d2c1b0a99887766',
      chain: 'ethereum',
      type: 'basic',
      price: { current: { currency: 'ETH', decimals: 18, value: '1000000000000000000' } },
      protocol_data: {
        parameters: {
          offerer: '0x1111111111111111111111111111111111111111',
          offer: [
            {
              itemType: 2,
              token: '0x495f947276749ce646f68ac8c248420045cb7b5e',
              identifierOrCriteria:
                '74633446134305286787126286245208461573040064069245010470939981937785460424705',
              startAmount: '1',
              endAmount: '1',
            },
          ],
          consideration: [
            {
              itemType: 0,
              token: '0x0000000000000000000000000000000000000000',
              identifierOrCriteria: '0',
              startAmount: '990000000000000000',
              endAmount: '990000000000000000',
              recipient: '0x1111111111111111111111111111111111111111',
            },
            {
              itemType: 0,
              token: '0x0000000000000000000000000000000000000000',
              identifierOrCriteria: '0',
              startAmount: '10000000000000000',
              endAmount: '10000000000000000',
              recipient: '0x0000a26b00c1f0df003000390027140000faa719',
            },
          ],
          orderType: 1,
          startTime: '1700000000',
          endTime: '1702592000',
          zone: '0x0000000000000000000000000000000000000000',
          zoneHash: '0x0000000000000000000000000000000000000000000000000000000000000000',
          salt: '0x360c6ebe0000000000000000000000000000000000000000a1b2c3d4e5f60718',
          conduitKey: '0x0000007b02230091a7ed01230072f7006a004d60a8d4e71d599b8104250f0000',
          totalOriginalConsiderationItems: 2,
          counter: 0,
        },
        signature: null,
      },
      protocol_address: SEAPORT,
      remaining_quantity: 1,
      status: 'ACTIVE',
      asset: null,
    },
    {
      order_hash: '0x01',
      chain: 'base',
      type: 'criteria',
      price: { current: { currency: 'WETH', decimals: 18, value: '42' } },
      protocol_data: { parameters: { offer: [], consideration: [], counter: '7' }, signature: '0xdeadbeef' },
      protocol_address: SEAPORT,
      remaining_quantity: 3,
      status: 'INACTIVE',
      asset: { identifier: '007', contract: '0x2222222222222222222222222222222222222222' },
    },
  ],
  next: 'LXBrPTEyMzQ1Ng==',
};

/** Trait floors: a uniform (tabular) array, floats, strings that look like other types. */
const traitFloors = {
  chain: 'ethereum',
  floors: [
    { trait_type: 'Background', value: 'Blue', floor_price: 0.0123, payment_token_symbol: 'ETH' },
    { trait_type: 'Background', value: 'true', floor_price: 1.5, payment_token_symbol: 'WETH' },
    { trait_type: 'Eyes', value: '123', floor_price: 2, payment_token_symbol: 'ETH' },
    { trait_type: 'Hat, with comma', value: 'a: b', floor_price: -0.5, payment_token_symbol: 'null' },
    { trait_type: 'Mouth', value: '', floor_price: 1e-7, payment_token_symbol: ' padded ' },
  ],
  nested: [[1, 2], [], [{ a: null }], ['x', 'y,z']],
  unicode: 'Ünïcødé — 🐳',
  multiline: 'line1\nline2\t"quoted"',
};

let server: FakeHttpServer;
let scheduler: FakeScheduler;
let t: HttpTransport;

beforeEach(async () => {
  server = await FakeHttpServer.start();
  const clock = new VirtualClock();
  scheduler = new FakeScheduler({ clock });
  t = createTransport({
    baseUrl: server.url,
    scheduler,
    credentials: { apiKey: new Secret('toon-key-000001') },
    clock,
    sleep: clock.sleep,
  });
});

afterEach(async () => {
  await t.close();
  await server.close();
});

function toonResponse(body: string, status = 200) {
  return { status, body, headers: { 'content-type': 'text/markdown; charset=utf-8' } };
}

describe('TOON through the transport', () => {
  it.each([
    ['best listings page', listingsPage],
    ['trait floors (tabular)', traitFloors],
  ])('is lossless relative to the JSON: %s', async (_name, original) => {
    const text = encode(original);
    server.route('GET', '/api/v2/page', toonResponse(text));
    const viaToon = await t.request({ method: 'GET', path: '/api/v2/page', format: 'toon' });
    // Deep-equal to what JSON.parse gives for the JSON body: wei and token ids stay strings.
    expect(viaToon).toStrictEqual(JSON.parse(JSON.stringify(original)));
    expect(server.requests[0]?.headers.accept).toBe('text/markdown');
  });

  it('keeps wei amounts and token ids as strings, nulls as null', async () => {
    server.route('GET', '/api/v2/page', toonResponse(encode(listingsPage)));
    const v = await t.request<typeof listingsPage>({ method: 'GET', path: '/api/v2/page', format: 'toon' });
    expect(v.listings[0]?.price.current.value).toBe('1000000000000000000');
    expect(v.listings[0]?.protocol_data.parameters.offer[0]?.identifierOrCriteria).toBe(
      '74633446134305286787126286245208461573040064069245010470939981937785460424705',
    );
    expect(v.listings[0]?.protocol_data.signature).toBeNull();
    expect(v.listings[1]?.asset?.identifier).toBe('007');
    expect(v.listings[1]?.protocol_data.parameters.counter).toBe('7');
  });

  it('a JSON answer to a TOON request is still parsed as JSON', async () => {
    server.route('GET', '/x', { status: 200, body: { a: '1' } });
    await expect(t.request({ method: 'GET', path: '/x', format: 'toon' })).resolves.toEqual({ a: '1' });
  });

  it('a TOON error body still yields the server reasons', async () => {
    server.route('GET', '/x', toonResponse(encode({ errors: ['Collection not found'] }), 404));
    const e = await t.request({ method: 'GET', path: '/x', format: 'toon' }).catch((x: unknown) => x);
    expect(httpErrorInfo(e)?.reasons).toEqual(['Collection not found']);
  });

  it('a TOON decode failure is malformed_response without the body', async () => {
    const body = 'listings[3]{order_hash,chain}:\n  0xSECRETISHBODY,ethereum\n';
    server.route('GET', '/x', toonResponse(body));
    const e = await t.request({ method: 'GET', path: '/x', format: 'toon' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TransientError);
    expect(e).toMatchObject({ code: 'malformed_response', maybeProcessed: false });
    expect(JSON.stringify(e)).not.toContain('SECRETISHBODY');
    expect(inspect(e, { depth: 10 })).not.toContain('SECRETISHBODY');
    expect(server.requests.length).toBeGreaterThan(1); // a GET is retried
  });

  it('a bare TOON primitive where an object was expected is malformed', async () => {
    server.route('GET', '/x', toonResponse('<html>maintenance</html>'));
    await expect(t.request({ method: 'GET', path: '/x', format: 'toon' })).rejects.toMatchObject({
      code: 'malformed_response',
    });
  });

  it('a TOON decode failure on a 2xx POST reports maybeProcessed and is not resent', async () => {
    server.route('POST', '/api/v2/offers', toonResponse('offer[2]:\n  - a: 1\n'));
    const e = await t
      .request({ method: 'POST', path: '/api/v2/offers', body: {}, format: 'toon' })
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'malformed_response', maybeProcessed: true });
    expect(server.requests).toHaveLength(1);
  });
});

describe('decodeToon', () => {
  it('round-trips pseudo-random JSON values', () => {
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const scalars = [
      null,
      true,
      false,
      0,
      -1,
      3.25,
      '',
      '0',
      '1e3',
      'true',
      'null',
      '-',
      '- x',
      'a,b',
      'k: v',
      '[1]',
      '#',
    ];
    const gen = (depth: number): unknown => {
      const r = rnd();
      if (depth > 3 || r < 0.4) {
        const s = scalars[Math.floor(rnd() * scalars.length)];
        return rnd() < 0.3 ? String(Math.floor(rnd() * 1e18)) : s;
      }
      if (r < 0.7) {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < Math.floor(rnd() * 4); i++)
          o[`k${i}${rnd() < 0.2 ? '.dot' : ''}`] = gen(depth + 1);
        return o;
      }
      return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(depth + 1));
    };
    for (let i = 0; i < 300; i++) {
      const value = { root: gen(0) };
      expect(decodeToon(encode(value))).toStrictEqual(value);
    }
  });

  it('names the line of a failure, never the content', () => {
    try {
      decodeToon('a[3]: 1,2', { method: 'GET', path: '/p', status: 200 });
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({
        code: 'malformed_response',
        details: { format: 'toon', line: 1, path: '/p' },
      });
      expect((e as Error).message).toBe('malformed TOON response from GET /p (200)');
    }
  });

  it('recognizes the content type', () => {
    expect(isToonContentType('text/markdown; charset=utf-8')).toBe(true);
    expect(isToonContentType('TEXT/MARKDOWN')).toBe(true);
    expect(isToonContentType('application/json')).toBe(false);
    expect(isToonContentType(undefined)).toBe(false);
  });
});
