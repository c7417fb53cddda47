/**
 * The market view against the real sandbox: a lively simulated market (activity 4) feeds the view
 * through the real stream client (src/stream); REST is read only for the first load and for
 * re-learning (periodic refreshes are set far out). After the activity settles, the view's floor,
 * best listings, best collection offer and best trait offers equal what the sandbox's REST
 * endpoints say. Trait floors are then checked against the spec's rules with listings on other
 * marketplaces in other currencies (admin hook `/_sandbox/external-listings`).
 */
import type { Listing, Offer } from '@opensea/api-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiClient,
  createApiClient,
  createTransport,
  type HttpTransport,
} from '../../../src/api/index.ts';
import type { PaymentToken } from '../../../src/domain/events.ts';
import { type Address, ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { Secret } from '../../../src/domain/secret.ts';
import {
  createMarketView,
  displayToUnits,
  type MarketView,
  traitKey,
  unitsToDisplay,
} from '../../../src/market/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createScheduler } from '../../../src/ratelimit/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { createStreamClient, type StreamClient } from '../../../src/stream/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';

const HOUR = 3_600_000;
const FAR = 24 * HOUR;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
let api: ApiClient;
let transport: HttpTransport;
let view: MarketView;
let stream: StreamClient;
let slugs: string[];
let tokens: PaymentToken[];
let applied = 0;
/** Best listing and best collection offer of every collection right after the first load. */
let initial: Map<string, { listings: Map<string, string | null>; offer: string | null }>;
let liveStartedAt = 0;

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

async function allPages<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const lower = (s: string) => s.toLowerCase();
const nftKeyOf = (l: Listing) => {
  const w = l as unknown as { chain: string; asset: { contract: string; identifier: string } };
  return `${w.chain}/${lower(w.asset.contract)}/${w.asset.identifier}`;
};

beforeAll(async () => {
  sb = await createSandbox({
    seed: 23,
    activity: 4,
    limits: roomyLimits(1_000_000),
  });
  slugs = sb.collections.map((c) => c.slug);
  // the sandbox lists its ERC20s; native ETH is implied
  tokens = [
    { address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 },
    ...sb.tokens.map((t) => ({
      address: lower(t.address) as Address,
      symbol: t.symbol,
      decimals: t.decimals,
    })),
  ];
  // The book alone sets the floor during the live phase (other marketplaces come back later).
  await admin('DELETE', '/_sandbox/external-listings');
  const scheduler = createScheduler({ rates: roomyRates(1_000_000) });
  const apiKey = new Secret(sb.apiKey, 'api key');
  transport = createTransport({ baseUrl: sb.apiUrl, scheduler, credentials: { apiKey } });
  api = createApiClient(transport);
  view = createMarketView({
    api,
    clock: { now: () => Date.now() },
    logger: silentLogger(),
    collections: slugs,
    paymentTokens: tokens,
    readsPerHour: 1_000_000,
    relearnPerMinute: 600,
    staleAfterMs: 60_000,
    // Periodic refreshes far out: what the view knows after the first load comes from events
    // (and from re-learning the floor when its listing goes).
    refreshIntervals: {
      stats: FAR,
      traits: FAR,
      traitFloors: FAR,
      listings: FAR,
      collectionOffers: FAR,
      traitOffers: FAR,
    },
    maxPages: 20,
    streamFreshness: (slug) => stream.freshness(slug),
  });
  stream = createStreamClient({
    streamUrl: sb.streamUrl,
    apiKey,
    collections: slugs,
    api,
    logger: silentLogger(),
    heartbeatIntervalMs: 2_000,
  });
  stream.subscribe((e) => {
    applied++;
    view.apply(e);
  });
  stream.onFreshness((f) => view.setStreamStatus(f.key, { stale: f.stale }));
  stream.start();
  await view.start();
  await view.whenIdle();
  liveStartedAt = Date.now();
  initial = new Map(
    slugs.map((slug) => {
      const c = view.snapshot().collection(slug);
      return [
        slug,
        {
          listings: new Map([...(c?.bestListings ?? new Map())].map(([k, v]) => [k, v.value.orderHash])),
          offer: c?.bestCollectionOffer?.value.orderHash ?? null,
        },
      ];
    }),
  );
  // steady activity, fed to the view by the stream only
  await sleep(10_000);
  await sb.simulator?.stop();
  await sb.market.sync();
  await sleep(2_500); // last frames in, expired orders swept, re-learning done
  await view.whenIdle();
}, 180_000);

afterAll(async () => {
  await stream?.stop();
  await view?.stop();
  await transport?.close();
  await sb?.close();
});

describe('market view after steady activity (events only, no periodic REST)', () => {
  it('saw the activity through the stream', () => {
    expect(applied).toBeGreaterThan(10);
    const st = view.status();
    expect(st.collections.reduce((n, c) => n + c.eventsApplied, 0)).toBe(applied);
    // the periodic refreshes did not run again: one stats-less first load per kind at most, plus re-learning
    for (const c of st.collections) {
      expect(c.kinds.listings.nextDueAt ?? 0).toBeGreaterThan(Date.now() + HOUR);
      expect(c.kinds.listings.lastOkAt ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(liveStartedAt);
      expect(c.kinds.collectionOffers.lastOkAt ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(
        liveStartedAt,
      );
      expect(c.kinds.traitOffers.lastOkAt ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(liveStartedAt);
    }
  });

  it("the book moved during the live phase (so the equalities below are the events' work)", () => {
    let changed = 0;
    for (const slug of slugs) {
      const before = initial.get(slug);
      const c = view.snapshot().collection(slug);
      const now = new Map([...(c?.bestListings ?? new Map())].map(([k, v]) => [k, v.value.orderHash]));
      for (const k of new Set([...now.keys(), ...(before?.listings.keys() ?? [])])) {
        if (now.get(k) !== before?.listings.get(k)) changed++;
      }
      if ((c?.bestCollectionOffer?.value.orderHash ?? null) !== before?.offer) changed++;
    }
    expect(changed).toBeGreaterThan(3);
  });

  it('best listing per NFT equals GET /listings/collection/{slug}/best', async () => {
    let compared = 0;
    for (const slug of slugs) {
      const rest = await allPages(api.listings.iterateBest(slug, { limit: 100 }));
      const expected = new Map<string, string>();
      for (const l of rest) {
        const k = nftKeyOf(l);
        if (!expected.has(k)) expected.set(k, lower(l.order_hash as string));
      }
      const got = new Map(
        [...(view.snapshot().collection(slug)?.bestListings ?? new Map())].map(([k, v]) => [
          k,
          v.value.orderHash,
        ]),
      );
      expect(got, slug).toEqual(expected);
      compared += expected.size;
    }
    expect(compared).toBeGreaterThan(5);
  });

  it('the floor equals GET /collections/{slug}/stats (price and currency)', async () => {
    let listed = 0;
    for (const slug of slugs) {
      const stats = await api.collections.stats(slug);
      const c = view.snapshot().collection(slug);
      expect(c?.floorRelearning, slug).toBe(false);
      if (stats.total.floor_price === 0) {
        expect(c?.floor, slug).toBeNull();
        continue;
      }
      listed++;
      const f = c?.floor?.value;
      expect(f?.paymentToken.symbol, slug).toBe(stats.total.floor_price_symbol);
      expect(unitsToDisplay(f?.price ?? -1n, f?.paymentToken.decimals ?? 18), slug).toBe(
        stats.total.floor_price,
      );
    }
    expect(listed).toBeGreaterThan(0);
  });

  it('the best collection offer equals the first of GET /offers/collection/{slug}', async () => {
    let withOffers = 0;
    for (const slug of slugs) {
      const rest = await api.offers.collection(slug, { limit: 1 });
      const best = rest.offers[0];
      const got = view.snapshot().collection(slug)?.bestCollectionOffer;
      if (!best) {
        expect(got ?? null, slug).toBeNull();
        continue;
      }
      withOffers++;
      expect(got?.value.orderHash, slug).toBe(lower(best.order_hash as string));
    }
    expect(withOffers).toBeGreaterThan(0);
  });

  it('the best offer per trait equals GET /offers/collection/{slug}/traits (single text trait offers)', async () => {
    for (const slug of slugs) {
      const rest: Offer[] = await allPages(api.offers.iterateTraits(slug, { limit: 100 }));
      const expected = new Map<string, string>();
      for (const o of rest) {
        const cr = (
          o as unknown as {
            criteria?: { traits?: { type: string; value: string }[]; numeric_traits?: unknown[] };
          }
        ).criteria;
        const traits = cr?.traits ?? [];
        if (traits.length !== 1 || (cr?.numeric_traits ?? []).length > 0) continue;
        const t = traits[0] as { type: string; value: string };
        const k = traitKey(t.type, String(t.value));
        if (!expected.has(k)) expected.set(k, lower(o.order_hash as string));
      }
      const got = new Map(
        [...(view.snapshot().collection(slug)?.bestTraitOffers ?? new Map())].map(([k, v]) => [
          k,
          v.value.orderHash,
        ]),
      );
      expect(got, slug).toEqual(expected);
    }
  });

  it('is fresh: the stream kept every collection informed', () => {
    for (const slug of slugs) expect(view.snapshot().collection(slug)?.stale, slug).toBe(false);
  });
});

describe('trait floors as the spec says, with other marketplaces and currencies', () => {
  const slugOf = () => sb.collections.find((c) => c.standard === 'erc721')?.slug ?? (slugs[0] as string);

  function textTraits(slug: string, id: number): { type: string; value: string }[] {
    return sb.catalog
      .traits(slug, BigInt(id))
      .filter((t) => typeof t.value === 'string' && t.display_type === undefined)
      .map((t) => ({ type: t.trait_type, value: String(t.value) }));
  }

  it('equal GET /traits/{slug}/floors entry by entry: one per currency, text traits only, API order', async () => {
    const slug = slugOf();
    // token 1 listed elsewhere in USDC and in WETH: each of its text trait values gets one entry per currency
    await admin('POST', '/_sandbox/external-listings', {
      listings: [
        { collection: slug, token_id: '1', currency: 'USDC', amount: '1234500000', marketplace: 'blur' },
        { collection: slug, token_id: '1', currency: 'WETH', amount: '1000000000000', marketplace: 'blur' },
      ],
    });
    await view.refreshNow(slug, ['traits', 'traitFloors', 'stats']);
    const rest = await api.collections.traitFloors(slug);
    const c = view.snapshot().collection(slug);
    const got = (c?.traitFloors?.value ?? []).map((f) => [
      f.traitType,
      f.value,
      f.paymentToken.symbol,
      f.price,
    ]);
    expect(view.status().unknownSymbols).toEqual([]);
    const expected = rest.floors.map((f) => {
      const t = tokens.find((x) => x.symbol === f.payment_token_symbol);
      expect(t, `${f.payment_token_symbol} among ${tokens.map((x) => x.symbol).join()}`).toBeDefined();
      return [
        f.trait_type,
        f.value,
        f.payment_token_symbol,
        displayToUnits(f.floor_price, t?.decimals ?? 18),
      ];
    });
    expect(got).toEqual(expected);
    expect(got.length).toBeGreaterThan(0);
    // per currency: every text trait of token 1 has a USDC entry at that price
    for (const t of textTraits(slug, 1)) {
      const entries = c?.traitFloorsByTrait.get(traitKey(t.type, t.value)) ?? [];
      expect(entries.find((e) => e.paymentToken.symbol === 'USDC')?.price, `${t.type}=${t.value}`).toBe(
        1_234_500_000n,
      );
      expect(entries.filter((e) => e.paymentToken.symbol === 'USDC')).toHaveLength(1);
      expect(entries.some((e) => e.paymentToken.symbol === 'WETH')).toBe(true);
    }
    // numeric traits (number categories of GET /traits/{slug}) never appear
    const numeric = (c?.traits?.value ?? []).filter((t) => t.kind === 'number').map((t) => t.traitType);
    for (const f of c?.traitFloors?.value ?? []) expect(numeric).not.toContain(f.traitType);
    // ordered by trait type, then value (as the API orders them)
    const pairs = got.map((g) => `${g[0]}\u0000${g[1]}`);
    const firstSeen = pairs.filter((p, i) => pairs.indexOf(p) === i);
    for (let i = 1; i < pairs.length; i++) {
      if (pairs[i] !== pairs[i - 1])
        expect(firstSeen.indexOf(pairs[i] as string)).toBeGreaterThan(
          firstSeen.indexOf(pairs[i - 1] as string),
        );
    }
  });

  it('values without a listing are omitted: the USDC entries go when the USDC listing goes', async () => {
    const slug = slugOf();
    const listed = (await admin('GET', `/_sandbox/external-listings?collection=${slug}`)) as {
      listings: { id: string; payment_token_symbol: string }[];
    };
    for (const l of listed.listings) {
      if (l.payment_token_symbol === 'USDC') await admin('DELETE', `/_sandbox/external-listings/${l.id}`);
    }
    await view.refreshNow(slug, ['traitFloors']);
    const c = view.snapshot().collection(slug);
    expect((c?.traitFloors?.value ?? []).some((f) => f.paymentToken.symbol === 'USDC')).toBe(false);
    for (const t of textTraits(slug, 1)) {
      const entries = c?.traitFloorsByTrait.get(traitKey(t.type, t.value)) ?? [];
      expect(entries.some((e) => e.paymentToken.symbol === 'USDC')).toBe(false);
    }
    const rest = await api.collections.traitFloors(slug);
    expect(c?.traitFloors?.value.length).toBe(rest.floors.length);
  });

  it('a floor on another marketplace: the stats floor is below every fulfillable listing and has no order', async () => {
    const slug = slugOf();
    await admin('POST', '/_sandbox/external-listings', {
      collection: slug,
      token_id: '2',
      currency: 'ETH',
      amount: '1000',
      marketplace: 'blur',
    });
    await view.refreshNow(slug, ['stats', 'listings']);
    const stats = await api.collections.stats(slug);
    const c = view.snapshot().collection(slug);
    expect(c?.floor?.value.price).toBe(displayToUnits(stats.total.floor_price, 18));
    expect(c?.floor?.value.price).toBe(1000n);
    expect(c?.floor?.value.orderHash).toBeNull();
    for (const l of c?.bestListings.values() ?? []) expect(l.value.price).toBeGreaterThan(1000n);
  });
});
