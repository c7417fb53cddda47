import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../../../src/sandbox/events/log.ts';
import type { StreamControl } from '../../../../src/sandbox/server/index.ts';
import { SAMPLE_EVENTS, sampleCatalog } from '../../../unit/sandbox/server/sample.ts';
import { FakeMarket } from './fake-market.ts';
import { type Harness, startHarness } from './harness.ts';

const KEY = 'admin-key';
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

class FakeStream implements StreamControl {
  readonly log: unknown[] = [];
  readonly faults = {
    configure: (s: object) => void this.log.push(['configure', s]),
    reset: () => void this.log.push(['reset']),
    dropAll: () => {
      this.log.push(['dropAll']);
      return 2;
    },
    stall: (ms: number) => {
      this.log.push(['stall', ms]);
      return 3;
    },
  };
}

describe('GET /metadata/{slug}/{tokenId} (what tokenURI points at; no key)', () => {
  it('serves ERC721 metadata JSON from the catalog', async () => {
    const catalog = sampleCatalog();
    h = await startHarness({ catalog });
    const r = await h.call('GET', '/metadata/harpoon-apes/3');
    expect(r.status).toBe(200);
    const traits = catalog.traits('harpoon-apes', 3n);
    expect(r.body).toEqual({
      name: 'Harpoon Apes #3',
      description: catalog.bySlug('harpoon-apes')?.description,
      image: `${h.url}/metadata/harpoon-apes/3/image.svg`,
      attributes: traits.map((t) =>
        t.display_type
          ? { trait_type: t.trait_type, value: t.value, display_type: 'number' }
          : { trait_type: t.trait_type, value: t.value },
      ),
    });
    expect(traits.some((t) => t.display_type === 'number')).toBe(true);
    const img = await h.call('GET', '/metadata/harpoon-apes/3/image.svg');
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/svg+xml');
    expect(img.text).toMatch(/^<svg /);
    // ERC1155 {id} substitution: 64 hex digits
    const hex = await h.call('GET', `/metadata/harpoon-items/${'0'.repeat(63)}2`);
    expect((hex.body as { name: string }).name).toBe('Harpoon Items #2');
    // a metadata update shows up
    catalog.setTrait('harpoon-apes', 3n, 'Hat', 'Crown');
    const after = await h.call('GET', '/metadata/harpoon-apes/3');
    expect(
      (after.body as { attributes: { trait_type: string; value: unknown }[] }).attributes,
    ).toContainEqual({
      trait_type: 'Hat',
      value: 'Crown',
    });
  });

  it('404 for an unknown collection or a token outside 1..supply; 400 for a malformed id', async () => {
    h = await startHarness({ catalog: sampleCatalog() });
    for (const p of ['/metadata/nope/1', '/metadata/harpoon-apes/0', '/metadata/harpoon-apes/61']) {
      const r = await h.call('GET', p);
      expect(r.status, p).toBe(404);
      expect(r.body).toEqual({ errors: [expect.any(String)] });
    }
    expect((await h.call('GET', '/metadata/harpoon-apes/abc')).status).toBe(400);
  });
});

