import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToon, isToonContentType } from '../../../../src/api/toon.ts';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { expectValidResponse, hasOperation, responseSchemaOf } from '../../../helpers/openapi.ts';
import { listOnBook, startSandbox } from '../data/helpers.ts';

/**
 * TOON against a whole sandbox: every GET endpoint of the API answers `Accept: text/markdown`
 * with `Content-Type: text/markdown; charset=utf-8` and a body that the client's decoder
 * (src/api/toon.ts, strict) turns into exactly the JSON answer — 200s and errors alike. The list
 * below must name every GET route of src/sandbox/server/routes (checked against their source), so
 * a new endpoint without a case fails here.
 */

let sb: Sandbox;
const APES = 'harpoon-apes';
let orderHash = '';

/** GET /api routes declared in the route modules (`method: 'GET'` followed by its pattern). */
function declaredGetRoutes(): string[] {
  const dir = join(import.meta.dirname, '../../../../src/sandbox/server/routes');
  const out: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const src = readFileSync(join(dir, f), 'utf8');
    for (const m of src.matchAll(/method: 'GET',\s*pattern: '(\/api\/[^']+)'/g)) out.push(m[1] as string);
  }
  return [...new Set(out)].sort();
}

beforeAll(async () => {
  sb = await startSandbox(13);
  // one listing in the book, so the order reads have something to show
  orderHash = await listOnBook(sb, sb.fixture.wallets[1] as Wallet, APES, 2n, 10n ** 17n);
}, 240_000);

afterAll(async () => {
  await sb?.close();
});

function cases(): [template: string, path: string][] {
  const w = (sb.fixture.wallets[1] as Wallet).address;
  const c = sb.catalog.bySlug(APES)?.contract as string;
  const usdc = sb.tokens.find((t) => t.symbol === 'USDC')?.address as string;
  const drop = sb.drops[0] as string;
  return [
    ['/api/v1/events', '/api/v1/events?limit=5'],
    ['/api/v2/account/{address}/tokens', `/api/v2/account/${w}/tokens`],
    ['/api/v2/accounts/resolve/{identifier}', '/api/v2/accounts/resolve/wallet-2'],
    ['/api/v2/accounts/{address_or_username}', '/api/v2/accounts/wallet-2'],
    // auth reads: public scope discovery; PATs need a SIWE session (401 without one, in TOON)
    ['/api/v2/auth/scopes', '/api/v2/auth/scopes'],
    ['/api/v2/auth/tokens', '/api/v2/auth/tokens'],
    ['/api/v2/chain/{chain}/account/{address}/nfts', `/api/v2/chain/ethereum/account/${w}/nfts?limit=3`],
    ['/api/v2/chain/{chain}/contract/{address}', `/api/v2/chain/ethereum/contract/${c}`],
    ['/api/v2/chain/{chain}/contract/{address}/nfts', `/api/v2/chain/ethereum/contract/${c}/nfts?limit=3`],
    [
      '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}',
      `/api/v2/chain/ethereum/contract/${c}/nfts/2`,
    ],
    ['/api/v2/chain/{chain}/payment_token/{address}', `/api/v2/chain/ethereum/payment_token/${sb.weth}`],
    ['/api/v2/chain/{chain}/token/{address}', `/api/v2/chain/ethereum/token/${usdc}`],
    ['/api/v2/chains', '/api/v2/chains'],
    ['/api/v2/collection/{slug}/nfts', `/api/v2/collection/${APES}/nfts?limit=3`],
    ['/api/v2/collections/top', '/api/v2/collections/top'],
    ['/api/v2/collections/trending', '/api/v2/collections/trending'],
    ['/api/v2/collections/{slug}', `/api/v2/collections/${APES}`],
    ['/api/v2/collections/{slug}/stats', `/api/v2/collections/${APES}/stats`],
    ['/api/v2/drops', '/api/v2/drops'],
    ['/api/v2/drops/{slug}', `/api/v2/drops/${drop}`],
    // a wallet endpoint: without a wallet JWT it is an error, which is TOON too
    ['/api/v2/drops/{slug}/eligibility', `/api/v2/drops/${drop}/eligibility?wallet=${w}`],
    ['/api/v2/events', '/api/v2/events?limit=5'],
    ['/api/v2/events/accounts/{address}', `/api/v2/events/accounts/${w}?limit=5`],
    [
      '/api/v2/events/chain/{chain}/contract/{address}/nfts/{identifier}',
      `/api/v2/events/chain/ethereum/contract/${c}/nfts/2`,
    ],
    ['/api/v2/events/collection/{slug}', `/api/v2/events/collection/${APES}?limit=5`],
    ['/api/v2/listings/collection/{slug}/all', `/api/v2/listings/collection/${APES}/all`],
    ['/api/v2/listings/collection/{slug}/best', `/api/v2/listings/collection/${APES}/best`],
    [
      '/api/v2/listings/collection/{slug}/nfts/{identifier}/best',
      `/api/v2/listings/collection/${APES}/nfts/2/best`,
    ],
    ['/api/v2/offers/collection/{slug}', `/api/v2/offers/collection/${APES}`],
    ['/api/v2/offers/collection/{slug}/all', `/api/v2/offers/collection/${APES}/all`],
    ['/api/v2/offers/collection/{slug}/nfts/{identifier}', `/api/v2/offers/collection/${APES}/nfts/2`],
    // no offer on the item: a 404, in TOON
    [
      '/api/v2/offers/collection/{slug}/nfts/{identifier}/best',
      `/api/v2/offers/collection/${APES}/nfts/2/best`,
    ],
    ['/api/v2/offers/collection/{slug}/traits', `/api/v2/offers/collection/${APES}/traits`],
    [
      '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}',
      `/api/v2/orders/chain/ethereum/protocol/${sb.seaport}/${orderHash}`,
    ],
    ['/api/v2/orders/{chain}/{protocol}/listings', '/api/v2/orders/ethereum/seaport/listings'],
    ['/api/v2/orders/{chain}/{protocol}/offers', '/api/v2/orders/ethereum/seaport/offers'],
    ['/api/v2/search', '/api/v2/search?query=harpoon&asset_types=collection,token,nft,account'],
    [
      '/api/v2/swap/quote',
      `/api/v2/swap/quote?from_chain=ethereum&from_address=${usdc}&to_chain=ethereum&to_address=0x0000000000000000000000000000000000000000&quantity=1000000&address=${w}`,
    ],
    ['/api/v2/tokens/top', '/api/v2/tokens/top'],
    ['/api/v2/tokens/trending', '/api/v2/tokens/trending'],
    ['/api/v2/traits/{slug}', `/api/v2/traits/${APES}`],
    ['/api/v2/traits/{slug}/floors', `/api/v2/traits/${APES}/floors`],
  ];
}

