/**
 * The README's API coverage table, computed (issue 12 proof): how many operations of the official
 * OpenAPI document (`@opensea/api-types/opensea-api.json`, 145) and of the spec's endpoint list
 * (shared/spec/marketplace-api.md "Endpoints" and "Events", 47) the sandbox serves and the client
 * has, and which document operations the sandbox does not serve.
 *
 * - Served by the sandbox = its router takes the request: every operation is sent (placeholders for
 *   the path parameters) to a real sandbox server built in process, with a key; an answer other
 *   than the router's own `404 Not found: <METHOD> <path>` or `405` counts (a handler's 400, 401,
 *   503 … means a route exists).
 * - In the client = a method of `createApiClient` sends it: every method is called (the list below
 *   must name each of them) through the recording fake transport, and its request is matched to
 *   the document's and the spec's path templates.
 * The README's numbers and its list of what is not served must equal these, so the table cannot
 * go stale.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/client.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { EventLog } from '../../../src/sandbox/events/log.ts';
import { createSandboxServer, type SandboxServer } from '../../../src/sandbox/server/index.ts';
import { RecordingTransport } from '../fakes/transport.ts';
import { seaportRequest, siweVerifyRequest } from './samples.ts';

interface Endpoint {
  readonly method: string;
  readonly template: string;
  /** The document's operationId / the spec's section. */
  readonly name: string;
  readonly group: string;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const require = createRequire(import.meta.url);

