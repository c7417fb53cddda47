/**
 * The simulator's market without a chain or a network: the same dice (action `n` draws from the
 * PRNG of (seed, n); the same action weights, listing and offer price factors, buy and accept
 * limits) played on an in-memory book of the sandbox's collections, in virtual time, written as a
 * tape — normalized events as the stream client would hand them over, and the REST answers the
 * market view would read (stats, traits, trait floors, best listings, collection and trait
 * offers) every `restEveryMs`. Hours of a busy market in seconds, the same bytes for the same seed:
 * what tests and CI backtest on.
 *
 *   await writeSandboxTape({ out: 'day.tape', seed: 7, hours: 24 });
 *
 * The floor drifts (a seeded random walk of the reference price, a few percent an hour) so that
 * strategies see a moving market; traders are the fixture's wallets 3..9 by address only.
 */
import { createHash } from 'node:crypto';
import type { ChainName } from '../../domain/chains.ts';
import type {
  CollectionOfferEvent,
  ListingEvent,
  MarketEvent,
  NftRef,
  PaymentToken,
  SaleEvent,
  TraitOfferEvent,
} from '../../domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../../domain/ids.ts';
import type { DropStatus } from '../../strategy.ts';
import { TAPE_VERSION, type TapeHeader } from '../../tape/format.ts';
import { openTapeWriter } from '../../tape/writer.ts';
import { COLLECTION_SPECS, type CollectionSpec, MARKETPLACE_FEE_PERCENT } from '../catalog/catalog.ts';
import { hashString, prng, traitsFor } from '../catalog/traits.ts';
import {
  ACCEPT_LIMIT,
  BUY_LIMIT,
  DEFAULT_ACTIVITY,
  DEFAULT_FLOORS,
  DEFAULT_UNDERPRICED_SHARE,
} from './index.ts';
import {
  type ActionWeights,
  actionRng,
  between,
  chooseKind,
  DEFAULT_WEIGHTS,
  listingPriceFactor,
  offerPriceFactor,
  pick,
  type Rng,
  scalePrice,
} from './plan.ts';

export const TAPE_WETH: PaymentToken = Object.freeze({
  address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as Address,
  symbol: 'WETH',
  decimals: 18,
});
export const TAPE_ETH: PaymentToken = Object.freeze({
  address: '0x0000000000000000000000000000000000000000' as Address,
  symbol: 'ETH',
  decimals: 18,
});
/**
 * An ERC-20 of the sandbox's tapes besides ETH and WETH (the sandbox's HRP test token, at an
 * address of the tapes' own): its price is on the tape every 12 s, a slow walk from 0.001 ETH, as
 * a daemon's prices view would have read it from a swap router, so a backtest's rebalancer can
 * trade it.
 */
export const TAPE_HRP: PaymentToken = Object.freeze({
  address: '0xe4331b9f32f8717411313e308fbb94c8fbf8d2f6' as Address,
  symbol: 'HRP',
  decimals: 18,
});
const TAPE_HRP_START = 10n ** 15n;

/**
 * The drop of the sandbox's tapes (the sandbox's harpoon-genesis, its public stage): upcoming for
 * the first 5 minutes, then open at 0.01 ETH, 5 a wallet, 500 tokens that the market's mints take
 * (about 155 an hour) until it is sold out. Its status is on the tape every 12 s, as a daemon's
 * drops view would have read it.
 */
export const TAPE_DROP = Object.freeze({
  slug: 'harpoon-genesis',
  pricePerToken: 10n ** 16n,
  maxPerWallet: 5,
  supply: 500n,
  opensAfterMs: 5 * 60_000,
});

/** The day the sandbox tapes start on by default (UTC midnight), so timestamps are the same everywhere. */
export const TAPE_EPOCH = Date.UTC(2026, 0, 1);

