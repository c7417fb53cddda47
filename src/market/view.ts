/**
 * The market view: what the daemon knows about each configured collection — floor, trait floors,
 * traits, best listing per NFT, best collection offer, best offer per trait — and about its own
 * orders, each value with when and from where it was learned.
 *
 *   const view = createMarketView({ api, clock, logger, collections: ['doodles'], paymentTokens });
 *   await view.start();                 // own orders loaded, first refresh of every collection queued
 *   stream.subscribe((e) => view.apply(e));
 *   const snap = view.snapshot();       // synchronous, immutable, no I/O: what strategies read
 *   await view.stop();                  // awaits in-flight refreshes
 *
 * Events keep it fresh between REST refreshes. Periodic refreshes run per collection, never two at
 * once for one collection, at a read priority below trading, with intervals stretched to fit the
 * view's share of the read budget. When an event takes away something the view cannot replace on
 * its own (the floor listing sold, the floor went to another currency) the value is marked and
 * re-learned from REST out of schedule, through a small token bucket.
 */
import type { PaymentToken } from '../domain/events.ts';
import { type MarketEvent, nftKey } from '../domain/events.ts';
import type { CollectionSlug, OrderHash } from '../domain/ids.ts';
import type { Logger } from '../observability/index.ts';
import { systemTimers, type TimerHandle, type Timers, unrefTimer } from '../ratelimit/clock.ts';
import { Priority } from '../ratelimit/types.ts';
import type { MarketApi } from './api.ts';
import { GroupedBook } from './book.ts';
import {
  type BudgetPlan,
  DEFAULT_REFRESH_INTERVALS,
  planRefresh,
  REFRESH_KINDS,
  type RefreshIntervals,
  type RefreshKind,
  RelearnBucket,
} from './budget.ts';
import {
  compareListings,
  compareOffers,
  entryOfEvent,
  entryOfListing,
  entryOfOffer,
  type OrderEntry,
} from './entries.ts';
import { FrozenMap } from './frozen.ts';
import { positiveOption } from './options.ts';
import { SharedMap } from './shared-map.ts';
import type {
  CollectionSnapshot,
  Known,
  MarketSnapshot,
  OwnOrder,
  PriceLevel,
  Provenance,
  TraitCategory,
  TraitFloor,
} from './snapshot.ts';
import { partMask, traitKey } from './snapshot.ts';
import { Tombstones } from './tombstones.ts';
import { displayToUnits, sameToken, TokenRegistry, unitsToDisplay } from './units.ts';

/** Epoch milliseconds; the same clock the stream client stamps `receivedAt` with. */
export interface MarketClock {
  now(): number;
}

/** Our own orders, read at snapshot time (the order ledger; the view keeps no copy). */
export interface OwnOrderSource {
  ownOrders(): readonly OwnOrder[];
}

export interface MarketViewOptions {
  readonly api: MarketApi;
  readonly clock: MarketClock;
  readonly logger: Logger;
  /** Collection slugs to follow. Events of other collections are ignored (and counted). */
  readonly collections: readonly string[];
  /** Default: real timers. */
  readonly timers?: Timers;
  /** A collection whose newest information is older than this is `stale`. Default 60 000 ms. */
  readonly staleAfterMs?: number;
  /** Wanted interval per refresh kind (ms); stretched to fit `readsPerHour`. */
  readonly refreshIntervals?: Partial<RefreshIntervals>;
  /** Read requests per hour the view may spend on periodic refreshes. Default 300 (half the free tier). */
  readonly readsPerHour?: number;
  /** Out-of-schedule refreshes (re-learning) per minute, all collections. Default 6. */
  readonly relearnPerMinute?: number;
  /** A kind never runs again sooner than this after its last run. Default 1 000 ms. */
  readonly minRefreshGapMs?: number;
  /** Pages read per list refresh (best listings, collection offers, trait offers). Default 5. */
  readonly maxPages?: number;
  /** Page size of list refreshes. Default 100. */
  readonly pageLimit?: number;
  /** Collections refreshing at once. Default 2. */
  readonly maxConcurrent?: number;
  /** First retry delay after a failed refresh, doubled per failure, capped at the kind's interval. Default 5 000 ms. */
  readonly errorBackoffMs?: number;
  /** How often expired orders are swept out. Default 1 000 ms. */
  readonly sweepIntervalMs?: number;
  /** Payment tokens of the chain (symbol → address, decimals) for prices the API gives by symbol only. */
  readonly paymentTokens?: readonly PaymentToken[];
  readonly ownOrders?: OwnOrderSource;
  /**
   * Pulled at snapshot time: the stream client's own freshness of a collection (heartbeats keep a
   * quiet collection fresh without any event). `(slug) => stream.freshness(slug)` fits.
   */
  readonly streamFreshness?: (
    slug: string,
  ) => { readonly ageMs: number; readonly stale: boolean } | undefined;
  /**
   * Pulled at snapshot time: what a sale in a collection pays in fees (bps; see
   * `CollectionSnapshot.sellerFeeBps`), undefined while not known. The daemon's cache of the
   * collections' fees, or a tape's fees as of the replay's time.
   */
  readonly sellerFeeBps?: (slug: string) => bigint | undefined;
  /** Priority of periodic refreshes. Default `Priority.analytics`. */
  readonly periodicPriority?: Priority;
  /** Priority of re-learning refreshes. Default `Priority.read` (still below trading). */
  readonly relearnPriority?: Priority;
}

export interface StreamStatus {
  /** The stream client considers this collection stale (gap, stall, fallback without news). */
  readonly stale: boolean;
  /** Newest information the stream has for it (epoch ms), when known. */
  readonly at?: number;
}

export interface KindStatus {
  readonly lastOkAt: number | null;
  readonly nextDueAt: number | null;
  readonly failures: number;
  readonly lastError: string | null;
  readonly intervalMs: number;
}

export interface CollectionStatus {
  readonly slug: CollectionSlug;
  readonly ageMs: number;
  readonly stale: boolean;
  readonly streamStale: boolean;
  readonly refreshing: boolean;
  readonly floorRelearning: boolean;
  readonly eventsApplied: number;
  readonly listings: number;
  readonly collectionOffers: number;
  readonly traitOffers: number;
  readonly kinds: Readonly<Record<RefreshKind, KindStatus>>;
}