function documentOperations(): Endpoint[] {
  const doc = JSON.parse(readFileSync(require.resolve('@opensea/api-types/opensea-api.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string; tags?: string[] }>>;
  };
  const out: Endpoint[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      if (!HTTP_METHODS.includes(m)) continue;
      out.push({
        method: m.toUpperCase(),
        template,
        name: op.operationId,
        group: op.tags?.[0] ?? 'untagged',
      });
    }
  }
  return out;
}

/**
 * The spec's endpoint list, transcribed (the spec is not in this repository): every row of the
 * "Endpoints" tables (the batch row names three paths), the seven collection-based replacement
 * queries, and the two event endpoints of "Events". Two rows give no path: the collection metadata
 * refresh (here the client's default and the sandbox's, `/api/v2/collections/{slug}/refresh`,
 * which the document lacks) and the trait floor prices (the document's `/api/v2/traits/{slug}/floors`).
 */
const SPEC: readonly Endpoint[] = (
  [
    ['Orders', 'GET /api/v2/orders/{chain}/{protocol}/offers'],
    ['Orders', 'POST /api/v2/orders/{chain}/{protocol}/offers'],
    ['Orders', 'GET /api/v2/orders/{chain}/{protocol}/listings'],
    ['Orders', 'POST /api/v2/orders/{chain}/{protocol}/listings'],
    ['Orders', 'POST /api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel'],
    ['Orders', 'GET /api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}'],
    ['Orders', 'POST /api/v2/offers'],
    ['Orders', 'POST /api/v2/offers/build'],
    ['Orders', 'POST /api/v2/offers/fulfillment_data'],
    ['Orders', 'POST /api/v2/listings/fulfillment_data'],
    ['Orders', 'GET /api/v2/offers/collection/{slug}/nfts/{identifier}'],
    ['Orders', 'GET /api/v2/offers/collection/{slug}/all'],
    ['Orders', 'GET /api/v2/offers/collection/{slug}'],
    ['Orders', 'GET /api/v2/offers/collection/{slug}/traits'],
    ['Orders', 'GET /api/v2/listings/collection/{slug}/all'],
    ['Orders', 'GET /api/v2/listings/collection/{slug}/best'],
    ['Orders', 'GET /api/v2/listings/collection/{slug}/nfts/{identifier}/best'],
    ['Drops', 'POST /api/v2/drops/{slug}/mint'],
    ['Drops', 'GET /api/v2/drops/{slug}/eligibility'],
    ['NFT metadata', 'POST /api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/validate-metadata'],
    ['NFT metadata', 'POST /api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/refresh'],
    ['Collections', 'GET /api/v2/traits/{slug}'],
    ['Collections', 'POST /api/v2/collections/{slug}/refresh'],
    ['Collections', 'GET /api/v2/traits/{slug}/floors'],
    ['Collections', 'GET /api/v2/collections/{slug}'],
    ['Collections', 'GET /api/v2/collections/{slug}/stats'],
    ['Collections', 'PATCH /api/v2/collections/{slug}'],
    ['Collections', 'PATCH /api/v2/collections/{slug}/metadata'],
    ['Collections', 'POST /api/v2/collections/batch'],
    ['Collections', 'POST /api/v2/nfts/batch'],
    ['Collections', 'POST /api/v2/tokens/batch'],
    ['Tokens', 'GET /api/v2/tokens/trending'],
    ['Tokens', 'GET /api/v2/tokens/top'],
    ['Tokens', 'GET /api/v2/swap/quote'],
    ['Tokens', 'GET /api/v2/search'],
    ['Auth', 'POST /api/v2/auth/keys'],
    ['Auth', 'POST /api/v2/auth/siwe/nonce'],
    ['Auth', 'POST /api/v2/auth/siwe/verify'],
    ['Auth', 'POST /api/v2/auth/session/refresh'],
    ['Auth', 'GET /api/v2/auth/tokens'],
    ['Auth', 'POST /api/v2/auth/tokens'],
    ['Auth', 'POST /api/v2/auth/tokens/{id}/rotate'],
    ['Auth', 'DELETE /api/v2/auth/tokens/{id}'],
    ['Auth', 'POST /api/v2/auth/tokens/exchange'],
    ['Auth', 'GET /api/v2/auth/scopes'],
    ['Events', 'GET /api/v2/events'],
    ['Events', 'GET /api/v1/events/'],
  ] as const
).map(([group, row]) => {
  const [method = '', template = ''] = row.split(' ');
  return { method, template, name: row, group };
});

/** `GET /api/v2/collections/{}`: the same endpoint whatever its parameters are called. */
const keyOf = (method: string, template: string) =>
  `${method} ${template.replace(/\{[^}]+\}/g, '{}').replace(/\/$/, '')}`;

/**
 * The template a concrete request path belongs to: segments equal or a parameter, a literal
 * segment preferred over a parameter at the same position (as both routers do).
 */
function templateOf(method: string, path: string, endpoints: readonly Endpoint[]): string | undefined {
  const segs = path.split('/').filter((s) => s !== '');
  let best: { key: string; score: number[] } | undefined;
  for (const e of endpoints) {
    if (e.method !== method) continue;
    const t = e.template.split('/').filter((s) => s !== '');
    if (t.length !== segs.length) continue;
    if (!t.every((s, i) => s.startsWith('{') || s === segs[i])) continue;
    const score = t.map((s) => (s.startsWith('{') ? 0 : 1));
    const better = !best || score.join('') > best.score.join('');
    if (better) best = { key: keyOf(e.method, e.template), score };
  }
  return best?.key;
}

// --- the sandbox ------------------------------------------------------------------------------

let server: SandboxServer;
let url = '';

beforeAll(async () => {
  const big = { capacity: 1_000_000, windowMs: 3_600_000 };
  server = createSandboxServer({
    events: new EventLog(),
    keys: [{ apiKey: 'coverage-key', account: 'coverage' }],
    limits: { read: big, write: big, fulfillment: big },
  });
  url = await server.listen();
});

afterAll(async () => {
  await server?.close();
});

/** True when the sandbox's router has a route for the endpoint (whatever the handler answers). */
async function served(e: Endpoint): Promise<boolean> {
  let i = 0;
  const path = e.template.replace(/\{[^}]+\}/g, () => `p${i++}`);
  const res = await fetch(`${url}${path}`, {
    method: e.method,
    headers: { 'X-API-KEY': 'coverage-key', 'Content-Type': 'application/json' },
    ...(e.method === 'GET' ? {} : { body: '{}' }),
  });
  const text = await res.text();
  if (res.status === 405) return false;
  return !(res.status === 404 && text.includes(`Not found: ${e.method} ${path}`));
}