export interface SandboxTapeOptions {
  readonly out: string;
  readonly seed?: number;
  /** Length of market to write (hours; fractions allowed). */
  readonly hours: number;
  /** Actions per second. Default the simulator's (3). */
  readonly activity?: number;
  /** Collections (of the sandbox's ERC-721 ones). Default harpoon-apes and harpoon-punks. */
  readonly collections?: readonly string[];
  readonly startAt?: number;
  /** REST answers of the book every this often per collection (ms). Default 60 000. */
  readonly restEveryMs?: number;
  readonly underpricedShare?: number;
  readonly weights?: Partial<ActionWeights>;
  /** Traders (addresses). Default 7 (the fixture's wallets 3..9). */
  readonly traders?: number;
  /**
   * Told once per hour of market written: its time, the events written so far, and the market's
   * window being written (`startAt` to the end asked for).
   */
  readonly onProgress?: (at: number, events: number, window: { from: number; to: number }) => void;
  /**
   * Stops the writing (a Ctrl-C) at the next hour of market: the tape is closed whole up to there
   * (`interrupted`, `endAt` where it stopped). The process's events get a turn once an hour of
   * market: without one a signal could not be heard until the whole tape was written.
   */
  readonly signal?: AbortSignal;
}

export interface SandboxTapeResult {
  readonly events: number;
  readonly records: number;
  readonly bytes: number;
  readonly startAt: number;
  /** The end of the market written: as asked, or where a signal stopped it. */
  readonly endAt: number;
  /** Stopped by the signal before the end asked for. */
  readonly interrupted: boolean;
}

interface Order {
  readonly hash: OrderHash;
  readonly maker: Address;
  readonly price: bigint;
  readonly token: PaymentToken;
  readonly createdAt: number;
  readonly expiresAt: number;
}
interface ListingOrder extends Order {
  readonly tokenId: number;
}
interface CriteriaOrder extends Order {
  readonly trait: { readonly type: string; readonly value: string } | null;
}

interface Book {
  readonly spec: CollectionSpec;
  readonly slug: CollectionSlug;
  readonly contract: Address;
  readonly traits: readonly { type: string; value: string | number }[][];
  readonly owner: Address[];
  readonly listings: Map<number, ListingOrder>;
  readonly offers: Map<OrderHash, CriteriaOrder>;
  floor: bigint;
}

const hex = (s: string, bytes: number) =>
  createHash('sha256')
    .update(s)
    .digest('hex')
    .slice(0, bytes * 2);
const address = (s: string) => `0x${hex(s, 20)}` as Address;
const display = (wei: bigint) => Number(wei) / 1e18;

