/**
 * Shared setup of the market-data, swap and drop integration tests: a whole sandbox
 * (`createSandbox`, quiet market, generous rate limits) and a small HTTP client.
 */
import { Contract, type Wallet } from 'ethers';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { SEAPORT_ABI } from '../../../../src/sandbox/market/seaport.ts';
import { roomyLimits } from '../../limits.ts';
import { approveNft, listingParameters, type MarketHarness, sign } from '../market/helpers.ts';

export async function startSandbox(seed = 7): Promise<Sandbox> {
  return createSandbox({
    seed,
    wallets: 5,
    activity: 0,
    limits: roomyLimits(),
  });
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** One request; `key` null = no key (admin routes). Bodies are parsed as JSON. */
export async function call(
  sb: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  key: string | null = sb.apiKey,
): Promise<Answer> {
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers: {
      ...(key !== null ? { 'X-API-KEY': key } : {}),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

export const obj = (a: Answer): Record<string, unknown> => a.body as Record<string, unknown>;

/** The market test helpers' harness over a sandbox (to sign and post orders like a client). */
export function harnessOf(sb: Sandbox): MarketHarness {
  return {
    fx: sb.fixture,
    catalog: sb.catalog,
    events: sb.events,
    market: sb.market,
    seaport: new Contract(sb.seaport, SEAPORT_ABI as unknown as string[], sb.fixture.provider),
    weth: sb.weth,
    zone: sb.zone,
    coll(slug) {
      const c = sb.catalog.bySlug(slug);
      if (!c) throw new Error(`no collection ${slug}`);
      return c;
    },
    stop: () => sb.close(),
  };
}

/** The value at a dotted path of a JSON body (`nft.owners.0.address`); undefined when absent. */
export function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const k of path.split('.')) {
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined;
  }
  return cur;
}

/** The array of objects at a dotted path. */
export const rows = (v: unknown, path: string): Record<string, unknown>[] =>
  (at(v, path) ?? []) as Record<string, unknown>[];

/** Lists `tokenId` of `slug` for `price` wei of ETH from its owner `seller` (approving the conduit); the order hash. */
export async function listOnBook(
  sb: Sandbox,
  seller: Wallet,
  slug: string,
  tokenId: bigint,
  price: bigint,
): Promise<string> {
  const h = harnessOf(sb);
  await approveNft(h, seller, slug);
  const parameters = await listingParameters(h, seller, { slug, tokenId, price, currency: 'ETH' });
  const r = await call(sb, 'POST', '/api/v2/orders/ethereum/seaport/listings', {
    parameters,
    signature: await sign(h, seller, parameters),
    protocol_address: sb.seaport,
  });
  if (r.status !== 200) throw new Error(`listing refused: ${JSON.stringify(r.body)}`);
  return String(obj(r)['order_hash']);
}

/** The first token (ids 1..40, after `after`) of `slug` that `owner` holds on chain; 0n when none. */
export async function ownedTokenId(sb: Sandbox, slug: string, owner: string, after = 0n): Promise<bigint> {
  const contract = sb.catalog.bySlug(slug)?.contract;
  if (contract === undefined) throw new Error(`no collection ${slug}`);
  const nft = new Contract(
    contract,
    ['function ownerOf(uint256) view returns (address)'],
    sb.fixture.provider,
  );
  for (let id = after + 1n; id <= 40n; id++)
    if (((await nft.getFunction('ownerOf')(id)) as string).toLowerCase() === owner.toLowerCase()) return id;
  return 0n;
}

/** The owner (the sandbox's own key edits every collection) sets `slug`'s creator fees; the answer. */
export async function setCreatorFees(
  sb: Sandbox,
  slug: string,
  fees: readonly { address: string; basis_points: number }[],
): Promise<Answer> {
  return call(sb, 'PATCH', `/api/v2/collections/${slug}`, { creator_fees: fees });
}
