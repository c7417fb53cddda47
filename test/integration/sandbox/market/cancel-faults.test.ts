import type { Listing, Offer } from '@opensea/api-types';
import { Contract, MaxUint256, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { OrderType, SEAPORT_ABI, type WireParameters } from '../../../../src/sandbox/market/seaport.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import {
  approveNft,
  ETH,
  erc20,
  fundWeth,
  listingParameters,
  type MarketHarness,
  mintedOwner,
  nft,
  offerParameters,
  sign,
  signCancel,
} from './helpers.ts';

/**
 * The cancel faults on the real sandbox (anvil + Seaport 1.6, activity 0: no simulator running):
 * refused cancels leave the order ACTIVE, a timeout is never answered, and an accepted cancel with
 * a signature window answers a future `last_signature_issued_valid_until` while a trader (fixture
 * wallets 3+) holding a real zone authorization fills the order on chain inside the window — the
 * order ends FULFILLED with a sale, although the API said CANCELLED first.
 */

const WALLETS = 6; // 0–2: the user, the daemon, tests; 3–5: traders
let sb: Sandbox;
let h: MarketHarness;
let user: Wallet;

beforeAll(async () => {
  sb = await createSandbox({ seed: 11, wallets: WALLETS });
  h = {
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
  user = sb.fixture.wallets[1] as Wallet;
  await fundWeth(h, user, 5n * ETH, MaxUint256);
  for (const slug of ['harpoon-apes', 'harpoon-punks']) await approveNft(h, user, slug);
}, 300_000);
afterAll(async () => {
  await sb?.close();
});

const traders = () => sb.fixture.wallets.slice(3).map((w) => w.address.toLowerCase());
const lc = (a: unknown) => String(a).toLowerCase();
const orderPath = (hash: string) => `/api/v2/orders/chain/ethereum/protocol/${sb.seaport}/${hash}`;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers: {
      'X-API-KEY': sb.apiKey,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text === '' ? undefined : JSON.parse(text)) as Record<string, unknown>,
  };
}

const setFaults = async (cancel: Record<string, unknown>) => {
  await call('POST', '/_sandbox/reset-faults');
  const r = await call('POST', '/_sandbox/faults', { cancel });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};

const cancelBody = async (hash: string) => ({ offererSignature: await signCancel(h, user, hash) });

const statusOf = async (hash: string) =>
  ((await call('GET', orderPath(hash))).body['order'] as { status: string }).status;

const cancelCounts = async () =>
  ((await call('GET', '/_sandbox/stats')).body['faultCounts'] as { cancel: Record<string, number> }).cancel;