export async function writeSandboxTape(o: SandboxTapeOptions): Promise<SandboxTapeResult> {
  const seed = o.seed ?? 1;
  const activity = o.activity ?? DEFAULT_ACTIVITY;
  if (!(o.hours > 0) || !Number.isFinite(o.hours)) throw new RangeError(`hours must be > 0, got ${o.hours}`);
  if (!(activity > 0) || !Number.isFinite(activity))
    throw new RangeError(`activity must be > 0, got ${activity}`);
  const startAt = o.startAt ?? TAPE_EPOCH;
  const endAt = startAt + Math.round(o.hours * 3_600_000);
  const restEveryMs = o.restEveryMs ?? 60_000;
  const share = o.underpricedShare ?? DEFAULT_UNDERPRICED_SHARE;
  const weights: ActionWeights = { ...DEFAULT_WEIGHTS, ...o.weights };
  const slugs = o.collections ?? ['harpoon-apes', 'harpoon-punks'];
  const traders = Array.from({ length: o.traders ?? 7 }, (_, i) =>
    address(`harpoon-sandbox-trader:${i + 3}`),
  );
  const chain: ChainName = 'ethereum';

  const books: Book[] = slugs.map((slug) => {
    const spec = COLLECTION_SPECS.find((s) => s.slug === slug);
    if (spec === undefined || spec.standard !== 'erc721')
      throw new RangeError(
        `'${slug}' is not an ERC-721 collection of the sandbox (${COLLECTION_SPECS.filter(
          (s) => s.standard === 'erc721',
        )
          .map((s) => s.slug)
          .join(', ')})`,
      );
    const r = prng(hashString(`${seed}:tape:owners:${slug}`));
    return {
      spec,
      slug: slug as CollectionSlug,
      contract: address(`harpoon-sandbox-collection:${slug}`),
      traits: Array.from({ length: spec.supply + 1 }, (_, id) =>
        id === 0
          ? []
          : traitsFor(spec.traits, seed, slug, BigInt(id)).map((t) => ({
              type: t.trait_type,
              value: t.value,
            })),
      ),
      owner: Array.from({ length: spec.supply + 1 }, () => traders[pick(r, traders.length)] as Address),
      listings: new Map(),
      offers: new Map(),
      floor: DEFAULT_FLOORS[slug] ?? 10n ** 16n,
    };
  });

  const header: TapeHeader = {
    k: 'header',
    at: startAt,
    version: TAPE_VERSION,
    source: 'sandbox',
    chain,
    collections: [...slugs],
    paymentTokens: [TAPE_ETH, TAPE_WETH, TAPE_HRP],
    meta: { seed, hours: o.hours, activity },
  };
  // a new tape, never a continued one (a file there is replaced; the CLI refuses one that is not empty)
  const w = openTapeWriter(o.out, {
    header,
    replace: true,
    flushMs: 0,
    sync: false,
    maxBlockBytes: 512 * 1024,
    level: 1,
  });
  let events = 0;
  let seq = 0;
  const emit = (e: MarketEvent) => {
    events++;
    w.write({ k: 'event', at: e.receivedAt, event: e });
  };
  const nftOf = (b: Book, id: number): NftRef => ({
    chain,
    contract: b.contract,
    identifier: String(id) as TokenId,
  });
  const base = (b: Book, at: number, id: string) => ({
    id,
    collection: b.slug,
    chain,
    occurredAt: at,
    receivedAt: at,
    source: 'stream' as const,
  });
  const newHash = (n: number, what: string) => `0x${hex(`${seed}:${n}:${what}:${seq++}`, 32)}` as OrderHash;

  // fees, traits of every NFT, a gas price
  for (const b of books) {
    w.write({
      k: 'fees',
      at: startAt,
      slug: b.slug,
      fees: [
        { fee: MARKETPLACE_FEE_PERCENT, recipient: address('harpoon-sandbox-marketplace'), required: true },
        ...(b.spec.royaltyPercent > 0
          ? [{ fee: b.spec.royaltyPercent, recipient: address(`creator:${b.slug}`), required: true }]
          : []),
      ],
    });
    for (let id = 1; id <= b.spec.supply; id++)
      w.write({
        k: 'traits',
        at: startAt,
        nft: `${chain}/${b.contract}/${id}`,
        traits: (b.traits[id] ?? []).map((t) => ({ type: t.type, value: String(t.value) })),
      });
  }

  function list(b: Book, rng: Rng, at: number, n: number): void {
    const id = 1 + pick(rng, b.spec.supply);
    const maker = b.owner[id] as Address;
    const { factor } = listingPriceFactor(rng, share);
    const price = scalePrice(b.floor, factor);
    const hours = between(rng, 1, 24);
    const old = b.listings.get(id);
    if (old !== undefined)
      emit({
        ...base(b, at, `cancel:${old.hash}`),
        kind: 'cancel',
        orderHash: old.hash,
        nft: nftOf(b, id),
        txHash: null,
      });
    const order: ListingOrder = {
      hash: newHash(n, 'list'),
      maker,
      price,
      token: TAPE_ETH,
      createdAt: at,
      expiresAt: at + Math.round(hours * 3_600_000),
      tokenId: id,
    };
    b.listings.set(id, order);
    const e: ListingEvent = {
      ...base(b, at, `listing:${order.hash}`),
      kind: 'listing',
      orderHash: order.hash,
      maker,
      taker: null,
      quantity: 1n,
      price,
      paymentToken: TAPE_ETH,
      expiresAt: order.expiresAt,
      nft: nftOf(b, id),
      isPrivate: false,
    };
    emit(e);
  }

  function offer(b: Book, rng: Rng, at: number, n: number, kind: 'collection_offer' | 'trait_offer'): void {
    const maker = traders[pick(rng, traders.length)] as Address;
    const price = scalePrice(b.floor, offerPriceFactor(rng, kind));
    const hours = between(rng, 1, 12);
    let trait: CriteriaOrder['trait'] = null;
    if (kind === 'trait_offer') {
      const types = Object.keys(b.spec.traits.text);
      const type = types[pick(rng, types.length)] as string;
      const values = b.spec.traits.text[type] ?? [];
      trait = { type, value: (values[pick(rng, values.length)] as readonly [string, number])[0] };
    }
    // a maker keeps a bounded number of offers: its oldest goes
    const mine = [...b.offers.values()].filter((x) => x.maker === maker);
    if (mine.length >= 12) {
      const oldest = mine[0] as CriteriaOrder;
      b.offers.delete(oldest.hash);
      emit({
        ...base(b, at, `cancel:${oldest.hash}`),
        kind: 'cancel',
        orderHash: oldest.hash,
        nft: null,
        txHash: null,
      });
    }
    const order: CriteriaOrder = {
      hash: newHash(n, kind),
      maker,
      price,
      token: TAPE_WETH,
      createdAt: at,
      expiresAt: at + Math.round(hours * 3_600_000),
      trait,
    };
    b.offers.set(order.hash, order);
    const common = {
      orderHash: order.hash,
      maker,
      taker: null,
      quantity: 1n,
      price,
      paymentToken: TAPE_WETH,
      expiresAt: order.expiresAt,
    };
    if (trait === null) {
      const e: CollectionOfferEvent = {
        ...base(b, at, `collection_offer:${order.hash}`),
        kind: 'collection_offer',
        ...common,
      };
      emit(e);
    } else {
      const e: TraitOfferEvent = {
        ...base(b, at, `trait_offer:${order.hash}`),
        kind: 'trait_offer',
        ...common,
        traits: [{ type: trait.type, value: trait.value }],
      };
      emit(e);
    }
  }

  function sale(
    b: Book,
    at: number,
    id: number,
    orderHash: OrderHash,
    seller: Address,
    buyer: Address,
    price: bigint,
    token: PaymentToken,
  ): void {
    const tx = `0x${hex(`${seed}:tx:${orderHash}`, 32)}`;
    const e: SaleEvent = {
      ...base(b, at, `sale:${tx}:${id}`),
      kind: 'sale',
      nft: nftOf(b, id),
      orderHash,
      txHash: tx,
      seller,
      buyer,
      quantity: 1n,
      price,
      paymentToken: token,
    };
    emit(e);
    b.owner[id] = buyer;
    const l = b.listings.get(id);
    if (l !== undefined && l.hash !== orderHash) b.listings.delete(id); // the seller's listing is void
    if (l?.hash === orderHash) b.listings.delete(id);
  }

  function buy(b: Book, rng: Rng, at: number): void {
    const limit = scalePrice(b.floor, BUY_LIMIT);
    const cands = [...b.listings.values()].filter((l) => l.price <= limit && l.expiresAt > at);
    if (cands.length === 0) return;
    cands.sort((x, y) => (x.price < y.price ? -1 : x.price > y.price ? 1 : x.tokenId - y.tokenId));
    // mostly the cheapest, sometimes another within the limit
    const l = (rng() < 0.6 ? cands[0] : cands[pick(rng, cands.length)]) as ListingOrder;
    const buyer = traders.filter((t) => t !== l.maker)[pick(rng, traders.length - 1)] as Address;
    sale(b, at, l.tokenId, l.hash, l.maker, buyer, l.price, TAPE_ETH);
  }

  function accept(b: Book, rng: Rng, at: number): void {
    const limit = scalePrice(b.floor, ACCEPT_LIMIT);
    let best: CriteriaOrder | undefined;
    for (const x of b.offers.values())
      if (
        x.trait === null &&
        x.expiresAt > at &&
        x.price >= limit &&
        (best === undefined || x.price > best.price)
      )
        best = x;
    if (best === undefined) return;
    const holders: number[] = [];
    for (let id = 1; id <= b.spec.supply; id++) if (b.owner[id] !== best.maker) holders.push(id);
    if (holders.length === 0) return;
    const id = holders[pick(rng, holders.length)] as number;
    b.offers.delete(best.hash);
    sale(b, at, id, best.hash, b.owner[id] as Address, best.maker, best.price, TAPE_WETH);
  }

  function transfer(b: Book, rng: Rng, at: number): void {
    const id = 1 + pick(rng, b.spec.supply);
    const from = b.owner[id] as Address;
    const to = traders.filter((t) => t !== from)[pick(rng, traders.length - 1)] as Address;
    b.owner[id] = to;
    b.listings.delete(id);
    const tx = `0x${hex(`${seed}:transfer:${at}:${id}:${seq++}`, 32)}`;
    emit({
      ...base(b, at, `transfer:${tx}:${id}`),
      kind: 'transfer',
      nft: nftOf(b, id),
      txHash: tx,
      from,
      to,
      quantity: 1n,
    });
  }

  function cancel(b: Book, rng: Rng, at: number): void {
    const all: { hash: OrderHash; id: number | null }[] = [
      ...[...b.listings.values()].map((l) => ({ hash: l.hash, id: l.tokenId as number | null })),
      ...[...b.offers.keys()].map((h) => ({ hash: h, id: null })),
    ];
    if (all.length === 0) return;
    const c = all[pick(rng, all.length)] as { hash: OrderHash; id: number | null };
    if (c.id !== null) b.listings.delete(c.id);
    else b.offers.delete(c.hash);
    emit({
      ...base(b, at, `cancel:${c.hash}`),
      kind: 'cancel',
      orderHash: c.hash,
      nft: c.id !== null ? nftOf(b, c.id) : null,
      txHash: null,
    });
  }

  function metadata(b: Book, rng: Rng, at: number): void {
    const id = 1 + pick(rng, b.spec.supply);
    emit({
      ...base(b, at, `metadata:${b.slug}:${id}:${at}`),
      kind: 'metadata_update',
      nft: nftOf(b, id),
      traits: b.traits[id] ?? [],
    });
  }

  function expire(b: Book, at: number): void {
    for (const [id, l] of b.listings) if (l.expiresAt <= at) b.listings.delete(id);
    for (const [h, x] of b.offers) if (x.expiresAt <= at) b.offers.delete(h);
  }

  // ── REST answers, in the API's shapes (what the market view parses) ──
  const listingJson = (b: Book, l: ListingOrder) => ({
    order_hash: l.hash,
    chain,
    type: 'basic',
    price: { current: { currency: 'ETH', decimals: 18, value: l.price.toString() } },
    protocol_data: {
      parameters: {
        offerer: l.maker,
        endTime: String(Math.floor(l.expiresAt / 1000)),
        offer: [{ itemType: 2, token: b.contract, identifierOrCriteria: String(l.tokenId) }],
        consideration: [{ itemType: 0, token: TAPE_ETH.address }],
      },
    },
    remaining_quantity: 1,
    order_created_at: Math.floor(l.createdAt / 1000),
    asset: { identifier: String(l.tokenId), contract: b.contract },
    status: 'ACTIVE',
  });
  const offerJson = (b: Book, x: CriteriaOrder) => ({
    order_hash: x.hash,
    chain,
    price: { currency: 'WETH', decimals: 18, value: x.price.toString() },
    protocol_data: {
      parameters: {
        offerer: x.maker,
        endTime: String(Math.floor(x.expiresAt / 1000)),
        offer: [{ itemType: 1, token: TAPE_WETH.address }],
      },
    },
    remaining_quantity: 1,
    order_created_at: Math.floor(x.createdAt / 1000),
    criteria: {
      collection: { slug: b.slug },
      contract: { address: b.contract },
      ...(x.trait !== null ? { traits: [{ type: x.trait.type, value: x.trait.value }] } : {}),
    },
    status: 'ACTIVE',
  });

  function snapshots(b: Book, at: number, all: boolean): void {
    expire(b, at);
    const listings = [...b.listings.values()].sort((x, y) =>
      x.price < y.price ? -1 : x.price > y.price ? 1 : x.createdAt - y.createdAt,
    );
    const cheapest = listings[0];
    w.write({
      k: 'rest',
      at,
      call: 'stats',
      slug: b.slug,
      next: null,
      response: {
        total: cheapest ? { floor_price: display(cheapest.price), floor_price_symbol: 'ETH' } : {},
      },
    });
    w.write({
      k: 'rest',
      at,
      call: 'listings',
      slug: b.slug,
      next: null,
      response: { listings: listings.slice(0, 100).map((l) => listingJson(b, l)) },
    });
    const offers = [...b.offers.values()].sort((x, y) =>
      x.price > y.price ? -1 : x.price < y.price ? 1 : 0,
    );
    w.write({
      k: 'rest',
      at,
      call: 'collectionOffers',
      slug: b.slug,
      next: null,
      response: {
        offers: offers
          .filter((x) => x.trait === null)
          .slice(0, 100)
          .map((x) => offerJson(b, x)),
      },
    });
    w.write({
      k: 'rest',
      at,
      call: 'traitOffers',
      slug: b.slug,
      next: null,
      response: {
        offers: offers
          .filter((x) => x.trait !== null)
          .slice(0, 100)
          .map((x) => offerJson(b, x)),
      },
    });
    if (!all) return;
    const categories: Record<string, string> = {};
    const counts: Record<string, unknown> = {};
    for (const t of Object.keys(b.spec.traits.text)) {
      categories[t] = 'string';
      const c: Record<string, number> = {};
      for (let id = 1; id <= b.spec.supply; id++) {
        const v = b.traits[id]?.find((x) => x.type === t)?.value;
        if (typeof v === 'string') c[v] = (c[v] ?? 0) + 1;
      }
      counts[t] = c;
    }
    for (const [t, [min, max]] of Object.entries(b.spec.traits.numeric)) {
      categories[t] = 'number';
      counts[t] = { min, max };
    }
    w.write({ k: 'rest', at, call: 'traits', slug: b.slug, next: null, response: { categories, counts } });
    const floors: Record<string, unknown>[] = [];
    const seen = new Set<string>();
    for (const l of listings)
      for (const t of b.traits[l.tokenId] ?? []) {
        if (typeof t.value !== 'string') continue;
        const k = `${t.type}\u0000${t.value}`;
        if (seen.has(k)) continue;
        seen.add(k);
        floors.push({
          trait_type: t.type,
          value: t.value,
          payment_token_symbol: 'ETH',
          floor_price: display(l.price),
        });
      }
    w.write({ k: 'rest', at, call: 'traitFloors', slug: b.slug, next: null, response: { floors } });
  }

  // the initial book: listings around the floor and a few offers per collection
  for (const b of books) {
    const r = prng(hashString(`${seed}:tape:initial:${b.slug}`));
    for (let i = 0; i < 10; i++) list(b, r, startAt, -1 - i);
    for (let i = 0; i < 3; i++) offer(b, r, startAt, -100 - i, 'collection_offer');
    for (let i = 0; i < 2; i++) offer(b, r, startAt, -200 - i, 'trait_offer');
    snapshots(b, startAt, true);
  }

  const tick = 1000 / activity;
  const walk = prng(hashString(`${seed}:tape:floor`));
  let nextRest = startAt + restEveryMs;
  let nextFull = startAt + 5 * restEveryMs;
  let nextGas = startAt;
  let nextFresh = startAt;
  let nextWalk = startAt + 60_000;
  let gas = 20_000_000_000n;
  const dropOpensAt = startAt + TAPE_DROP.opensAfterMs;
  const dropEndsAt = startAt + 30 * 86_400_000;
  let dropLeft: bigint = TAPE_DROP.supply;
  const dropAt = (at: number): DropStatus => ({
    slug: TAPE_DROP.slug,
    stage:
      at < dropOpensAt ? 'upcoming' : dropLeft === 0n ? 'sold_out' : at >= dropEndsAt ? 'ended' : 'active',
    eligible: true,
    pricePerToken: TAPE_DROP.pricePerToken,
    paymentToken: TAPE_ETH,
    maxPerWallet: TAPE_DROP.maxPerWallet,
    mintedByWallet: null,
    remaining: dropLeft,
    startsAt: dropOpensAt,
    endsAt: dropEndsAt,
  });
  // HRP's price walks on its own draws (the market's are those of tapes written before it had one)
  const hrpWalk = prng(hashString(`${seed}:tape:hrp`));
  let hrp = TAPE_HRP_START;
  let nextHour = startAt + 3_600_000;
  let reached = endAt;
  let interrupted = false;
  for (let n = 0; ; n++) {
    const at = startAt + Math.round(n * tick);
    if (at > endAt) break;
    if (at >= nextHour) {
      nextHour += 3_600_000;
      o.onProgress?.(at, events, { from: startAt, to: endAt });
      await new Promise<void>((turn) => setImmediate(turn));
      if (o.signal?.aborted === true) {
        interrupted = true;
        reached = at;
        break;
      }
    }
    while (nextGas <= at) {
      w.write({ k: 'gas', at: nextGas, price: gas });
      gas = (gas * BigInt(Math.round(between(walk, 0.97, 1.03) * 1000))) / 1000n;
      if (gas < 1_000_000_000n) gas = 1_000_000_000n;
      w.write({
        k: 'price',
        at: nextGas,
        token: TAPE_HRP.address,
        priceIn: hrp,
        source: 'quote',
        learnedAt: nextGas,
      });
      w.write({ k: 'drop', at: nextGas, learnedAt: nextGas, drop: dropAt(nextGas) });
      // ±0.3 % a step at most, kept within half and twice its start
      const next = scalePrice(hrp, between(hrpWalk, 0.997, 1.003));
      hrp =
        next < TAPE_HRP_START / 2n
          ? TAPE_HRP_START / 2n
          : next > TAPE_HRP_START * 2n
            ? TAPE_HRP_START * 2n
            : next;
      nextGas += 12_000;
    }
    while (nextFresh <= at) {
      w.write({
        k: 'fresh',
        at: nextFresh,
        collections: Object.fromEntries(slugs.map((s) => [s, { ageMs: 0, stale: false }])),
      });
      nextFresh += 10_000;
    }
    while (nextWalk <= at) {
      // the reference floor moves: ±0.6 % a minute at most, kept within half and twice its start
      for (const b of books) {
        const start = DEFAULT_FLOORS[b.slug] ?? 10n ** 16n;
        const next = scalePrice(b.floor, between(walk, 0.994, 1.006));
        b.floor = next < start / 2n ? start / 2n : next > start * 2n ? start * 2n : next;
      }
      nextWalk += 60_000;
    }
    while (nextRest <= at) {
      const full = nextRest >= nextFull;
      if (full) nextFull += 5 * restEveryMs;
      for (const b of books) snapshots(b, nextRest, full);
      nextRest += restEveryMs;
    }
    const rng = actionRng(seed, n);
    const kind = chooseKind(rng(), weights);
    const b = books[pick(rng, books.length)] as Book;
    switch (kind) {
      case 'list':
        list(b, rng, at, n);
        break;
      case 'collection_offer':
        offer(b, rng, at, n, 'collection_offer');
        break;
      case 'trait_offer':
        offer(b, rng, at, n, 'trait_offer');
        break;
      case 'item_offer': {
        const id = 1 + pick(rng, b.spec.supply);
        const price = scalePrice(b.floor, offerPriceFactor(rng, 'item_offer'));
        const hash = newHash(n, 'item_offer');
        emit({
          ...base(b, at, `item_offer:${hash}`),
          kind: 'item_offer',
          orderHash: hash,
          maker: traders[pick(rng, traders.length)] as Address,
          taker: null,
          quantity: 1n,
          price,
          paymentToken: TAPE_WETH,
          expiresAt: at + 3_600_000,
          nft: nftOf(b, id),
        });
        break;
      }
      case 'buy':
        buy(b, rng, at);
        break;
      case 'accept':
        accept(b, rng, at);
        break;
      case 'transfer':
        transfer(b, rng, at);
        break;
      case 'cancel':
        cancel(b, rng, at);
        break;
      case 'metadata':
        metadata(b, rng, at);
        break;
      case 'mint':
        // one in four mints the drop, once it is open (the market's other mints are not on the tape)
        if (at >= dropOpensAt && dropLeft > 0n && rng() < 0.25) dropLeft -= 1n;
        break;
    }
  }
  await w.close();
  const s = w.stats();
  return { events, records: s.records, bytes: s.bytes, startAt, endAt: reached, interrupted };
}