describe('/_sandbox admin surface', () => {
  it('stats: requests and 429s per group, unauthorized, keys, events per type, market counters', async () => {
    const events = new EventLog();
    events.append(SAMPLE_EVENTS.listing);
    events.append(SAMPLE_EVENTS.sale);
    events.append(SAMPLE_EVENTS.sale);
    const market = new FakeMarket();
    h = await startHarness({
      events,
      market,
      keys: [{ apiKey: KEY, account: 'a' }],
      limits: {
        read: { capacity: 2, windowMs: 60_000 },
        write: { capacity: 5, windowMs: 60_000 },
        fulfillment: { capacity: 5, windowMs: 60_000 },
      },
    });
    for (let i = 0; i < 3; i++) await h.call('GET', '/api/v2/events', { key: KEY });
    await h.call('POST', '/api/v2/offers/build', { key: KEY, body: {} });
    await h.call('GET', '/api/v2/events');
    await h.call('POST', '/api/v2/auth/keys');
    const r = await h.call('GET', '/_sandbox/stats');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      requests: {
        read: { requests: 3, throttled: 1 },
        write: { requests: 1, throttled: 0 },
        fulfillment: { requests: 0, throttled: 0 },
      },
      unauthorized: 1,
      keys: { issued: 1, refused: 0 },
      events: { total: 3, byType: { listing: 1, sale: 2 } },
      market: { orders: 0, active: 0, fills: 3, cancels: 1 },
      faults: { errorRate: 0 },
      streamAttached: false,
      stream: null,
    });
    // the admin surface is neither metered nor keyed
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('faults: GET shows, POST merges and forwards (tamper → market, stream → stream server), reset clears', async () => {
    const market = new FakeMarket();
    const stream = new FakeStream();
    h = await startHarness({ market, stream, keys: [{ apiKey: KEY, account: 'a' }] });
    const initial = await h.call('GET', '/_sandbox/faults');
    expect(initial.body).toEqual({
      latencyMs: 0,
      errorRate: 0,
      rateLimitRate: 0,
      keysDisabled: false,
      tamper: 'none',
      stream: { duplicateRate: 0, reorderWindow: 0, malformedRate: 0 },
      cancel: { refuseRate: 0, refuseStatus: 400, signatureWindowSec: 0, fillInWindowRate: 0 },
    });
    const set = await h.call('POST', '/_sandbox/faults', {
      body: {
        tamper: 'recipient',
        stream: { duplicateRate: 0.5, reorderWindow: 3, drop: true, stallMs: 1500 },
      },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      tamper: 'recipient',
      stream: { duplicateRate: 0.5, reorderWindow: 3, malformedRate: 0 },
      streamActions: { dropped: 2, stalled: 3 },
    });
    expect(market.tamper).toBe('recipient');
    expect(stream.log).toEqual([
      ['configure', { duplicateRate: 0.5, reorderWindow: 3 }],
      ['dropAll'],
      ['stall', 1500],
    ]);
    await h.call('POST', '/_sandbox/faults', { body: { latencyMs: 5 } });
    expect((await h.call('GET', '/_sandbox/faults')).body).toMatchObject({
      latencyMs: 5,
      tamper: 'recipient',
    });
    const reset = await h.call('POST', '/_sandbox/reset-faults');
    expect(reset.body).toEqual(initial.body);
    expect(market.tamper).toBe('none');
    expect(stream.log.at(-1)).toEqual(['reset']);
  });

  it('faults: bad bodies are 400; stream faults without a stream server are 409 and change nothing', async () => {
    h = await startHarness({});
    expect((await h.call('POST', '/_sandbox/faults', { body: { errorRate: 2 } })).status).toBe(400);
    expect((await h.call('POST', '/_sandbox/faults', { rawBody: '{oops' })).status).toBe(400);
    const r = await h.call('POST', '/_sandbox/faults', { body: { errorRate: 0.5, stream: { drop: true } } });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ errors: [expect.stringMatching(/stream/)] });
    expect((await h.call('GET', '/_sandbox/faults')).body).toMatchObject({ errorRate: 0 });
    expect((await h.call('POST', '/_sandbox/faults', { body: { tamper: 'value' } })).status).toBe(409);
  });

  it('errorRate 1 → 500 {"errors"} on /api (metered first); metadata and admin are unaffected', async () => {
    h = await startHarness({ catalog: sampleCatalog(), keys: [{ apiKey: KEY, account: 'a' }] });
    await h.call('POST', '/_sandbox/faults', { body: { errorRate: 1 } });
    const r = await h.call('GET', '/api/v2/events', { key: KEY });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ errors: [expect.stringMatching(/Internal server error/)] });
    expect(r.headers.get('x-ratelimit-remaining')).toBe('599');
    expect((await h.call('GET', '/metadata/harpoon-apes/1')).status).toBe(200);
    expect((await h.call('GET', '/_sandbox/stats')).body).toMatchObject({ injectedErrors: 1 });
  });

  it('rateLimitRate 1 → 429 with Retry-After and headers, counted as throttled, no token taken', async () => {
    h = await startHarness({ keys: [{ apiKey: KEY, account: 'a' }] });
    await h.call('POST', '/_sandbox/faults', { body: { rateLimitRate: 1 } });
    const r = await h.call('GET', '/api/v2/events', { key: KEY });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('600');
    expect(h.server.stats().requests.read).toEqual({ requests: 1, throttled: 1 });
    await h.call('POST', '/_sandbox/reset-faults');
    expect((await h.call('GET', '/api/v2/events', { key: KEY })).status).toBe(200);
  });

  it('latencyMs delays /api answers', async () => {
    h = await startHarness({ keys: [{ apiKey: KEY, account: 'a' }] });
    await h.call('POST', '/_sandbox/faults', { body: { latencyMs: 150 } });
    const t0 = performance.now();
    await h.call('GET', '/api/v2/events', { key: KEY });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(145);
    const t1 = performance.now();
    await h.call('GET', '/_sandbox/faults');
    expect(performance.now() - t1).toBeLessThan(145);
  });

  it('is not under /api, and answers only loopback peers', async () => {
    h = await startHarness({ keys: [{ apiKey: KEY, account: 'a' }] });
    expect((await h.call('GET', '/api/_sandbox/stats', { key: KEY })).status).toBe(404);
    // a request from another machine (the listener sees the peer address)
    const sent: { status?: number; body?: string } = {};
    const res = {
      writableEnded: false,
      statusCode: 200,
      headers: {} as Record<string, string>,
      setHeader(k: string, v: string) {
        this.headers[k] = v;
      },
      end(b: Buffer) {
        sent.status = this.statusCode;
        sent.body = b.toString();
        this.writableEnded = true;
      },
    };
    const req = {
      method: 'GET',
      url: '/_sandbox/stats',
      headers: {},
      socket: { remoteAddress: '10.1.2.3' },
      resume() {},
    };
    h.server.handle(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    await new Promise((r) => setTimeout(r, 20));
    expect(sent.status).toBe(403);
    expect(JSON.parse(sent.body ?? '{}')).toEqual({ errors: [expect.stringMatching(/local/)] });
  });
});