export interface MarketViewStatus {
  readonly running: boolean;
  readonly plan: BudgetPlan;
  readonly ignoredEvents: number;
  readonly unknownSymbols: readonly string[];
  readonly collections: readonly CollectionStatus[];
}

export interface MarketView {
  /** Loads own orders and queues the first refresh of every collection. Resolves when loaded and queued. */
  start(): Promise<void>;
  /** Applies one event (synchronous). Events of unknown collections are ignored. */
  apply(event: MarketEvent): void;
  /** The current view; synchronous, immutable, cheap (shared structure between changes). */
  snapshot(): MarketSnapshot;
  /** The stream has news for `slug` (or every collection with '*') as of `at`. */
  markStreamFresh(slug: string, at: number): void;
  setStreamStatus(slug: string, status: StreamStatus): void;
  /** Asks for an out-of-schedule refresh (re-learning budget applies). */
  requestRefresh(slug: string, kinds?: readonly RefreshKind[]): void;
  /** Runs the given kinds (default all) of one or every collection now, and resolves when done. Ignores the re-learning budget. */
  refreshNow(slug?: string, kinds?: readonly RefreshKind[]): Promise<void>;
  /** Resolves when no refresh is running or due now. */
  whenIdle(): Promise<void>;
  /**
   * A number that grows whenever one of the parts in `mask` (bits of `MARKET_PARTS`, see
   * `partMask`) of a collection changes, whatever changed it (an event, a REST answer, an expiry);
   * -1 for a collection the view does not follow. Equal stamps: none of those parts changed.
   */
  changeStamp(slug: string, mask: number): number;
  /** No refresh is running or due now (`whenIdle` would resolve at once). */
  settled(): boolean;
  status(): MarketViewStatus;
  /** Stops timers, aborts and awaits in-flight refreshes. Idempotent. */
  stop(): Promise<void>;
}

const PART_FLOOR = partMask(['floor']);
const PART_COLLECTION_OFFER = partMask(['collection_offer']);
const PART_TRAIT_OFFERS = partMask(['trait_offers']);
const PART_LISTINGS = partMask(['listings']);
const PART_TRAIT_FLOORS = partMask(['trait_floors']);
const PART_TRAITS = partMask(['traits']);

/** Removed orders are remembered this long, so a REST page read before the removal cannot bring them back. */
const TOMBSTONE_MS = 15 * 60_000;
const COLLECTION_OFFER_GROUP = '';

interface CollectionState {
  readonly slug: CollectionSlug;
  readonly listings: GroupedBook;
  readonly collectionOffers: GroupedBook;
  readonly traitOffers: GroupedBook;
  floor: Known<PriceLevel> | null;
  /** A stats answer was seen (so a null floor means "nothing listed", not "unknown"). */
  floorKnown: boolean;
  floorRelearning: boolean;
  /** When the last floor re-learning was asked (a stats run started before it does not end it). */
  floorRelearnAskedAt: number;
  traitFloors: Known<readonly TraitFloor[]> | null;
  traitFloorIndex: ReadonlyMap<string, readonly TraitFloor[]>;
  traits: Known<readonly TraitCategory[]> | null;
  numericTraits: ReadonlySet<string>;
  lastInfoAt: number;
  streamFreshAt: number;
  streamStale: boolean;
  eventsApplied: number;
  readonly due: Record<RefreshKind, number>;
  /**
   * When the first kind is due: the least of `due`, kept exact by every write of `due` (`dueAt`
   * lowers it, `runKind` looks again when it takes a kind out, `dueKind` sets it).
   */
  dueFrom: number;
  readonly urgent: Record<RefreshKind, boolean>;
  readonly lastRunAt: Record<RefreshKind, number>;
  readonly lastOkAt: Record<RefreshKind, number | null>;
  readonly failures: Record<RefreshKind, number>;
  readonly lastError: Record<RefreshKind, string | null>;
  /** Requests the last run of each list kind cost (pages). */
  readonly costs: Record<RefreshKind, number>;
  running: Promise<void> | null;
  readonly tombstones: Tombstones<OrderHash>;
  /** Invalidated orders, kept so a revalidation can bring them back. */
  readonly suspended: Map<OrderHash, { readonly entry: OrderEntry; readonly at: number }>;
  /** Bumped on any change visible in the snapshot. */
  version: number;
  /** What `changeStamp` last saw of the parts without a counter of their own, and their counters. */
  readonly seen: {
    floor: Known<PriceLevel> | null;
    relearning: boolean;
    floorV: number;
    traitFloors: Known<readonly TraitFloor[]> | null;
    traitFloorsV: number;
    traits: Known<readonly TraitCategory[]> | null;
    traitsV: number;
  };
  cache: SnapshotCache | null;
  /**
   * The last collection snapshot handed out (null: none yet) and what it was made of: the same one
   * while its base (the cache it was made from) and freshness are.
   */
  lastSnap: CollectionSnapshot | null;
  lastBase: SnapshotCache | null;
  lastAgeMs: number;
  lastStale: boolean;
  lastFee: bigint | null;
  /** Its place in `states` (a snapshot's memo of collections is by it). */
  readonly index: number;
}

/** What a collection snapshot holds besides its freshness; a new one whenever the version moved. */
interface SnapshotCache
  extends Pick<
    CollectionSnapshot,
    'floor' | 'floorRelearning' | 'traitFloors' | 'traitFloorsByTrait' | 'traits' | 'bestCollectionOffer'
  > {
  readonly version: number;
  readonly listingsVersion: number;
  readonly traitOffersVersion: number;
  readonly bestListings: SharedMap<string, Known<PriceLevel>>;
  readonly bestTraitOffers: SharedMap<string, Known<PriceLevel>>;
}

function perKind<T>(v: () => T): Record<RefreshKind, T> {
  const out = {} as Record<RefreshKind, T>;
  for (const k of REFRESH_KINDS) out[k] = v();
  return out;
}

