import { getAddress } from 'ethers';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeToon } from '../../../../src/api/toon.ts';
import { EventLog } from '../../../../src/sandbox/events/log.ts';
import { createSandboxServer, type SandboxServer } from '../../../../src/sandbox/server/index.ts';
import { acceptsToon } from '../../../../src/sandbox/server/toon.ts';

/**
 * The new read routes on a server without a chain or catalog: fixed words (`trending`, `top`,
 * `batch`) are routes of their own, never a `{slug}`; batch reads take from the read bucket; the
 * Accept negotiation of TOON.
 */

const HOUR = 3_600_000;
let server: SandboxServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(read = 100, write = 100) {
  server = createSandboxServer({
    events: new EventLog(),
    keys: [{ apiKey: 'k', account: 'acct' }],
    limits: {
      read: { capacity: read, windowMs: HOUR },
      write: { capacity: write, windowMs: HOUR },
      fulfillment: { capacity: 5, windowMs: HOUR },
    },
  });
  const url = await server.listen();
  return (method: string, path: string, body?: unknown, accept?: string) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        'X-API-KEY': 'k',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(accept !== undefined ? { Accept: accept } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
}

describe('fixed words beside {slug}', () => {
  it.each(['/api/v2/collections/trending', '/api/v2/collections/top'])(
    'GET %s is the list, not a collection lookup',
    async (path) => {
      const call = await start();
      const r = await call('GET', path);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ collections: [] });
    },
  );

  it('GET /collections/batch is 405 (POST only); a slug beside it is a lookup (404 here)', async () => {
    const call = await start();
    const r = await call('GET', '/api/v2/collections/batch');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    const slug = await call('GET', '/api/v2/collections/some-slug');
    expect(slug.status).toBe(404);
    expect(((await slug.json()) as { errors: string[] }).errors[0]).toMatch(
      /Collection 'some-slug' not found/,
    );
    expect((await call('POST', '/api/v2/collections/batch', { slugs: ['x'] })).status).toBe(200);
  });

  it('GET /accounts/resolve/{id} is not the account named "resolve"', async () => {
    const call = await start();
    const r = await call('GET', '/api/v2/accounts/resolve/0x00000000000000000000000000000000000000aa');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ address: getAddress('0x00000000000000000000000000000000000000aa') });
  });
});

describe('rate limits', () => {
  it('batch reads take from the read bucket, not the write bucket', async () => {
    const call = await start(3, 1);
    for (const path of ['/api/v2/collections/batch', '/api/v2/nfts/batch', '/api/v2/tokens/batch']) {
      const r = await call('POST', path, {});
      expect(r.status, path).toBe(400); // metered first, then refused for the empty body
    }
    const fourth = await call('POST', '/api/v2/collections/batch', { slugs: ['x'] });
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).not.toBeNull();
    // the write bucket is untouched
    const write = await call('PATCH', '/api/v2/collections/x', {});
    expect(write.status).not.toBe(429);
  });

  it('the new GET routes are metered like every read', async () => {
    const call = await start(2);
    expect((await call('GET', '/api/v2/tokens/top')).status).toBe(200);
    const second = await call('GET', '/api/v2/search?query=a');
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await call('GET', '/api/v2/collections/trending')).status).toBe(429);
  });
});

describe('TOON negotiation', () => {
  it.each([
    [undefined, false],
    ['application/json', false],
    ['text/markdown', true],
    ['Text/Markdown; charset=utf-8', true],
    ['text/markdown, application/json', true],
    ['application/json, text/markdown', false],
    ['application/json;q=0.5, text/markdown', true],
    ['text/markdown;q=0', false],
    ['*/*, text/markdown', false],
    ['text/markdown;q=0.9, */*;q=0.8', true],
  ] as const)('Accept %s → TOON %s', (accept, toon) => {
    expect(acceptsToon(accept)).toBe(toon);
  });

  it('the answer and its errors decode to the JSON body; only /api answers are TOON', async () => {
    const call = await start();
    const json = await (await call('GET', '/api/v2/tokens/top?limit=0')).json();
    const toon = await call('GET', '/api/v2/tokens/top?limit=0', undefined, 'text/markdown');
    expect(toon.status).toBe(400);
    expect(toon.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(decodeToon(await toon.text())).toEqual(json);
    const ok = await call('GET', '/api/v2/collections/top', undefined, 'text/markdown');
    expect(decodeToon(await ok.text())).toEqual({ collections: [] });
  });
});