/** A zone-protected item offer of the user for `tokenId`. */
async function itemOffer(slug: string, tokenId: bigint, price = ETH / 20n): Promise<Offer> {
  const parameters = await offerParameters(h, user, { slug, tokenId, price });
  const r = await call('POST', '/api/v2/orders/ethereum/seaport/offers', {
    parameters,
    signature: await sign(h, user, parameters),
    protocol_address: sb.seaport,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as unknown as Offer;
}

/** A collection offer of the user (build → sign → post); a trait offer with `traits`. */
async function collectionOffer(
  slug: string,
  price = ETH / 20n,
  traits?: { type: string; value: string }[],
): Promise<Offer> {
  const b = (
    await call('POST', '/api/v2/offers/build', {
      offerer: user.address,
      quantity: 1,
      criteria: { collection: { slug }, ...(traits ? { traits } : {}) },
      protocol_address: sb.seaport,
      offer_protection_enabled: true,
    })
  ).body as {
    partialParameters: { consideration: Record<string, unknown>[]; zone: string };
    criteria: unknown;
  };
  const { recipient: _r, ...nftItem } = b.partialParameters.consideration[0] as {
    recipient: string;
  } & WireParameters['offer'][number];
  const parameters = await offerParameters(h, user, {
    slug,
    price,
    nftItem,
    zone: b.partialParameters.zone,
  });
  const r = await call('POST', '/api/v2/offers', {
    protocol_data: { parameters, signature: await sign(h, user, parameters) },
    criteria: b.criteria,
    protocol_address: sb.seaport,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as unknown as Offer;
}

/** A zone-protected ETH listing of the user's token `tokenId`. */
async function zonedListing(slug: string, tokenId: bigint, price = ETH / 10n): Promise<Listing> {
  const parameters = await listingParameters(h, user, {
    slug,
    tokenId,
    price,
    orderType: OrderType.FULL_RESTRICTED,
    zone: sb.zone,
  });
  const r = await call('POST', '/api/v2/orders/ethereum/seaport/listings', {
    parameters,
    signature: await sign(h, user, parameters),
    protocol_address: sb.seaport,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as unknown as Listing;
}

/** ERC721 ids of `slug` the fixture minted to a trader. */
const traderTokens = (slug: string) =>
  Array.from({ length: h.coll(slug).supply }, (_, i) => BigInt(i + 1)).filter((id) =>
    traders().includes(mintedOwner(h, id).address.toLowerCase()),
  );
/** ERC721 ids of `slug` the fixture minted to the user. */
const userTokens = (slug: string) =>
  Array.from({ length: h.coll(slug).supply }, (_, i) => BigInt(i + 1)).filter(
    (id) => mintedOwner(h, id) === user,
  );

async function waitForFulfilled(hash: string): Promise<void> {
  await expect.poll(() => statusOf(hash), { timeout: 30_000, interval: 250 }).toBe('FULFILLED');
}

describe('refused cancels', () => {
  it.each([400, 403, 500] as const)(
    'refuseStatus %i answers it and the order stays ACTIVE',
    async (status) => {
      const id = traderTokens('harpoon-apes')[status === 400 ? 0 : status === 403 ? 1 : 2] as bigint;
      const o = await itemOffer('harpoon-apes', id);
      const hash = o.order_hash as string;
      await setFaults({ refuseRate: 1, refuseStatus: status });
      const before = await cancelCounts();
      const r = await call('POST', `${orderPath(hash)}/cancel`, await cancelBody(hash));
      expect(r.status).toBe(status);
      expect(r.body).toEqual({ errors: [expect.any(String)] });
      if (status === 400) expect((r.body['errors'] as string[])[0]).toMatch(/apiKey is not from offerer/);
      expect(await statusOf(hash)).toBe('ACTIVE');
      expect(sb.events.all().some((e) => e.kind === 'cancel' && e.orderHash === hash)).toBe(false);
      const after = await cancelCounts();
      expect(after['refused']).toBe((before['refused'] ?? 0) + 1);
      // faults off: the cancel goes through
      await call('POST', '/_sandbox/reset-faults');
      expect((await call('POST', `${orderPath(hash)}/cancel`, await cancelBody(hash))).status).toBe(200);
      expect(await statusOf(hash)).toBe('CANCELLED');
    },
  );

  it('timeout: the cancel is not answered within a 2 s client timeout and the order stays ACTIVE', async () => {
    const o = await itemOffer('harpoon-apes', traderTokens('harpoon-apes')[3] as bigint);
    const hash = o.order_hash as string;
    await setFaults({ refuseRate: 1, refuseStatus: 'timeout' });
    const t0 = Date.now();
    const err = await fetch(`${sb.apiUrl}${orderPath(hash)}/cancel`, {
      method: 'POST',
      headers: { 'X-API-KEY': sb.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(await cancelBody(hash)),
      signal: AbortSignal.timeout(2000),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error | undefined)?.name).toBe('TimeoutError');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
    await call('POST', '/_sandbox/reset-faults');
    expect(await statusOf(hash)).toBe('ACTIVE');
  });
});

describe('accepted cancels with a signature window', () => {
  it('item offer: a future valid_until, CANCELLED for the API, then a trader fill settles on chain (FULFILLED, sale)', async () => {
    const id = traderTokens('harpoon-apes')[4] as bigint;
    const seller = mintedOwner(h, id);
    const o = await itemOffer('harpoon-apes', id);
    const hash = o.order_hash as string;
    const wethBefore = (await erc20(h).getFunction('balanceOf')(user.address)) as bigint;
    await setFaults({ signatureWindowSec: 60, fillInWindowRate: 1 });
    const before = await cancelCounts();
    const t0 = Date.now();
    const r = await call('POST', `${orderPath(hash)}/cancel`, await cancelBody(hash));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expectValidResponse(
      'POST',
      '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel',
      200,
      r.body,
    );
    const until = Date.parse(r.body['last_signature_issued_valid_until'] as string);
    expect(until).toBeGreaterThan(t0 + 50_000);
    expect(until).toBeLessThan(t0 + 70_000);
    expect(await statusOf(hash)).toBe('CANCELLED'); // the trader's fill follows about 1 s later
    // accepted off-chain: the API said CANCELLED (a cancel event), and the chain then filled it
    expect(sb.events.all().some((e) => e.kind === 'cancel' && e.orderHash === hash)).toBe(true);
    await waitForFulfilled(hash);
    expect(Date.now()).toBeLessThan(until);
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(id)).toBe(user.address);
    expect(wethBefore - ((await erc20(h).getFunction('balanceOf')(user.address)) as bigint)).toBe(ETH / 20n);
    const kinds = sb.events
      .all()
      .filter((e) => e.orderHash === hash)
      .map((e) => e.kind);
    expect(kinds).toEqual(['item_offer', 'cancel', 'sale']);
    const sale = sb.events.all().find((e) => e.kind === 'sale' && e.orderHash === hash);
    expect([lc(sale?.seller), lc(sale?.buyer)]).toEqual([lc(seller.address), lc(user.address)]);
    // REST events show the sale as item_sold
    const ev = await call('GET', `/api/v2/events/collection/harpoon-apes?event_type=sale&limit=50`);
    expect(ev.status).toBe(200);
    expect(
      (ev.body['asset_events'] as { event_type: string; order_hash?: string }[]).some(
        (e) => e.order_hash === hash && e.event_type === 'sale',
      ),
    ).toBe(true);
    // the trader's side counts its fill once its own receipt is in (it may trail the watcher's sale)
    let after = await cancelCounts();
    for (let i = 0; i < 100 && after['filledInWindow'] === (before['filledInWindow'] ?? 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await cancelCounts();
    }
    expect(after['windowed']).toBe((before['windowed'] ?? 0) + 1);
    expect(after['filledInWindow']).toBe((before['filledInWindow'] ?? 0) + 1);
  });

  it('collection offer: a trader accepts it with a token it owns inside the window', async () => {
    const o = await collectionOffer('harpoon-punks');
    const hash = o.order_hash as string;
    await setFaults({ signatureWindowSec: 30, fillInWindowRate: 1 });
    const r = await call('POST', `${orderPath(hash)}/cancel`, await cancelBody(hash));
    expect(r.status).toBe(200);
    expect(Date.parse(r.body['last_signature_issued_valid_until'] as string)).toBeGreaterThan(
      Date.now() + 20_000,
    );
    await waitForFulfilled(hash);
    const sale = sb.events.all().find((e) => e.kind === 'sale' && e.orderHash === hash);
    expect(lc(sale?.buyer)).toBe(lc(user.address));
    expect(traders()).toContain(lc(sale?.seller));
    const id = BigInt(sale?.nft?.identifier as string);
    expect(await nft(h, 'harpoon-punks').getFunction('ownerOf')(id)).toBe(user.address);
  });

  it('trait offer: a trader accepts it with a token of that trait it owns', async () => {
    const id = traderTokens('harpoon-apes').at(-1) as bigint;
    const trait = sb.catalog.traits('harpoon-apes', id)[0] as { trait_type: string; value: unknown };
    const traits = [{ type: trait.trait_type, value: String(trait.value) }];
    const o = await collectionOffer('harpoon-apes', ETH / 50n, traits);
    const hash = o.order_hash as string;
    await setFaults({ signatureWindowSec: 30, fillInWindowRate: 1 });
    expect((await call('POST', `${orderPath(hash)}/cancel`, await cancelBody(hash))).status).toBe(200);
    await waitForFulfilled(hash);
    const sale = sb.events.all().find((e) => e.kind === 'sale' && e.orderHash === hash);
    expect(traders()).toContain(lc(sale?.seller));
    const got = BigInt(sale?.nft?.identifier as string);
    expect(sb.catalog.matches('harpoon-apes', got, traits)).toBe(true);
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(got)).toBe(user.address);
  });

  it('listing: a trader buys it inside the window', async () => {
    const id = userTokens('harpoon-apes')[0] as bigint;
    const l = await zonedListing('harpoon-apes', id);
    const hash = l.order_hash as string;
    await setFaults({ signatureWindowSec: 30, fillInWindowRate: 1 });
    const r = await call('POST', `${orderPath(hash)}/cancel`, await cancelBody(hash));
    expect(r.status).toBe(200);
    await waitForFulfilled(hash);
    const owner = (await nft(h, 'harpoon-apes').getFunction('ownerOf')(id)) as string;
    expect(traders()).toContain(lc(owner));
    const sale = sb.events.all().find((e) => e.kind === 'sale' && e.orderHash === hash);
    expect([lc(sale?.seller), lc(sale?.buyer)]).toEqual([lc(user.address), lc(owner)]);
  });

  it('without a fill the order stays CANCELLED; the answer still carries the window', async () => {
    const o = await itemOffer('harpoon-apes', traderTokens('harpoon-apes')[5] as bigint);
    const hash = o.order_hash as string;
    await setFaults({ signatureWindowSec: 20, fillInWindowRate: 0 });
    const r = await call('POST', `${orderPath(hash)}/cancel`, await cancelBody(hash));
    expect(r.status).toBe(200);
    expect(Date.parse(r.body['last_signature_issued_valid_until'] as string)).toBeGreaterThan(
      Date.now() + 10_000,
    );
    await new Promise((res) => setTimeout(res, 2000));
    await sb.market.sync();
    expect(await statusOf(hash)).toBe('CANCELLED');
    expect(sb.events.all().some((e) => e.kind === 'sale' && e.orderHash === hash)).toBe(false);
    // fulfillment data is refused after the cancel, as on the real service
    const f = await call('POST', '/api/v2/offers/fulfillment_data', {
      offer: { hash, chain: 'ethereum', protocol_address: sb.seaport },
      fulfiller: { address: sb.fixture.wallets[3]?.address },
    });
    expect(f.status).toBe(400);
    await call('POST', '/_sandbox/reset-faults');
  });
});