async function servedKeys(endpoints: readonly Endpoint[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const e of endpoints) if (await served(e)) out.add(keyOf(e.method, e.template));
  return out;
}

// --- the client -------------------------------------------------------------------------------

const A = '0x1111111111111111111111111111111111111111';
const HASH = `0x${'ab'.repeat(32)}`;
const SLUG = 'cool-cats';
const seaportBody = seaportRequest(A, A);

type Calls = { readonly [G in keyof ApiClient]: Record<string, (api: ApiClient) => Promise<unknown>> };

/**
 * One call per method of the client (its `iterate*` twins page the same path as the method they
 * iterate, and are left out). A method missing here fails the test below.
 */
const CALLS: Calls = {
  chains: { list: (api) => api.chains.list() },
  accounts: {
    get: (api) => api.accounts.get(A),
    resolve: (api) => api.accounts.resolve('vitalik.eth'),
  },
  collections: {
    get: (api) => api.collections.get(SLUG),
    stats: (api) => api.collections.stats(SLUG),
    traits: (api) => api.collections.traits(SLUG),
    traitFloors: (api) => api.collections.traitFloors(SLUG),
    batch: (api) => api.collections.batch([SLUG]),
    update: (api) => api.collections.update(SLUG, { name: 'x' }),
    updateMetadata: (api) => api.collections.updateMetadata(SLUG, { logo_image_token: 't' }),
    refreshMetadata: (api) => api.collections.refreshMetadata(SLUG),
  },
  nfts: {
    get: (api) => api.nfts.get('ethereum', A, '1'),
    byCollection: (api) => api.nfts.byCollection(SLUG),
    byContract: (api) => api.nfts.byContract('ethereum', A),
    byAccount: (api) => api.nfts.byAccount('ethereum', A),
    validateMetadata: (api) => api.nfts.validateMetadata('ethereum', A, '1'),
    refreshMetadata: (api) => api.nfts.refreshMetadata('ethereum', A, '1'),
    batch: (api) => api.nfts.batch([{ chain: 'ethereum', contract_address: A, token_id: '1' }]),
  },
  contracts: {
    get: (api) => api.contracts.get('ethereum', A),
    paymentToken: (api) => api.contracts.paymentToken('ethereum', A),
  },
  tokens: {
    trending: (api) => api.tokens.trending(),
    top: (api) => api.tokens.top(),
    get: (api) => api.tokens.get('ethereum', A),
    balances: (api) => api.tokens.balances(A),
    batch: (api) => api.tokens.batch([{ chain: 'ethereum', address: A }]),
  },
  search: { query: (api) => api.search.query({ query: 'apes' }) },
  listings: {
    create: (api) => api.listings.create('ethereum', seaportBody),
    best: (api) => api.listings.best(SLUG),
    all: (api) => api.listings.all(SLUG),
    bestForNft: (api) => api.listings.bestForNft(SLUG, '1'),
    fulfillmentData: (api) =>
      api.listings.fulfillmentData({
        listing: { hash: HASH, chain: 'ethereum', protocol_address: A },
        fulfiller: { address: A },
      }),
    legacyList: (api) => api.listings.legacyList('ethereum'),
  },
  offers: {
    build: (api) =>
      api.offers.build({
        offerer: A,
        quantity: 1,
        criteria: { collection: { slug: SLUG } },
        protocol_address: A,
        offer_protection_enabled: true,
      }),
    createCriteria: (api) =>
      api.offers.createCriteria({
        protocol_data: { parameters: seaportBody.parameters, signature: '0xsig' },
        criteria: { collection: { slug: SLUG } },
        protocol_address: A,
      }),
    create: (api) => api.offers.create('ethereum', seaportBody),
    collection: (api) => api.offers.collection(SLUG),
    traits: (api) => api.offers.traits(SLUG, { type: 'Background', value: 'Red' }),
    item: (api) => api.offers.item(SLUG, '1'),
    all: (api) => api.offers.all(SLUG),
    bestForNft: (api) => api.offers.bestForNft(SLUG, '1'),
    fulfillmentData: (api) =>
      api.offers.fulfillmentData({
        offer: { hash: HASH, chain: 'ethereum', protocol_address: A },
        fulfiller: { address: A },
        consideration: { asset_contract_address: A, token_id: '1' },
      }),
    legacyList: (api) => api.offers.legacyList('ethereum'),
  },
  orders: {
    get: (api) => api.orders.get('ethereum', A, HASH),
    cancel: (api) => api.orders.cancel('ethereum', A, HASH),
    cancelWithWallet: (api) => api.orders.cancelWithWallet('ethereum', A, HASH),
  },
  swap: {
    quote: (api) =>
      api.swap.quote({
        from_chain: 'ethereum',
        from_address: A,
        to_chain: 'ethereum',
        to_address: A,
        quantity: 1n,
        address: A,
      }),
  },
  drops: {
    list: (api) => api.drops.list(),
    get: (api) => api.drops.get(SLUG),
    eligibility: (api) => api.drops.eligibility(SLUG),
    mint: (api) => api.drops.mint(SLUG, { minter: A, quantity: 1 }),
  },
  events: {
    list: (api) => api.events.list(),
    byCollection: (api) => api.events.byCollection(SLUG),
    byNft: (api) => api.events.byNft('ethereum', A, '1'),
    byAccount: (api) => api.events.byAccount(A),
    legacyList: (api) => api.events.legacyList(),
  },
  auth: {
    createInstantKey: (api) => api.auth.createInstantKey(),
    siweNonce: (api) => api.auth.siweNonce(),
    siweVerify: (api) => api.auth.siweVerify(siweVerifyRequest(A)),
    refreshSession: (api) => api.auth.refreshSession(),
    listTokens: (api) => api.auth.listTokens(),
    createToken: (api) => api.auth.createToken({ label: 'l', scopes: ['write:orders'], expiresInDays: 1 }),
    rotateToken: (api) => api.auth.rotateToken('pat_1'),
    revokeToken: (api) => api.auth.revokeToken('pat_1'),
    exchange: (api) => api.auth.exchange(new Secret('pat_0123456789', 'pat')),
    scopes: (api) => api.auth.scopes(),
  },
};