/** Whether the document gives a body schema for this answer (some give none, or no such status). */
function documented(template: string, status: number): boolean {
  if (!hasOperation('GET', template)) return false;
  try {
    return responseSchemaOf('GET', template, status) !== undefined;
  } catch {
    return false;
  }
}

async function fetchBoth(path: string, init: RequestInit = {}) {
  const headers = { 'X-API-KEY': sb.apiKey, ...(init.headers as Record<string, string>) };
  const json = await fetch(`${sb.apiUrl}${path}`, { ...init, headers });
  const toon = await fetch(`${sb.apiUrl}${path}`, {
    ...init,
    headers: { ...headers, Accept: 'text/markdown' },
  });
  return {
    json: { status: json.status, type: json.headers.get('content-type'), text: await json.text() },
    toon: { status: toon.status, type: toon.headers.get('content-type'), text: await toon.text() },
  };
}

describe('TOON (Accept: text/markdown)', () => {
  it('the cases name every GET route of the sandbox', () => {
    expect(
      cases()
        .map(([t]) => t)
        .sort(),
    ).toEqual(declaredGetRoutes());
  });

  it('every GET endpoint: the TOON body decodes to the JSON body', async () => {
    let answered200 = 0;
    for (const [template, path] of cases()) {
      const { json, toon } = await fetchBoth(path);
      const label = `${template} (${json.status})`;
      expect(json.type, label).toBe('application/json');
      expect(toon.type, label).toBe('text/markdown; charset=utf-8');
      expect(isToonContentType(toon.type), label).toBe(true);
      expect(toon.status, label).toBe(json.status);
      const value = JSON.parse(json.text) as unknown;
      expect(decodeToon(toon.text, { method: 'GET', path: template }), label).toEqual(value);
      if (json.status === 200) answered200++;
      if (documented(template, json.status)) expectValidResponse('GET', template, json.status, value);
    }
    // the deliberate errors (no wallet JWT, no SIWE session, no offer) aside, every case is a real answer
    expect(answered200).toBeGreaterThanOrEqual(cases().length - 3);
  });

  it('errors, POST answers and the 401 of a missing key are TOON too; without the header JSON', async () => {
    const bad = await fetchBoth('/api/v2/search?query=');
    expect(bad.toon.status).toBe(400);
    expect(decodeToon(bad.toon.text)).toEqual(JSON.parse(bad.json.text));
    const noKey = await fetch(`${sb.apiUrl}/api/v2/chains`, { headers: { Accept: 'text/markdown' } });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(decodeToon(await noKey.text())).toEqual({ errors: ['Invalid API key'] });
    const post = await fetchBoth('/api/v2/collections/batch', {
      method: 'POST',
      body: JSON.stringify({ slugs: [APES] }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(post.toon.status).toBe(200);
    expect(decodeToon(post.toon.text)).toEqual(JSON.parse(post.json.text));
    // JSON preferred by the header's order or q-values
    const preferJson = await fetch(`${sb.apiUrl}/api/v2/chains`, {
      headers: { 'X-API-KEY': sb.apiKey, Accept: 'application/json, text/markdown' },
    });
    expect(preferJson.headers.get('content-type')).toBe('application/json');
    const weighted = await fetch(`${sb.apiUrl}/api/v2/chains`, {
      headers: { 'X-API-KEY': sb.apiKey, Accept: 'application/json;q=0.5, text/markdown' },
    });
    expect(weighted.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
  });
});