function describeError(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; shortMessage?: unknown; message?: unknown };
    const msg = typeof e.shortMessage === 'string' ? e.shortMessage : String(e.message ?? err);
    return typeof e.code === 'string' ? `${e.code}: ${msg}` : msg;
  }
  return String(err);
}

const positive = positiveOption('market view');

export function createMarketView(options: MarketViewOptions): MarketView {
  const { api, clock, logger } = options;
  const timers = options.timers ?? systemTimers;
  const staleAfterMs = positive('staleAfterMs', options.staleAfterMs, 60_000);
  const readsPerHour = positive('readsPerHour', options.readsPerHour, 300);
  const minGapMs = positive('minRefreshGapMs', options.minRefreshGapMs, 1_000);
  const maxPages = Math.floor(positive('maxPages', options.maxPages, 5));
  const pageLimit = Math.floor(positive('pageLimit', options.pageLimit, 100));
  const maxConcurrent = Math.floor(positive('maxConcurrent', options.maxConcurrent, 2));
  const errorBackoffMs = positive('errorBackoffMs', options.errorBackoffMs, 5_000);
  const sweepIntervalMs = positive('sweepIntervalMs', options.sweepIntervalMs, 1_000);
  const periodicPriority = options.periodicPriority ?? Priority.analytics;
  const relearnPriority = options.relearnPriority ?? Priority.read;
  const wanted: RefreshIntervals = { ...DEFAULT_REFRESH_INTERVALS, ...(options.refreshIntervals ?? {}) };
  for (const k of REFRESH_KINDS) positive(`refreshIntervals.${k}`, wanted[k], 1);

  const registry = new TokenRegistry(options.paymentTokens ?? []);
  const bucket = new RelearnBucket(positive('relearnPerMinute', options.relearnPerMinute, 6), clock.now());
  const abort = new AbortController();
  const unknownSymbols = new Set<string>();

  const slugs = Object.freeze([...new Set(options.collections)] as CollectionSlug[]);
  if (slugs.length === 0) throw new RangeError('market view: at least one collection is needed');
  const states = new Map<string, CollectionState>();
  for (const slug of slugs) states.set(slug, newState(slug, states.size));

  let plan = computePlan();
  let started = false;
  let stopped = false;
  let timer: TimerHandle | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let lastSweepAt = clock.now();
  let ignoredEvents = 0;

  function newState(slug: CollectionSlug, index: number): CollectionState {
    return {
      slug,
      listings: new GroupedBook((e) => e.nftKey, compareListings),
      collectionOffers: new GroupedBook(
        (e) => (e.side === 'collection_offer' ? COLLECTION_OFFER_GROUP : null),
        compareOffers,
      ),
      traitOffers: new GroupedBook((e) => e.traitKey, compareOffers),
      floor: null,
      floorKnown: false,
      floorRelearning: false,
      floorRelearnAskedAt: 0,
      traitFloors: null,
      traitFloorIndex: new FrozenMap(new Map()),
      traits: null,
      numericTraits: new Set(),
      lastInfoAt: 0,
      streamFreshAt: 0,
      streamStale: false,
      eventsApplied: 0,
      due: perKind(() => Number.POSITIVE_INFINITY),
      dueFrom: Number.POSITIVE_INFINITY,
      urgent: perKind(() => false),
      lastRunAt: perKind(() => Number.NEGATIVE_INFINITY),
      lastOkAt: perKind(() => null),
      failures: perKind(() => 0),
      lastError: perKind(() => null),
      costs: perKind(() => 1),
      running: null,
      tombstones: new Tombstones(),
      suspended: new Map(),
      version: 0,
      cache: null,
      lastSnap: null,
      lastBase: null,
      lastAgeMs: 0,
      lastStale: false,
      lastFee: null,
      index,
      seen: {
        floor: null,
        relearning: false,
        floorV: 0,
        traitFloors: null,
        traitFloorsV: 0,
        traits: null,
        traitsV: 0,
      },
    };
  }

  function computePlan(): BudgetPlan {
    const costs = perKind(() => 0);
    for (const c of states.values()) for (const k of REFRESH_KINDS) costs[k] += c.costs[k];
    for (const k of REFRESH_KINDS) costs[k] = costs[k] / Math.max(1, states.size);
    return planRefresh({ intervals: wanted, costs, collections: states.size, readsPerHour });
  }

  function touch(c: CollectionState, at: number): void {
    if (at > c.lastInfoAt) c.lastInfoAt = at;
    c.version++;
  }

  // ── floor ─────────────────────────────────────────────────────────────

  /** Cheapest known listing in `token` (a scan over the best listing of every NFT). */
  function cheapestIn(c: CollectionState, token: PaymentToken): OrderEntry | undefined {
    let best: OrderEntry | undefined;
    for (const e of c.listings.bests().values()) {
      if (!sameToken(e.level.paymentToken, token)) continue;
      if (!best || compareListings(e, best) < 0) best = e;
    }
    return best;
  }

  function relearnFloor(c: CollectionState, reason: string): void {
    const now = clock.now();
    const had = c.floor;
    c.floorRelearning = true;
    c.floorRelearnAskedAt = now;
    if (had) {
      const candidate = cheapestIn(c, had.value.paymentToken);
      c.floor = candidate ? candidate.known : null;
    }
    c.version++;
    logger.debug({ collection: c.slug, reason }, 'market floor is being re-learned');
    ask(c, 'stats');
  }

  function onListingAdded(c: CollectionState, e: OrderEntry): void {
    if (!c.floorKnown) return;
    const floor = c.floor;
    if (floor === null) {
      // Nothing was listed (or, while re-learning, nothing known is left): this is the floor now.
      c.floor = e.known;
      return;
    }
    if (sameToken(floor.value.paymentToken, e.level.paymentToken)) {
      if (e.level.price < floor.value.price) c.floor = e.known;
      return;
    }
    // Another currency. The stats floor is quoted in the native currency whenever anything is
    // listed in it; otherwise the new currency may now be the floor's: ask.
    if (floor.value.paymentToken.address !== '0x0000000000000000000000000000000000000000') {
      relearnFloor(c, 'listing in another currency');
    }
  }

  /** An order left the book (sold, cancelled, invalidated, expired): re-learn the floor if it was it. */
  function onListingGone(
    c: CollectionState,
    hash: OrderHash,
    e: OrderEntry | undefined,
    reason: string,
  ): void {
    const floor = c.floor;
    if (!floor || c.floorRelearning) return;
    if (floor.value.orderHash !== null) {
      if (floor.value.orderHash === hash) relearnFloor(c, reason);
      return;
    }
    if (
      e &&
      sameToken(e.level.paymentToken, floor.value.paymentToken) &&
      e.level.price <= floor.value.price
    ) {
      relearnFloor(c, reason);
    }
  }

  // ── books ─────────────────────────────────────────────────────────────

  /** The collection's book of a side (each book holds the entries of its side only). */
  function bookFor(c: CollectionState, side: OrderEntry['side']): GroupedBook {
    return side === 'listing' ? c.listings : side === 'collection_offer' ? c.collectionOffers : c.traitOffers;
  }

  /** The entry of `hash` in the collection's books (each holds the entries of its side only). */
  function entryOf(c: CollectionState, hash: OrderHash): OrderEntry | undefined {
    return c.listings.get(hash) ?? c.collectionOffers.get(hash) ?? c.traitOffers.get(hash);
  }

  /** Takes `hash` out (`e`: its entry, as `entryOf` finds it) and remembers it went. */
  function removeOrder(
    c: CollectionState,
    hash: OrderHash,
    e: OrderEntry | undefined,
    reason: string,
    suspend: boolean,
  ): void {
    const now = clock.now();
    const listing = e !== undefined && e.side === 'listing';
    if (e !== undefined) bookFor(c, e.side).remove(hash);
    // written anew at the end, so both stay oldest first (the sweep relies on it)
    c.tombstones.set(hash, now);
    if (e && suspend) {
      c.suspended.delete(hash);
      c.suspended.set(hash, { entry: e, at: now });
    }
    if (listing) onListingGone(c, hash, e, reason);
    else if (c.floor?.value.orderHash === hash) onListingGone(c, hash, undefined, reason);
  }

  function addEntry(c: CollectionState, e: OrderEntry): void {
    if (c.tombstones.has(e.orderHash)) return;
    if (e.level.expiresAt !== null && e.level.expiresAt <= clock.now()) return;
    bookFor(c, e.side).add(e);
    if (e.side === 'listing') onListingAdded(c, e);
  }

  /** A fill of `quantity` units of `hash`: partial fills lower what is open, full fills remove. */
  function fill(c: CollectionState, hash: OrderHash, quantity: bigint): void {
    const e = entryOf(c, hash);
    if (e && e.remaining > quantity) {
      e.remaining -= quantity;
      return;
    }
    removeOrder(c, hash, e, 'sold', false);
  }

  /** The NFT left `from`: its listings by `from` of single units can no longer be filled. */
  function ownerChanged(c: CollectionState, key: string, from: string): void {
    const gone: OrderEntry[] = [];
    for (const e of c.listings.groupEntries(key)) {
      if (e.level.maker === from.toLowerCase() && e.remaining <= 1n) gone.push(e);
    }
    for (const e of gone) removeOrder(c, e.orderHash, e, 'owner changed', true);
  }

  // ── events ────────────────────────────────────────────────────────────

  function apply(event: MarketEvent): void {
    const c = states.get(event.collection);
    if (!c) {
      ignoredEvents++;
      return;
    }
    c.eventsApplied++;
    switch (event.kind) {
      case 'listing': {
        if (!event.isPrivate) addEntry(c, entryOfEvent(event, registry));
        break;
      }
      case 'collection_offer':
      case 'trait_offer':
        addEntry(c, entryOfEvent(event, registry));
        break;
      case 'item_offer':
        registry.learn(event.paymentToken);
        break;
      case 'sale': {
        const hash = event.orderHash?.toLowerCase() as OrderHash | undefined;
        if (hash) {
          fill(c, hash, event.quantity);
        } else {
          // A sale elsewhere: if it was at or below the floor, the floor listing may be gone.
          const unit = event.quantity > 1n ? event.price / event.quantity : event.price;
          const floor = c.floor;
          if (
            floor &&
            !c.floorRelearning &&
            sameToken(floor.value.paymentToken, event.paymentToken) &&
            unit <= floor.value.price
          ) {
            relearnFloor(c, 'sale at the floor outside the book');
          }
        }
        ownerChanged(c, nftKey(event.nft), event.seller);
        break;
      }
      case 'transfer':
        ownerChanged(c, nftKey(event.nft), event.from);
        break;
      case 'cancel': {
        const hash = event.orderHash.toLowerCase() as OrderHash;
        removeOrder(c, hash, entryOf(c, hash), 'cancelled', false);
        c.suspended.delete(hash);
        break;
      }
      case 'order_invalidated': {
        const hash = event.orderHash.toLowerCase() as OrderHash;
        removeOrder(c, hash, entryOf(c, hash), 'invalidated', true);
        break;
      }
      case 'order_revalidated': {
        const hash = event.orderHash.toLowerCase() as OrderHash;
        const s = c.suspended.get(hash);
        c.suspended.delete(hash);
        c.tombstones.delete(hash);
        if (s) addEntry(c, s.entry);
        break;
      }
      case 'metadata_update':
        // Trait counts and trait floors may have moved.
        ask(c, 'traits');
        ask(c, 'traitFloors');
        break;
    }
    touch(c, event.receivedAt);
  }

  // ── refreshes ─────────────────────────────────────────────────────────

  /** Out-of-schedule request of one kind, through the re-learning bucket; coalesces. */
  function ask(c: CollectionState, kind: RefreshKind): void {
    if (stopped) return;
    const now = clock.now();
    const earliest = Math.max(now, c.lastRunAt[kind] + minGapMs);
    if (c.due[kind] <= earliest) {
      c.urgent[kind] = true;
      return;
    }
    const at = bucket.take(now) ? earliest : Math.max(earliest, now + bucket.waitMs(now));
    dueAt(c, kind, at);
    c.urgent[kind] = true;
    if (started) arm();
  }

  function callOptions(c: CollectionState, kind: RefreshKind) {
    return { priority: c.urgent[kind] ? relearnPriority : periodicPriority, signal: abort.signal };
  }

  async function pages<P extends { readonly next?: string | undefined }, T>(
    fetch: (next: string | undefined) => Promise<P>,
    items: (p: P) => readonly T[],
  ): Promise<{ items: T[]; pages: number; complete: boolean }> {
    const out: T[] = [];
    let next: string | undefined;
    let n = 0;
    do {
      const page = await fetch(next);
      n++;
      out.push(...items(page));
      next = typeof page.next === 'string' && page.next !== '' ? page.next : undefined;
    } while (next !== undefined && n < maxPages && !stopped);
    return { items: out, pages: n, complete: next === undefined };
  }

  /** Replaces a book with a REST load, keeping what events taught since the load began. */
  function merge(c: CollectionState, book: GroupedBook, loaded: OrderEntry[], startedAt: number): void {
    const now = clock.now();
    const next = new Map<OrderHash, OrderEntry>();
    for (const e of loaded) if (!next.has(e.orderHash)) next.set(e.orderHash, e);
    for (const e of book.entries()) {
      if (e.from !== 'rest' && e.learnedAt >= startedAt) {
        const had = next.get(e.orderHash);
        // the event's remaining quantity is newer than the page's
        if (had && e.remaining < had.remaining) had.remaining = e.remaining;
        if (!had) next.set(e.orderHash, e);
      }
    }
    c.tombstones.since(startedAt, (hash) => next.delete(hash));
    for (const [hash, e] of next) {
      if (e.level.expiresAt !== null && e.level.expiresAt <= now) next.delete(hash);
    }
    book.reset(next.values());
  }

  const refreshers: Record<RefreshKind, (c: CollectionState, startedAt: number) => Promise<void>> = {
    async stats(c, startedAt) {
      const res = await api.collections.stats(c.slug, callOptions(c, 'stats'));
      const now = clock.now();
      const total = (res as { total?: { floor_price?: unknown; floor_price_symbol?: unknown } }).total;
      const price = total?.floor_price;
      const symbol = total?.floor_price_symbol;
      let level: PriceLevel | null = null;
      if (typeof price === 'number' && price > 0 && typeof symbol === 'string' && symbol !== '') {
        const token = registry.bySymbol(symbol);
        const units = token ? displayToUnits(price, token.decimals) : undefined;
        if (!token || units === undefined) {
          noteUnknownSymbol(symbol, 'stats floor');
          throw new Error(`stats floor in unknown payment token '${symbol}'`);
        }
        const match = cheapestIn(c, token);
        level =
          match && unitsToDisplay(match.level.price, token.decimals) === price
            ? match.level
            : Object.freeze({
                price: units,
                paymentToken: token,
                orderHash: null,
                maker: null,
                expiresAt: null,
              });
      }
      const had = c.floor;
      const newerEvent =
        had !== null &&
        had.from !== 'rest' &&
        had.learnedAt >= startedAt &&
        !c.floorRelearning &&
        (level === null ||
          (sameToken(had.value.paymentToken, level.paymentToken) && had.value.price < level.price));
      if (!newerEvent)
        c.floor = level ? Object.freeze({ value: level, learnedAt: now, from: 'rest' as const }) : null;
      c.floorKnown = true;
      if (c.floorRelearnAskedAt <= startedAt) c.floorRelearning = false;
      touch(c, now);
    },

    async traits(c) {
      const res = await api.collections.traits(c.slug, callOptions(c, 'traits'));
      const now = clock.now();
      const categories = (res?.categories ?? {}) as Record<string, unknown>;
      const counts = (res?.counts ?? {}) as Record<string, unknown>;
      const out: TraitCategory[] = [];
      const numeric = new Set<string>();
      for (const [traitType, kind] of Object.entries(categories)) {
        const cnt = counts[traitType];
        if (kind === 'number') {
          numeric.add(traitType);
          const r = (cnt ?? {}) as { min?: unknown; max?: unknown };
          out.push(
            Object.freeze({
              traitType,
              kind: 'number' as const,
              counts: new FrozenMap(new Map<string, number>()),
              ...(typeof r.min === 'number' ? { min: r.min } : {}),
              ...(typeof r.max === 'number' ? { max: r.max } : {}),
            }),
          );
        } else {
          const m = new Map<string, number>();
          for (const [v, n] of Object.entries((cnt ?? {}) as Record<string, unknown>)) {
            if (typeof n === 'number') m.set(v, n);
          }
          out.push(Object.freeze({ traitType, kind: 'string' as const, counts: new FrozenMap(m) }));
        }
      }
      c.traits = Object.freeze({ value: Object.freeze(out), learnedAt: now, from: 'rest' as const });
      c.numericTraits = numeric;
      touch(c, now);
    },

    async traitFloors(c) {
      const res = await api.collections.traitFloors(c.slug, callOptions(c, 'traitFloors'));
      const now = clock.now();
      const floors = Array.isArray(res?.floors) ? res.floors : [];
      const out: TraitFloor[] = [];
      const index = new Map<string, TraitFloor[]>();
      const seen = new Set<string>();
      for (const f of floors as readonly Record<string, unknown>[]) {
        const type = f['trait_type'];
        const value = f['value'];
        const symbol = f['payment_token_symbol'];
        const price = f['floor_price'];
        // Text traits only (rule 4): numeric categories and non-text values are left out.
        if (typeof type !== 'string' || typeof value !== 'string' || typeof symbol !== 'string') continue;
        if (c.numericTraits.has(type) || typeof price !== 'number') continue;
        const token = registry.bySymbol(symbol);
        const units = token ? displayToUnits(price, token.decimals) : undefined;
        if (!token || units === undefined) {
          noteUnknownSymbol(symbol, 'trait floors');
          continue;
        }
        // One entry per trait value and currency (rule 6); the first is the cheapest (rule 3).
        const k = traitKey(type, value);
        const dedupe = `${k}\u0000${token.address}`;
        if (seen.has(dedupe)) continue;
        seen.add(dedupe);
        const tf: TraitFloor = Object.freeze({ traitType: type, value, price: units, paymentToken: token });
        out.push(tf);
        const list = index.get(k);
        if (list) list.push(tf);
        else index.set(k, [tf]);
      }
      // the lists frozen where they are (the map is handed out whole, as a FrozenMap)
      for (const v of index.values()) Object.freeze(v);
      c.traitFloors = Object.freeze({ value: Object.freeze(out), learnedAt: now, from: 'rest' as const });
      c.traitFloorIndex = new FrozenMap<string, readonly TraitFloor[]>(index);
      touch(c, now);
    },

    async listings(c, startedAt) {
      const call = callOptions(c, 'listings');
      const r = await pages(
        (next) => api.listings.best(c.slug, { limit: pageLimit, ...(next ? { next } : {}) }, call),
        (p) => p.listings ?? [],
      );
      const now = clock.now();
      const loaded: OrderEntry[] = [];
      for (const l of r.items) {
        const e = entryOfListing(l, registry, now, 'rest');
        if (e) loaded.push(e);
      }
      merge(c, c.listings, loaded, startedAt);
      c.costs.listings = r.pages;
      // A stats floor with no order behind it: attach the listing it is, when the book has it.
      const floor = c.floor;
      if (floor && floor.value.orderHash === null) {
        const m = cheapestIn(c, floor.value.paymentToken);
        const d = floor.value.paymentToken.decimals;
        if (m && unitsToDisplay(m.level.price, d) === unitsToDisplay(floor.value.price, d)) {
          c.floor = Object.freeze({ value: m.level, learnedAt: floor.learnedAt, from: floor.from });
        }
      }
      touch(c, now);
    },

    async collectionOffers(c, startedAt) {
      const call = callOptions(c, 'collectionOffers');
      const r = await pages(
        (next) => api.offers.collection(c.slug, { limit: pageLimit, ...(next ? { next } : {}) }, call),
        (p) => p.offers ?? [],
      );
      const now = clock.now();
      const loaded: OrderEntry[] = [];
      for (const o of r.items) {
        const e = entryOfOffer(o, registry, now, 'rest');
        if (e && e.side === 'collection_offer') loaded.push(e);
      }
      merge(c, c.collectionOffers, loaded, startedAt);
      c.costs.collectionOffers = r.pages;
      touch(c, now);
    },

    async traitOffers(c, startedAt) {
      const call = callOptions(c, 'traitOffers');
      const r = await pages(
        (next) => api.offers.traits(c.slug, { limit: pageLimit, ...(next ? { next } : {}) }, call),
        (p) => p.offers ?? [],
      );
      const now = clock.now();
      const loaded: OrderEntry[] = [];
      for (const o of r.items) {
        const e = entryOfOffer(o, registry, now, 'rest');
        if (e && e.side === 'trait_offer') loaded.push(e);
      }
      merge(c, c.traitOffers, loaded, startedAt);
      c.costs.traitOffers = r.pages;
      touch(c, now);
    },
  };

  const warnedSymbols = new Set<string>();
  function noteUnknownSymbol(symbol: string, where: string): void {
    unknownSymbols.add(symbol);
    if (warnedSymbols.has(symbol)) return;
    warnedSymbols.add(symbol);
    logger.warn(
      { symbol, where },
      'market view: price in a payment token of unknown decimals (configure paymentTokens)',
    );
  }

  /** A run of `kind` is due at `at` (or earlier, if it was already). */
  function dueAt(c: CollectionState, kind: RefreshKind, at: number): void {
    if (at < c.due[kind]) c.due[kind] = at;
    if (at < c.dueFrom) c.dueFrom = at;
  }

  function dueKind(c: CollectionState, now: number): RefreshKind | undefined {
    // asked on every event (is the view settled?): nothing is due before dueFrom
    if (c.dueFrom > now) return undefined;
    let from = Number.POSITIVE_INFINITY;
    for (const k of REFRESH_KINDS) {
      const at = c.due[k];
      if (at <= now) return k;
      if (at < from) from = at;
    }
    c.dueFrom = from;
    return undefined;
  }

  async function runKind(c: CollectionState, kind: RefreshKind): Promise<void> {
    const startedAt = clock.now();
    c.lastRunAt[kind] = startedAt;
    c.due[kind] = Number.POSITIVE_INFINITY;
    // the least of `due` may have been this kind's: looked for again (dueFrom stays exact)
    let from = Number.POSITIVE_INFINITY;
    for (const k of REFRESH_KINDS) if (c.due[k] < from) from = c.due[k];
    c.dueFrom = from;
    try {
      await refreshers[kind](c, startedAt);
      c.urgent[kind] = false;
      c.failures[kind] = 0;
      c.lastError[kind] = null;
      c.lastOkAt[kind] = clock.now();
      if (kind === 'listings' || kind === 'collectionOffers' || kind === 'traitOffers') plan = computePlan();
      dueAt(c, kind, clock.now() + plan.intervals[kind]);
    } catch (err) {
      if (stopped) return;
      c.failures[kind]++;
      c.lastError[kind] = describeError(err);
      const wait = Math.min(plan.intervals[kind], errorBackoffMs * 2 ** Math.min(20, c.failures[kind] - 1));
      dueAt(c, kind, clock.now() + wait);
      c.version++;
      logger.warn(
        { collection: c.slug, kind, failures: c.failures[kind], retryInMs: wait, err: c.lastError[kind] },
        'market refresh failed; keeping the last value',
      );
    }
  }

  function run(c: CollectionState): Promise<void> {
    const p = (async () => {
      while (!stopped) {
        const kind = dueKind(c, clock.now());
        if (!kind) break;
        await runKind(c, kind);
      }
    })().finally(() => {
      c.running = null;
      if (!stopped) arm();
    });
    c.running = p;
    return p;
  }

  function runningCount(): number {
    let n = 0;
    for (const c of states.values()) if (c.running) n++;
    return n;
  }

  /** Starts what is due, and sets the one timer for what comes next. */
  function arm(): void {
    if (stopped || !started) return;
    const now = clock.now();
    if (now - lastSweepAt >= sweepIntervalMs) sweep(now);
    let next = lastSweepAt + sweepIntervalMs;
    for (const c of states.values()) {
      if (c.running) continue;
      if (dueKind(c, now)) {
        // No free slot: the run that ends first arms again.
        if (runningCount() < maxConcurrent) void run(c);
        continue;
      }
      // not due: dueFrom is the least of `due` (see CollectionState.dueFrom)
      next = Math.min(next, c.dueFrom);
    }
    next = Math.max(next, now + 1);
    if (timer !== undefined && timerAt <= next) return;
    if (timer !== undefined) timers.clearTimeout(timer);
    timerAt = next;
    timer = timers.setTimeout(() => {
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      arm();
    }, next - now);
    unrefTimer(timer);
  }

  /** Expired orders out (the floor re-learned when it was one), old tombstones and closed own orders dropped. */
  function sweep(now: number): void {
    lastSweepAt = now;
    for (const c of states.values()) {
      expire(c, c.listings, now);
      expire(c, c.collectionOffers, now);
      expire(c, c.traitOffers, now);
      const f = c.floor;
      if (f && !c.floorRelearning && f.value.expiresAt !== null && f.value.expiresAt <= now) {
        relearnFloor(c, 'floor listing expired');
      }
      // both are kept in the order they were written (oldest first): stop at the first young one
      c.tombstones.dropOlderThan(now, TOMBSTONE_MS);
      if (c.suspended.size > 0)
        for (const [h, s] of c.suspended) {
          if (now - s.at <= TOMBSTONE_MS) break;
          c.suspended.delete(h);
        }
    }
  }

  function expire(c: CollectionState, book: GroupedBook, now: number): void {
    const expired = book.expired(now);
    if (expired.length === 0) return;
    for (const h of expired) removeOrder(c, h, entryOf(c, h), 'expired', false);
    c.version++;
  }

  // ── snapshot ──────────────────────────────────────────────────────────

  /**
   * The best of each group, as a snapshot hands it out: made from the map of the last snapshot by
   * what changed since (shared-map.ts), or whole (the first, after a reload).
   */
  function knownMap(
    book: GroupedBook,
    prev: SharedMap<string, Known<PriceLevel>> | undefined,
  ): SharedMap<string, Known<PriceLevel>> {
    const changes = book.takeChanges();
    if (changes === null || prev === undefined) {
      const entries: [string, Known<PriceLevel>][] = [];
      for (const [k, e] of book.bests()) entries.push([k, e.known]);
      return SharedMap.of(entries);
    }
    return prev.with(changes);
  }

  function baseOf(c: CollectionState): SnapshotCache {
    const cache = c.cache;
    if (cache && cache.version === c.version) return cache;
    const bestListings =
      cache && cache.listingsVersion === c.listings.version
        ? cache.bestListings
        : knownMap(c.listings, cache?.bestListings);
    const bestTraitOffers =
      cache && cache.traitOffersVersion === c.traitOffers.version
        ? cache.bestTraitOffers
        : knownMap(c.traitOffers, cache?.bestTraitOffers);
    const bestOffer = c.collectionOffers.best(COLLECTION_OFFER_GROUP);
    const next: SnapshotCache = {
      version: c.version,
      listingsVersion: c.listings.version,
      traitOffersVersion: c.traitOffers.version,
      bestListings,
      bestTraitOffers,
      floor: c.floor,
      floorRelearning: c.floorRelearning,
      traitFloors: c.traitFloors,
      traitFloorsByTrait: c.traitFloorIndex,
      traits: c.traits,
      bestCollectionOffer: bestOffer ? bestOffer.known : null,
    };
    c.cache = next;
    return next;
  }

  function streamOf(c: CollectionState): { readonly ageMs: number; readonly stale: boolean } | undefined {
    if (!options.streamFreshness) return undefined;
    try {
      return options.streamFreshness(c.slug);
    } catch {
      return undefined;
    }
  }

  function ageOf(c: CollectionState, at: number, s = streamOf(c)): number {
    let newest = Math.max(c.lastInfoAt, c.streamFreshAt);
    if (s && Number.isFinite(s.ageMs)) newest = Math.max(newest, at - s.ageMs);
    return newest > 0 ? Math.max(0, at - newest) : Number.POSITIVE_INFINITY;
  }

  function freshness(
    c: CollectionState,
    at: number,
  ): { ageMs: number; stale: boolean; streamStale: boolean } {
    const s = streamOf(c);
    const ageMs = ageOf(c, at, s);
    const streamStale = c.streamStale || s?.stale === true;
    return { ageMs, streamStale, stale: streamStale || ageMs > staleAfterMs };
  }

  function feeOf(c: CollectionState): bigint | null {
    if (!options.sellerFeeBps) return null;
    try {
      return options.sellerFeeBps(c.slug) ?? null;
    } catch {
      return null;
    }
  }

  const noOwn: readonly OwnOrder[] = Object.freeze([]);
  const ownList = (): readonly OwnOrder[] => options.ownOrders?.ownOrders() ?? noOwn;

  function snapshot(): MarketSnapshot {
    const at = clock.now();
    // the collections this snapshot handed out, by their state's index (the same one each time)
    const memo: (CollectionSnapshot | undefined)[] = [];
    const ownOrders = ownList();
    return Object.freeze({
      at,
      collections: slugs,
      ownOrders,
      collection(slug: string): CollectionSnapshot | undefined {
        const c = states.get(slug);
        if (!c) return undefined;
        const had = memo[c.index];
        if (had) return had;
        // freshness, then the base, then the fee: the order they are asked in
        const { ageMs, stale } = freshness(c, at);
        const base = baseOf(c);
        const fee = feeOf(c);
        const last = c.lastSnap;
        if (
          last !== null &&
          c.lastBase === base &&
          c.lastAgeMs === ageMs &&
          c.lastStale === stale &&
          c.lastFee === fee
        ) {
          memo[c.index] = last;
          return last;
        }
        // field by field (the keys of a snapshot, in their order), not a spread of a base
        const snap: CollectionSnapshot = Object.freeze({
          slug: c.slug,
          floor: base.floor,
          floorRelearning: base.floorRelearning,
          traitFloors: base.traitFloors,
          traitFloorsByTrait: base.traitFloorsByTrait,
          traits: base.traits,
          bestCollectionOffer: base.bestCollectionOffer,
          bestTraitOffers: base.bestTraitOffers,
          bestListings: base.bestListings,
          ageMs,
          stale,
          sellerFeeBps: fee,
        });
        c.lastSnap = snap;
        c.lastBase = base;
        c.lastAgeMs = ageMs;
        c.lastStale = stale;
        c.lastFee = fee;
        memo[c.index] = snap;
        return snap;
      },
    });
  }

  // ── the view ──────────────────────────────────────────────────────────

  function selected(slug: string | undefined): CollectionState[] {
    if (slug === undefined || slug === '*') return [...states.values()];
    const c = states.get(slug);
    return c ? [c] : [];
  }

  function changeStamp(slug: string, mask: number): number {
    const c = states.get(slug);
    if (c === undefined) return -1;
    const seen = c.seen;
    if (seen.floor !== c.floor || seen.relearning !== c.floorRelearning) {
      seen.floor = c.floor;
      seen.relearning = c.floorRelearning;
      seen.floorV++;
    }
    if (seen.traitFloors !== c.traitFloors) {
      seen.traitFloors = c.traitFloors;
      seen.traitFloorsV++;
    }
    if (seen.traits !== c.traits) {
      seen.traits = c.traits;
      seen.traitsV++;
    }
    // each counter only grows: their sum grows when any of them does
    let stamp = 0;
    if (mask & PART_FLOOR) stamp += seen.floorV;
    if (mask & PART_COLLECTION_OFFER) stamp += c.collectionOffers.version;
    if (mask & PART_TRAIT_OFFERS) stamp += c.traitOffers.version;
    if (mask & PART_LISTINGS) stamp += c.listings.version;
    if (mask & PART_TRAIT_FLOORS) stamp += seen.traitFloorsV;
    if (mask & PART_TRAITS) stamp += seen.traitsV;
    return stamp;
  }

  function settled(): boolean {
    for (const c of states.values()) if (c.running !== null) return false;
    if (stopped || !started) return true;
    const now = clock.now();
    for (const c of states.values()) if (dueKind(c, now) !== undefined) return false;
    return true;
  }

  async function whenIdle(): Promise<void> {
    for (;;) {
      // a replay asks whenever something is left to settle: loops, no arrays of the states
      const running: Promise<void>[] = [];
      for (const c of states.values()) if (c.running !== null) running.push(c.running);
      if (running.length === 0) {
        const now = clock.now();
        let due = false;
        for (const c of states.values()) {
          if (dueKind(c, now) === undefined) continue;
          due = true;
          break;
        }
        if (!due || stopped || !started) return;
        arm();
        if (runningCount() === 0) return;
        continue;
      }
      await Promise.allSettled(running);
    }
  }

  return {
    async start() {
      if (started || stopped) return;
      started = true;
      const now = clock.now();
      for (const c of states.values()) for (const k of REFRESH_KINDS) dueAt(c, k, now);
      arm();
    },

    apply,
    snapshot,

    markStreamFresh(slug, at) {
      for (const c of selected(slug)) {
        if (at > c.streamFreshAt) c.streamFreshAt = at;
      }
    },

    setStreamStatus(slug, status) {
      for (const c of selected(slug)) {
        if (c.streamStale !== status.stale) c.version++;
        c.streamStale = status.stale;
        if (status.at !== undefined && status.at > c.streamFreshAt) c.streamFreshAt = status.at;
      }
    },

    requestRefresh(slug, kinds = REFRESH_KINDS) {
      for (const c of selected(slug)) for (const k of kinds) ask(c, k);
    },

    async refreshNow(slug, kinds = REFRESH_KINDS) {
      if (stopped) return;
      const list = selected(slug);
      // Wait for what is running first, so the runs below start after now.
      await Promise.allSettled(list.map((c) => c.running).filter((p) => p !== null));
      const now = clock.now();
      for (const c of list) for (const k of kinds) dueAt(c, k, now);
      if (!started) {
        await Promise.allSettled(list.map((c) => c.running ?? run(c)));
        return;
      }
      for (const c of list) if (!c.running) void run(c);
      await Promise.allSettled(list.map((c) => c.running).filter((p) => p !== null));
    },

    whenIdle,
    settled,
    changeStamp,

    status() {
      const now = clock.now();
      return Object.freeze({
        running: started && !stopped,
        plan,
        ignoredEvents,
        unknownSymbols: Object.freeze([...unknownSymbols]),
        collections: Object.freeze(
          [...states.values()].map((c) => {
            const f = freshness(c, now);
            const kinds = perKind(() => null) as unknown as Record<RefreshKind, KindStatus>;
            for (const k of REFRESH_KINDS) {
              kinds[k] = Object.freeze({
                lastOkAt: c.lastOkAt[k],
                nextDueAt: Number.isFinite(c.due[k]) ? c.due[k] : null,
                failures: c.failures[k],
                lastError: c.lastError[k],
                intervalMs: plan.intervals[k],
              });
            }
            return Object.freeze({
              slug: c.slug,
              ageMs: f.ageMs,
              stale: f.stale,
              streamStale: f.streamStale,
              refreshing: c.running !== null,
              floorRelearning: c.floorRelearning,
              eventsApplied: c.eventsApplied,
              listings: c.listings.size,
              collectionOffers: c.collectionOffers.size,
              traitOffers: c.traitOffers.size,
              kinds: Object.freeze(kinds),
            });
          }),
        ),
      });
    },

    async stop() {
      if (stopped) {
        await Promise.allSettled([...states.values()].map((c) => c.running).filter((p) => p !== null));
        return;
      }
      stopped = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      abort.abort();
      await Promise.allSettled([...states.values()].map((c) => c.running).filter((p) => p !== null));
    },
  };
}

export type { Provenance };