/** Every request the client's methods send, as `METHOD template` keys of `endpoints`. */
async function clientKeys(endpoints: readonly Endpoint[]): Promise<{ keys: Set<string>; unknown: string[] }> {
  const transport = new RecordingTransport().otherwise({ data: {} });
  const api = createApiClient(transport);
  for (const group of Object.values(CALLS)) {
    for (const [name, call] of Object.entries(group)) {
      const before = transport.calls.length;
      // The answer `{}` does not fit every method; only the request matters here.
      await call(api).catch(() => undefined);
      if (transport.calls.length === before) throw new Error(`${name}: no request was sent`);
    }
  }
  const keys = new Set<string>();
  const unknown: string[] = [];
  for (const spec of transport.calls) {
    const k = templateOf(spec.method, spec.path, endpoints);
    if (k === undefined) unknown.push(`${spec.method} ${spec.path}`);
    else keys.add(k);
  }
  return { keys, unknown };
}

// --- the README ---------------------------------------------------------------------------------

const README = readFileSync(join(import.meta.dirname, '../../../README.md'), 'utf8');

/** The numbers of the README row that starts with `label`: [total, served, in the client]. */
function readmeRow(label: string): number[] {
  const line = README.split('\n').find((l) => l.startsWith(`| ${label}`));
  if (!line) return []; // no row: the comparison below fails and shows the computed numbers
  return line
    .split('|')
    .slice(2, 5)
    .map((c) => Number(c.trim().replace(/\*/g, '')));
}

const NOT_SERVED = /<!-- not-served:start -->([\s\S]*?)<!-- not-served:end -->/.exec(README)?.[1] ?? '';

/** Each group of the README's not-served list: the count it states and the operationIds it names. */
function readmeGroups(): { stated: number; named: number }[] {
  return NOT_SERVED.split(/\n(?=- \*\*)/)
    .filter((b) => b.trim() !== '')
    .map((b) => ({
      stated: Number(/^- \*\*[^*]+\*\* \((\d+)\)/.exec(b.trim())?.[1]),
      named: [...b.matchAll(/`([a-z0-9_]+)`/g)].length,
    }));
}

/** The operationIds listed between the README's not-served markers. */
function readmeNotServed(): string[] {
  return [...NOT_SERVED.matchAll(/`([a-z0-9_]+)`/g)].map((x) => x[1] as string).sort();
}

describe('API coverage', () => {
  const doc = documentOperations();
  const all = [...doc, ...SPEC];

  it('the document has 145 operations and the spec lists 47 endpoints', () => {
    expect(doc).toHaveLength(145);
    expect(new Set(doc.map((e) => keyOf(e.method, e.template))).size).toBe(145);
    expect(SPEC).toHaveLength(47);
    expect(new Set(SPEC.map((e) => keyOf(e.method, e.template))).size).toBe(47);
  });

  it('every method of the client is called above', () => {
    const api = createApiClient(new RecordingTransport());
    for (const [group, methods] of Object.entries(api)) {
      const names = Object.keys(methods as object).filter((n) => !n.startsWith('iterate'));
      expect(Object.keys(CALLS[group as keyof ApiClient] ?? {}).sort(), group).toEqual(names.sort());
    }
  });

  it('the probe tells a route from none (a served read, an unknown path, a wrong method)', async () => {
    expect(await served({ method: 'GET', template: '/api/v2/collections/{slug}', name: '', group: '' })).toBe(
      true,
    );
    expect(await served({ method: 'GET', template: '/api/v2/no-such-thing', name: '', group: '' })).toBe(
      false,
    );
    expect(
      await served({ method: 'DELETE', template: '/api/v2/collections/{slug}', name: '', group: '' }),
    ).toBe(false);
  });

  it('the README table holds the computed numbers and the list of what is not served', async () => {
    const docKeys = new Set(doc.map((e) => keyOf(e.method, e.template)));
    const specKeys = new Set(SPEC.map((e) => keyOf(e.method, e.template)));
    const sandbox = await servedKeys(all);
    const client = await clientKeys(all);
    // every request of the client is an endpoint of the document or of the spec
    expect(client.unknown).toEqual([]);
    const count = (keys: Set<string>, of: Set<string>) => [...keys].filter((k) => of.has(k)).length;
    const computed = {
      document: [145, count(sandbox, docKeys), count(client.keys, docKeys)],
      spec: [47, count(sandbox, specKeys), count(client.keys, specKeys)],
    };
    const notServed = doc.filter((e) => !sandbox.has(keyOf(e.method, e.template)));
    const notServedSpec = SPEC.filter((e) => !sandbox.has(keyOf(e.method, e.template))).map((e) => e.name);
    const byGroup: Record<string, string[]> = {};
    for (const e of notServed) {
      const list = byGroup[e.group] ?? [];
      list.push(e.name);
      byGroup[e.group] = list;
    }
    // the report, to rewrite the README table from when an endpoint is added
    const shown = JSON.stringify({ ...computed, notServedSpec, notServedByGroup: byGroup }, null, 1);
    expect(readmeRow('the official document'), shown).toEqual(computed.document);
    expect(readmeRow('the spec'), shown).toEqual(computed.spec);
    expect(readmeNotServed(), shown).toEqual(notServed.map((e) => e.name).sort());
    // each group's stated count is what it names, and the heading's total is the whole list
    for (const g of readmeGroups()) expect(g.stated).toBe(g.named);
    expect(README).toContain(`Not served by the sandbox (${notServed.length} operations of the document`);
  });
});
