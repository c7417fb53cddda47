// seller: lists the NFTs other strategies acquired — at a markup over their cost, just under the
// floor, or the higher of both — reprices when the floor moves and before expiry, accepts the best
// offer when its net proceeds beat the listing's, and after a holding time lets go below cost (a
// stop-loss, down to a share of the floor).
//
// Rules (see strategies/README.md):
// - Prices are per unit, what the buyer pays; "net" is that less the fees a sale pays (marketplace +
//   required creator fees): the collection's own (the snapshot's sellerFeeBps) once the daemon
//   knows them, `collectionFeeBps` where the config names a collection's, else `feeBps`.
// - Bounds, never crossed: the cost bound (net ≥ unit cost × (1 + minProfitBps)) unless the
//   stop-loss applies, and `maxUnderFloorBps` under the market floor (risk's own cap, mirrored).
// - The reference floor is the cheapest listing that is NOT ours (by order hash, maker and NFT):
//   our listings in a collection all follow that same reference, so they never undercut each other
//   (nor themselves) and do not race down. When the market floor is our own listing, the cheapest
//   other listing the view knows is used, else the last floor of others remembered (fresh).
// - One listing per NFT: an NFT listed by another strategy (or by hand) is left alone; an NFT whose
//   listing or sale is in flight is skipped until the intent's result arrives.
import {
  acceptOffer,
  type CollectionSnapshot,
  defineStrategy,
  type Holding,
  type Intent,
  listingTarget,
  type MarketEvent,
  movedBy,
  netOfFees,
  nftKey,
  type OrderHash,
  type OwnOrder,
  type PaymentToken,
  paymentTokenSchema,
  placeListing,
  replaceListing,
  type StrategyContext,
  slugSchema,
  toScore,
  traitKey,
  z,
} from '../src/strategy.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** An intent without a result after this long no longer blocks its NFT. */
const PENDING_MS = 5 * MINUTE;
/** An offer whose acceptance failed or was refused is not tried again for this long. */
const REFUSED_MS = 10 * MINUTE;
const ETH_LIKE = new Set(['ETH', 'WETH']);
const bpsSchema = (min: number, max: number) => z.number().int().min(min).max(max);

const params = z
  .strictObject({
    /** Sell what these strategies acquired; absent = every holding (also ones of no known strategy). */
    fromStrategies: z
      .array(z.string().min(1))
      .min(1, 'name at least one strategy id, or leave it out')
      .optional(),
    /** Only these collections; absent = every collection we hold. */
    collections: z.array(slugSchema).min(1, 'name at least one collection, or leave it out').optional(),
    /** markup: cost + markupBps; floor: undercutBps under the floor; max: the higher of both. */
    pricing: z.enum(['markup', 'floor', 'max']).default('max'),
    /** Net proceeds over the unit cost (bps). */
    markupBps: bpsSchema(0, 100_000).default(1_000),
    /** Under the reference floor (bps). */
    undercutBps: bpsSchema(0, 5_000).default(100),
    /** The cost bound: least net profit over the unit cost outside a stop-loss (bps). */
    minProfitBps: bpsSchema(0, 10_000).default(0),
    /**
     * Marketplace + creator fees taken from the seller (bps) while a collection's own are not known
     * (the snapshot's sellerFeeBps: the daemon reads them at start); overestimating is the safe side.
     */
    feeBps: bpsSchema(0, 5_000).default(500),
    /** Per-collection fees (bps) that win over the collection's own and feeBps. */
    collectionFeeBps: z.record(z.string(), bpsSchema(0, 5_000)).default({}),
    /** The listings' currency; ETH (the zero address) by default. */
    paymentToken: paymentTokenSchema.prefault({
      address: '0x0000000000000000000000000000000000000000',
      symbol: 'ETH',
      decimals: 18,
    }),
    expiryMinutes: z.number().int().min(1).max(43_200).default(30),
    /** Relist (replace at the current price with a new expiry) this long before expiry. */
    relistBeforeMinutes: z.number().int().min(0).max(1_440).default(5),
    /** Reprice when the wanted price moved by at least this much from the listed one (bps). */
    repriceBps: bpsSchema(1, 10_000).default(200),
    /** Accept an offer whose net beats the listing's net by this much (bps; negative: by less). */
    acceptMarginBps: bpsSchema(-5_000, 10_000).default(0),
    /** Hours of holding after which the listing follows the floor and may go below cost; null: never. */
    stopLossAfterHours: z.number().positive().max(8_760).nullable().default(24),
    /** In a stop-loss, never below this share of the reference floor (bps of it). */
    stopLossFloorBps: bpsSchema(1, 10_000).default(9_000),
    /** risk.maxUnderFloorBps of the config (risk refuses a sale further under the floor). */
    maxUnderFloorBps: bpsSchema(0, 10_000).default(1_500),
    /** A floor older than this is not used (ms). */
    maxFloorAgeMs: z.number().int().min(1_000).default(600_000),
    tickCron: z.string().default('*/30 * * * * *'),
  })
  .superRefine((p, ctx) => {
    if (p.relistBeforeMinutes >= p.expiryMinutes)
      ctx.addIssue({
        code: 'custom',
        path: ['relistBeforeMinutes'],
        message: `relistBeforeMinutes (${p.relistBeforeMinutes}) must be less than expiryMinutes (${p.expiryMinutes})`,
      });
    if (p.undercutBps > p.maxUnderFloorBps)
      ctx.addIssue({
        code: 'custom',
        path: ['undercutBps'],
        message: `undercutBps (${p.undercutBps}) must not exceed maxUnderFloorBps (${p.maxUnderFloorBps}): risk refuses listings further under the floor`,
      });
    if (p.stopLossFloorBps < 10_000 - p.maxUnderFloorBps)
      ctx.addIssue({
        code: 'custom',
        path: ['stopLossFloorBps'],
        message: `stopLossFloorBps (${p.stopLossFloorBps}) must be at least ${10_000 - p.maxUnderFloorBps} (10000 − maxUnderFloorBps): risk refuses sales further under the floor`,
      });
  });

type Params = z.output<typeof params>;
type Ctx = StrategyContext<Params>;

/** An item offer seen on the stream for an NFT we hold (JSON state). */
interface SeenOffer {
  h: string;
  /** Price per unit. */
  p: string;
  a: string;
  s: string;
  d: number;
  e: number | null;
  m: string;
}

interface Pending {
  t: number;
  target: string;
}

interface Offer {
  orderHash: OrderHash;
  unit: bigint;
  token: PaymentToken;
  what: string;
}

interface Floors {
  /** Cheapest listing not ours: what our prices follow. */
  ref: bigint;
  /** The market floor as risk sees it (may be ours): the under-floor cap is measured from it. */
  raw: bigint;
}

interface Mine {
  orderHash: OrderHash;
  price: bigint;
  expiresAt: number | null;
}

interface Plan {
  price: bigint;
  stopLoss: string | undefined;
  /** Least price per unit a listing may have (its bounds). */
  listLower: bigint;
  /** Least net per unit an accepted offer may bring. */
  netLower: bigint;
  /** Net per unit of the cost bound (below it an accepted offer is a stop-loss). */
  costNet: bigint;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
const max = (a: bigint, b: bigint): bigint => (b > a ? b : a);
const lower = (s: string | null | undefined): string => (s ?? '').toLowerCase();

/** Same money: equal decimals and the same token, ETH and WETH counting as one. */
function sameMoney(a: PaymentToken, b: PaymentToken): boolean {
  if (a.decimals !== b.decimals) return false;
  if (a === b || a.address === b.address) return true;
  const x = moneyOf(a);
  const y = moneyOf(b);
  return x.address === y.address || (x.ethLike && y.ethLike);
}
/** A token's address in lower case and whether it is ETH or WETH (once per token object). */
const money = new WeakMap<PaymentToken, { readonly address: string; readonly ethLike: boolean }>();
function moneyOf(t: PaymentToken): { readonly address: string; readonly ethLike: boolean } {
  return (
    money.get(t) ??
    put(money, t, { address: lower(t.address), ethLike: ETH_LIKE.has(t.symbol.toUpperCase()) })
  );
}

/** Keeps `v` under `k` in a memo (a Map or WeakMap) and returns it: `m.get(k) ?? put(m, k, make)`. */
function put<K, V>(m: { set(k: K, v: V): unknown }, k: K, v: V): V {
  m.set(k, v);
  return v;
}

/**
 * The fees a sale in `collection` pays (bps): the config's for it, else the collection's own (the
 * snapshot's; at or over 10,000 a sale nets nothing: returned as is), else `feeBps`.
 */
function feeOf(p: Params, collection: string, col: CollectionSnapshot | undefined): bigint {
  const fees = feesOf.get(p) ?? put(feesOf, p, new Map<string, bigint | null>());
  let own = fees.get(collection);
  if (own === undefined) {
    const named = p.collectionFeeBps[collection];
    own = put(fees, collection, named !== undefined ? BigInt(named) : null);
  }
  return own ?? col?.sellerFeeBps ?? BigInt(p.feeBps);
}
const feesOf = new WeakMap<Params, Map<string, bigint | null>>();

/** Least gross price whose net (netOfFees) is at least `net`; fees under 10,000 bps (see partOf). */
const grossFor = (net: bigint, fee: bigint): bigint => ceilDiv(net * 10_000n, 10_000n - fee);

/** What is ours in the market: order hashes (any strategy's; our listings) and the NFTs we hold. */
interface Ours {
  /** Whether a hash is one of our orders (all strategies', as the snapshot and our own list have them). */
  order(hash: string): boolean;
  /** Hashes of the listings on what we hold. */
  readonly listed: ReadonlySet<string>;
  /** NFT keys we hold (lower case). */
  readonly keys: ReadonlySet<string>;
}

/** Our order hashes in lower case, from the lists (built when first asked: a known maker rarely needs it). */
class OrderHashes {
  #set: Set<string> | undefined;
  constructor(
    readonly market: readonly OwnOrder[],
    readonly own: readonly OwnOrder[],
  ) {}
  has(hash: string): boolean {
    if (this.#set === undefined) {
      const set = new Set<string>();
      for (const x of this.market) set.add(lower(x.orderHash));
      for (const x of this.own) set.add(lower(x.orderHash));
      this.#set = set;
    }
    return this.#set.has(hash) || this.#set.has(lower(hash));
  }
}

function oursOf(ctx: Ctx): Ours {
  // the same lists give the same answer (they are rebuilt on any change); the orders' part is kept
  // while our orders stand, whatever the holdings do
  const market = ctx.market.ownOrders;
  const own = ctx.ownOrders;
  const held = ctx.holdings.all();
  const had = oursMemo.get(market);
  if (had !== undefined && had.own === own && had.held === held) return had.ours;
  const orders = had !== undefined && had.own === own ? had.orders : new OrderHashes(market, own);
  const { listed, keys } = heldSetsOf(held);
  const ours: Ours = { order: (hash) => orders.has(hash), listed, keys };
  oursMemo.set(market, { own, held, orders, ours });
  return ours;
}
const oursMemo = new WeakMap<object, { own: unknown; held: unknown; orders: OrderHashes; ours: Ours }>();

/** The holdings' part of `Ours`: the same sets for the same list (all()'s, until a holding changes). */
function heldSetsOf(held: readonly Holding[]): Pick<Ours, 'listed' | 'keys'> {
  const had = heldSets.get(held);
  if (had !== undefined) return had;
  const listed = new Set<string>();
  const keys = new Set<string>();
  for (const h of held) {
    keys.add(keysOfHolding(h).lower);
    if (h.listedBy !== null) listed.add(lower(h.listedBy.orderHash));
  }
  return put(heldSets, held, { listed, keys });
}
const heldSets = new WeakMap<readonly Holding[], Pick<Ours, 'listed' | 'keys'>>();

/** Whether isOurs answers from the maker alone (it and our wallet known), not from `Ours`. */
const byMaker = (ctx: Ctx, maker: string | null): maker is string => maker !== null && ctx.wallet !== null;

/**
 * Whether an order is ours: its maker is our wallet — an order whose maker is known and not our
 * wallet is not ours, whatever else — or, its maker unknown (or our wallet not), its hash is one
 * of our orders or listings.
 */
function isOurs(ctx: Ctx, ours: Ours, hash: string | null, maker: string | null): boolean {
  const w = ctx.wallet;
  if (byMaker(ctx, maker) && w !== null)
    return maker === w || (maker.length === w.length && lower(maker) === lower(w));
  return hash !== null && (ours.listed.has(hash) || ours.listed.has(lower(hash)) || ours.order(hash));
}

/** The reference floor (cheapest listing not ours) and the raw market floor, or null: do nothing. */
function floorsOf(ctx: Ctx, col: CollectionSnapshot, ours: Ours): Floors | null {
  const p = ctx.params;
  const f = col.floor;
  // risk sells only against a fresh floor; a floor being re-learned is only an upper bound
  if (col.stale || col.floorRelearning || f === null || ctx.now - f.learnedAt > p.maxFloorAgeMs) return null;
  if (!sameMoney(f.value.paymentToken, p.paymentToken) || f.value.price <= 0n) return null;
  const raw = f.value.price;
  const remembered = ctx.state.get<Record<string, { p: string; at: number }>>('floors') ?? {};
  if (!isOurs(ctx, ours, f.value.orderHash, f.value.maker)) {
    const r = remembered[col.slug];
    // saved (set) when it changes or a quarter of its age limit on, else only its time moves in
    // memory: a restart finds it at most that much older, a check that only errs to caution
    if (r === undefined || r.p !== String(raw) || ctx.now - r.at > p.maxFloorAgeMs / 4) {
      remembered[col.slug] = { p: raw.toString(), at: ctx.now };
      ctx.state.set('floors', remembered);
    } else r.at = ctx.now;
    return { ref: raw, raw };
  }
  // the floor is our own listing: follow the cheapest other listing, never ourselves
  let best: bigint | null = null;
  for (const [key, level] of col.bestListings) {
    const l = level.value;
    if (ours.keys.has(lower(key)) || isOurs(ctx, ours, l.orderHash, l.maker)) continue;
    if (l.expiresAt !== null && l.expiresAt <= ctx.now) continue;
    if (!sameMoney(l.paymentToken, p.paymentToken)) continue;
    if (best === null || l.price < best) best = l.price;
  }
  if (best !== null) return { ref: best, raw };
  const r = remembered[col.slug];
  if (r !== undefined && ctx.now - r.at <= p.maxFloorAgeMs) return { ref: BigInt(r.p), raw };
  return null;
}

/** Our open listings by NFT key (lower case), the first of each NFT as the list has them. */
function openListings(ctx: Ctx): ReadonlyMap<string, OwnOrder> {
  // the same list (until our orders change) gives the same map
  const own = ctx.ownOrders;
  let out = openMemo.get(own);
  if (out !== undefined) return out;
  const m = new Map<string, OwnOrder>();
  for (const o of own)
    if (o.side === 'listing' && o.status === 'open' && o.nftKey !== null) {
      const k = lower(o.nftKey);
      if (!m.has(k)) m.set(k, o);
    }
  out = m;
  openMemo.set(own, out);
  return out;
}
const openMemo = new WeakMap<readonly OwnOrder[], ReadonlyMap<string, OwnOrder>>();

/** Our standing listing of this NFT; 'skip' while a listing not ours (or not cleared yet) stands. */
function listingOf(
  ctx: Ctx,
  h: Holding,
  keys: HoldingKeys,
  open: ReadonlyMap<string, OwnOrder>,
): Mine | 'skip' | null {
  const own = open.get(keys.lower);
  // our own order entry is the listing as decide reads it (the same object while it stands)
  if (own !== undefined && (own.expiresAt === null || own.expiresAt > ctx.now)) return own;
  // another strategy's listing, or ours gone but not cleared yet: risk would refuse a second one
  return h.listedBy !== null ? 'skip' : null;
}

/** What a holding's plan takes from its cost and the fees (the same while they are). */
interface CostRules {
  readonly fee: bigint;
  readonly costNet: bigint;
  readonly costBound: bigint;
  readonly markupRule: bigint;
}
const costRules = new WeakMap<Params, WeakMap<Holding, CostRules>>();
function costRulesOf(p: Params, h: Holding, fee: bigint): CostRules {
  const byHolding = costRules.get(p) ?? put(costRules, p, new WeakMap<Holding, CostRules>());
  const had = byHolding.get(h);
  if (had !== undefined && had.fee === fee) return had;
  const unitCost = ceilDiv(h.costBasis, h.quantity);
  const costNet = ceilDiv(unitCost * BigInt(10_000 + p.minProfitBps), 10_000n);
  return put(byHolding, h, {
    fee,
    costNet,
    costBound: grossFor(costNet, fee),
    markupRule: grossFor(ceilDiv(unitCost * BigInt(10_000 + p.markupBps), 10_000n), fee),
  });
}

/** What a plan takes from the floors (the same for every holding of the collection). */
interface FloorRules {
  readonly underBound: bigint;
  readonly floorRule: bigint;
}
const floorRules = new WeakMap<Floors, FloorRules>();
function floorRulesOf(p: Params, floors: Floors): FloorRules {
  return (
    floorRules.get(floors) ??
    put(floorRules, floors, {
      underBound: ceilDiv(floors.raw * BigInt(10_000 - p.maxUnderFloorBps), 10_000n),
      floorRule: (floors.ref * BigInt(10_000 - p.undercutBps)) / 10_000n,
    })
  );
}

function plan(ctx: Ctx, h: Holding, floors: Floors, fee: bigint): Plan {
  const p = ctx.params;
  const { costNet, costBound, markupRule } = costRulesOf(p, h, fee);
  const { underBound, floorRule } = floorRulesOf(p, floors);
  const heldMs = ctx.now - h.acquiredAt;
  const aged = p.stopLossAfterHours !== null && heldMs >= p.stopLossAfterHours * HOUR;
  if (!aged) {
    const rule =
      p.pricing === 'markup' ? markupRule : p.pricing === 'floor' ? floorRule : max(markupRule, floorRule);
    return {
      price: max(max(rule, costBound), underBound),
      stopLoss: undefined,
      listLower: max(costBound, underBound),
      netLower: max(costNet, underBound),
      costNet,
    };
  }
  // held long enough: follow the floor whatever `pricing` says, down to stopLossFloorBps of it
  const slBound = max(ceilDiv(floors.ref * BigInt(p.stopLossFloorBps), 10_000n), underBound);
  const price = max(floorRule, slBound);
  return {
    price,
    stopLoss:
      price < costBound
        ? `held ${Math.floor(heldMs / HOUR)} h (stop-loss after ${p.stopLossAfterHours} h): ${price} under the cost bound ${costBound}`
        : undefined,
    listLower: slBound,
    netLower: slBound,
    costNet,
  };
}

/** Whether an offer (not ours, standing, not refused, in our money) beats the best so far. */
function beats(
  ctx: Ctx,
  h: Holding,
  ours: Ours,
  refused: Readonly<Record<string, number>> | undefined,
  bestUnit: bigint,
  hash: string | null,
  maker: string | null,
  unit: bigint,
  token: PaymentToken,
  expiresAt: number | null,
): hash is string {
  if (hash === null || unit <= 0n || unit <= bestUnit) return false;
  if (isOurs(ctx, ours, hash, maker)) return false;
  if ((expiresAt !== null && expiresAt <= ctx.now) || refused?.[lower(hash)] !== undefined) return false;
  return sameMoney(token, h.costToken) && sameMoney(token, ctx.params.paymentToken);
}

/** The best offer not ours on this NFT: the collection's, its traits' (`traits`), the item offer seen (`seen`). */
function bestOffer(
  ctx: Ctx,
  h: Holding,
  col: CollectionSnapshot,
  seen: SeenOffer | undefined,
  traits: Traits | undefined,
  ours: Ours,
): Offer | null {
  const refused = ctx.state.get<Record<string, number>>('refused');
  // the best so far (the first of equal ones); what it is, in words, only for the one chosen
  let best: Offer | null = null;
  let bestUnit = 0n;
  let trait: { readonly type: string; readonly value: string } | null = null;
  const co = col.bestCollectionOffer?.value;
  if (
    co !== undefined &&
    beats(ctx, h, ours, refused, bestUnit, co.orderHash, co.maker, co.price, co.paymentToken, co.expiresAt)
  ) {
    best = {
      orderHash: co.orderHash as OrderHash,
      unit: co.price,
      token: co.paymentToken,
      what: 'collection offer',
    };
    bestUnit = co.price;
  }
  if (traits !== undefined) {
    const tk = traitKeysOfList(traits);
    for (let i = 0; i < traits.length; i++) {
      const to = col.bestTraitOffers.get(tk[i] as string)?.value;
      if (
        to !== undefined &&
        beats(
          ctx,
          h,
          ours,
          refused,
          bestUnit,
          to.orderHash,
          to.maker,
          to.price,
          to.paymentToken,
          to.expiresAt,
        )
      ) {
        best = { orderHash: to.orderHash as OrderHash, unit: to.price, token: to.paymentToken, what: '' };
        bestUnit = to.price;
        trait = traits[i] as { readonly type: string; readonly value: string };
      }
    }
  }
  if (seen !== undefined) {
    const unit = seenUnit(seen);
    const token = { address: seen.a, symbol: seen.s, decimals: seen.d } as PaymentToken;
    if (beats(ctx, h, ours, refused, bestUnit, seen.h, seen.m, unit, token, seen.e)) {
      best = { orderHash: seen.h as OrderHash, unit, token, what: 'item offer' };
      trait = null;
    }
  }
  if (best !== null && trait !== null && best.what === '')
    best.what = `trait offer ${trait.type}=${trait.value}`;
  return best;
}

/**
 * Per strategy state: before `at` no entry of 'pending', 'refused' or 'offers' ends, and `held`
 * are the holdings its offers were last checked against — prune has nothing to drop until then.
 * Whatever adds an entry calls `endsAt`.
 */
const pruneMemo = new WeakMap<object, { at: number; held: unknown }>();

/** An entry ending at `at` was added to the state: prune by then. */
function endsAt(ctx: Ctx, at: number): void {
  const m = pruneMemo.get(ctx.state);
  if (m !== undefined && at < m.at) m.at = at;
}

/** Drops what no longer matters: results that never came, refusals past, offers expired or not held. */
function prune(ctx: Ctx): void {
  const held = ctx.holdings.all();
  const memo = pruneMemo.get(ctx.state);
  if (memo !== undefined && ctx.now < memo.at && memo.held === held) return;
  let at = Number.POSITIVE_INFINITY;
  const pending = ctx.state.get<Record<string, Pending>>('pending');
  let n = 0;
  for (const k in pending) {
    const t = (pending[k] as Pending).t;
    if (ctx.now - t > PENDING_MS) {
      delete pending[k];
      n++;
    } else if (t + PENDING_MS < at) at = t + PENDING_MS;
  }
  if (n > 0) ctx.state.set('pending', pending);
  const refused = ctx.state.get<Record<string, number>>('refused');
  n = 0;
  for (const k in refused) {
    const end = refused[k] as number;
    if (end <= ctx.now) {
      delete refused[k];
      n++;
    } else if (end < at) at = end;
  }
  if (n > 0) ctx.state.set('refused', refused);
  const offers = ctx.state.get<Record<string, SeenOffer>>('offers');
  n = 0;
  for (const k in offers) {
    const o = offers[k] as SeenOffer;
    if ((o.e !== null && o.e <= ctx.now) || ctx.holdings.get(k) === undefined) {
      delete offers[k];
      n++;
    } else if (o.e !== null && o.e < at) at = o.e;
  }
  if (n > 0) ctx.state.set('offers', offers);
  pruneMemo.set(ctx.state, { at, held });
}

/** What this instance sells, by holding (holdings are new objects when they change). */
const wantedOf = new WeakMap<Params, WeakMap<Holding, boolean>>();

function wanted(p: Params, h: Holding): boolean {
  const memo = wantedOf.get(p) ?? put(wantedOf, p, new WeakMap<Holding, boolean>());
  return memo.get(h) ?? put(memo, h, wantedNow(p, h));
}

/** What this instance sells of `all` (in `only`'s collection, when given); the same list until the holdings change. */
function heldOf(p: Params, all: readonly Holding[], only: string | undefined): readonly Holding[] {
  let memo = heldMemo.get(p);
  // kept for the newest list only: all() hands out a new one when a holding changes
  if (memo === undefined || memo.all !== all) memo = put(heldMemo, p, { all, byCollection: new Map() });
  const key = only ?? '';
  return (
    memo.byCollection.get(key) ??
    put(
      memo.byCollection,
      key,
      all.filter((h) => (only === undefined || h.collection === only) && wanted(p, h)),
    )
  );
}
const heldMemo = new WeakMap<
  Params,
  { readonly all: readonly Holding[]; readonly byCollection: Map<string, readonly Holding[]> }
>();

function wantedNow(p: Params, h: Holding): boolean {
  if (h.quantity <= 0n) return false;
  if (p.collections !== undefined && !p.collections.includes(h.collection as (typeof p.collections)[number]))
    return false;
  if (p.fromStrategies !== undefined && (h.strategyId === null || !p.fromStrategies.includes(h.strategyId)))
    return false;
  return sameMoney(h.costToken, p.paymentToken);
}

/**
 * Per strategy instance, per NFT held: what its last evaluation read when it asked for nothing,
 * and the least net an offer needed to be accepted then. An event decision passes over a holding
 * whose inputs are all the same (by identity: the market view, the holdings and the state hand
 * out the same objects until they change) — an offer that still nets less than that least counts
 * as the same — until time alone could change its answer (`until`). Ticks read the memo too.
 */
interface Quiet {
  readonly h: Holding;
  /** The floors read (moved on when they move and the answer stays: see decide). */
  ref: bigint;
  raw: bigint;
  /** The fees a sale pays there (bps): the plan and every bound follow them. */
  readonly fee: bigint;
  /** Our listing as read (all undefined: none). */
  readonly mineHash: string | undefined;
  readonly minePrice: bigint | undefined;
  readonly mineExpiresAt: number | null | undefined;
  /** The collection's best offer, the item offer seen, and per trait of `traits` its best offer. */
  readonly co: OfferInput;
  readonly seen: OfferInput;
  /** The NFT's traits (undefined: not known). */
  readonly traits: Traits | undefined;
  readonly traitOffers: readonly OfferInput[];
  /** Least price per unit an offer must have to be accepted (it nets the least acceptance needed). */
  readonly needGross: bigint;
  /**
   * Until when time alone changes nothing (the relist window, the stop-loss age, a refusal's end):
   * set when the holding is remembered (quietOf leaves it at now, no time at all).
   */
  until: number;
  /**
   * What the offers above were last found to read as, under `ours` and `wallet`: the collection's
   * best offer, the item offer seen and the trait offers' map. The same objects (a level, an entry
   * of 'offers' and a map are replaced, never changed) under the same two read the same and are
   * not read again; stillQuiet sets them anew each time it finds all the offers the same.
   */
  ours: Ours;
  wallet: string | null;
  /** Whether an offer's `ours` above was read off our orders (else `ours` need not be the same). */
  readonly oursRead: boolean;
  coAt: object | null;
  seenAt: SeenOffer | undefined;
  traitMap: object | null;
}
/**
 * An offer among a holding's inputs: null when there is none, 'low' when under `needGross` per
 * unit (it could not be accepted, whoever made it), else the offer and whether it is ours.
 */
type OfferInput = null | 'low' | { readonly level: object; readonly ours: boolean; readonly byHash: boolean };
/** Whether an offer input's `ours` was read off our orders (its maker or our wallet not known). */
const readsOurs = (o: OfferInput): boolean => o !== null && o !== 'low' && o.byHash;
/** Whether any offer of a holding's inputs reaches its `needGross` (only such an offer may be accepted). */
function anyOfferReaches(q: Quiet): boolean {
  if (reaches(q.co) || reaches(q.seen)) return true;
  for (const o of q.traitOffers) if (reaches(o)) return true;
  return false;
}
const reaches = (o: OfferInput): boolean => o !== null && o !== 'low';
type Traits = readonly { readonly type: string; readonly value: string }[];

/** The highest price per unit of a collection's best trait offers (0: none), once per map. */
function topTraitOffer(offers: CollectionSnapshot['bestTraitOffers']): bigint {
  let top = topTraitOffers.get(offers);
  if (top === undefined) {
    top = 0n;
    for (const o of offers.values()) if (o.value.price > top) top = o.value.price;
    topTraitOffers.set(offers, top);
  }
  return top;
}
/** Maps are replaced, never changed: one answer per map. */
const topTraitOffers = new WeakMap<object, bigint>();
const quietHoldings = new WeakMap<object, Map<string, Quiet>>();
/** The trait keys of an NFT's traits (built once per traits list). */
const traitKeysOf = new WeakMap<object, readonly string[]>();
function traitKeysOfList(traits: Traits): readonly string[] {
  return (
    traitKeysOf.get(traits) ??
    put(
      traitKeysOf,
      traits,
      traits.map((t) => traitKey(t.type, t.value)),
    )
  );
}
/** A holding's NFT key, as given and in lower case (holdings are new objects when they change). */
interface HoldingKeys {
  readonly key: string;
  readonly lower: string;
}
const keysOf = new WeakMap<Holding, HoldingKeys>();
function keysOfHolding(h: Holding): HoldingKeys {
  const had = keysOf.get(h);
  if (had !== undefined) return had;
  const key = nftKey(h.nft);
  return put(keysOf, h, { key, lower: lower(key) });
}

/** An offer as an input of a holding that needs `needGross` per unit (see OfferInput). */
function offerInput(
  ctx: Ctx,
  ours: Ours,
  needGross: bigint,
  level: object,
  hash: string | null,
  maker: string | null,
  unit: bigint,
): OfferInput {
  if (unit < needGross) return 'low';
  return { level, ours: isOurs(ctx, ours, hash, maker), byHash: !byMaker(ctx, maker) };
}

/** Whether an offer is the same input as `was` was (see OfferInput) for a holding needing `needGross`. */
function sameOffer(
  ctx: Ctx,
  ours: Ours,
  needGross: bigint,
  was: OfferInput,
  level: object,
  hash: string | null,
  maker: string | null,
  unit: bigint,
): boolean {
  if (unit < needGross) return was === 'low';
  return was !== null && was !== 'low' && was.level === level && was.ours === isOurs(ctx, ours, hash, maker);
}

/**
 * What the evaluation of holding `h` reads besides time (see `quietHoldings`), remembered when it
 * asks for nothing: an offer under `needGross` per unit enters as 'low'.
 */
function quietOf(
  ctx: Ctx,
  h: Holding,
  col: CollectionSnapshot,
  floors: Floors,
  fee: bigint,
  mine: Mine | null,
  seen: SeenOffer | undefined,
  traits: Traits | undefined,
  ours: Ours,
  needGross: bigint,
): Quiet {
  const co = col.bestCollectionOffer;
  const coInput =
    co === null
      ? null
      : offerInput(ctx, ours, needGross, co, co.value.orderHash, co.value.maker, co.value.price);
  const seenInput =
    seen === undefined ? null : offerInput(ctx, ours, needGross, seen, seen.h, seen.m, seenUnit(seen));
  const traitOffers: OfferInput[] = [];
  if (traits !== undefined)
    for (const k of traitKeysOfList(traits)) {
      const to = col.bestTraitOffers.get(k);
      traitOffers.push(
        to === undefined
          ? null
          : offerInput(ctx, ours, needGross, to, to.value.orderHash, to.value.maker, to.value.price),
      );
    }
  return {
    h,
    ref: floors.ref,
    raw: floors.raw,
    fee,
    mineHash: mine?.orderHash,
    minePrice: mine?.price,
    mineExpiresAt: mine?.expiresAt,
    co: coInput,
    seen: seenInput,
    traits,
    traitOffers,
    needGross,
    until: ctx.now,
    ours,
    wallet: ctx.wallet,
    oursRead: readsOurs(coInput) || readsOurs(seenInput) || traitOffers.some(readsOurs),
    coAt: co,
    seenAt: seen,
    traitMap: col.bestTraitOffers,
  };
}

/**
 * Whether holding `h` reads the same as when `last` was remembered (see `quietHoldings`), the
 * floors aside (decide compares them), read in the order of the cheapest first: it stops at the
 * first that differs. `seen` is the item offer seen on its NFT.
 */
function stillQuiet(
  ctx: Ctx,
  last: Quiet,
  h: Holding,
  col: CollectionSnapshot,
  fee: bigint,
  keys: HoldingKeys,
  mine: Mine | null,
  seen: SeenOffer | undefined,
  ours: Ours,
): boolean {
  if (last.h !== h || last.fee !== fee) return false;
  if (
    last.mineHash !== mine?.orderHash ||
    last.minePrice !== mine?.price ||
    last.mineExpiresAt !== mine?.expiresAt
  )
    return false;
  const need = last.needGross;
  // the offers last found the same (see Quiet.coAt) are, while ours and the wallet are
  const same = last.wallet === ctx.wallet && (last.ours === ours || !last.oursRead);
  const co = col.bestCollectionOffer;
  if (
    !(same && co === last.coAt) &&
    (co === null
      ? last.co !== null
      : !sameOffer(ctx, ours, need, last.co, co, co.value.orderHash, co.value.maker, co.value.price))
  )
    return false;
  if (
    !(same && seen === last.seenAt) &&
    (seen === undefined
      ? last.seen !== null
      : !sameOffer(ctx, ours, need, last.seen, seen, seen.h, seen.m, seenUnit(seen)))
  )
    return false;
  const traitMap = col.bestTraitOffers;
  // no trait offer there reaches `need`: none may be accepted, whatever the NFT's traits (then
  // neither they nor the memo's trait offers are read; an evaluation would find them all 'low')
  const traitsRead = topTraitOffer(traitMap) >= need;
  if (traitsRead) {
    const traits = ctx.nfts.get(keys.key)?.value;
    if (traits !== last.traits) return false;
    if (traits !== undefined && !(same && traitMap === last.traitMap)) {
      const tk = traitKeysOfList(traits);
      for (let i = 0; i < tk.length; i++) {
        const to = traitMap.get(tk[i] as string);
        const was = last.traitOffers[i] as OfferInput;
        if (
          to === undefined
            ? was !== null
            : !sameOffer(ctx, ours, need, was, to, to.value.orderHash, to.value.maker, to.value.price)
        )
          return false;
      }
    }
  }
  if (!same) {
    last.ours = ours;
    last.wallet = ctx.wallet;
  }
  if (last.coAt !== co) last.coAt = co;
  if (last.seenAt !== seen) last.seenAt = seen;
  // a map not read is no hint (the last one stays one while ours and the wallet do)
  if (traitsRead) last.traitMap = traitMap;
  else if (!same) last.traitMap = null;
  return true;
}

/** When the first refusal of an offer ends (after now): such an offer may be taken again then. */
function refusalsEnd(ctx: Ctx): number {
  let until = Number.POSITIVE_INFINITY;
  const refused = ctx.state.get<Record<string, number>>('refused');
  for (const k in refused) {
    const end = refused[k] as number;
    if (end > ctx.now && end < until) until = end;
  }
  return until;
}

/**
 * When time alone could change the answer for a holding that asks for nothing now (`refusals`:
 * refusalsEnd, the same for every holding of a decision).
 */
function quietUntil(ctx: Ctx, h: Holding, mine: Mine | null, refusals: number): number {
  const p = ctx.params;
  let until = refusals;
  // our listing enters its relist window
  if (mine !== null && mine.expiresAt !== null)
    until = Math.min(until, mine.expiresAt - p.relistBeforeMinutes * MINUTE);
  // the holding reaches the stop-loss age (past it, the plan no longer moves with time)
  if (p.stopLossAfterHours !== null) {
    const aged = h.acquiredAt + p.stopLossAfterHours * HOUR;
    if (aged > ctx.now) until = Math.min(until, aged);
  }
  return until;
}

/** A collection's part of a decision: the same for all its holdings. */
interface CollectionPart {
  readonly slug: string;
  readonly col: CollectionSnapshot | undefined;
  /**
   * Null: nothing to sell against there now (see floorsOf; not read for a collection not known, nor
   * where the fees take the whole price).
   */
  readonly floors: Floors | null;
  readonly fee: bigint;
}
function partOf(ctx: Ctx, slug: string, ours: Ours): CollectionPart {
  const col = ctx.market.collection(slug);
  const fee = feeOf(ctx.params, slug, col);
  return {
    slug,
    col,
    floors: col === undefined || fee >= 10_000n ? null : floorsOf(ctx, col, ours),
    fee,
  };
}

/** What our listing needs against the plan `want`: to be placed, repriced, relisted, or nothing (null). */
function actionOf(ctx: Ctx, mine: Mine | null, want: Plan): 'place' | 'reprice' | 'relist' | null {
  const p = ctx.params;
  if (mine === null) return 'place';
  // a floor move (up or down) of repriceBps, or a listing under its bounds, reprices
  if (mine.price < want.listLower || movedBy(mine.price, want.price, p.repriceBps)) return 'reprice';
  if (mine.expiresAt !== null && mine.expiresAt - ctx.now <= p.relistBeforeMinutes * MINUTE) return 'relist';
  return null;
}

/**
 * The least price per unit an offer must have to be accepted while our listing stands at
 * `listPrice`: its net reaches the plan's least and beats the listing's by acceptMarginBps.
 */
function needGrossOf(p: Params, want: Plan, listPrice: bigint, fee: bigint): bigint {
  const needNet = max(
    want.netLower,
    ceilDiv(netOfFees(listPrice, fee) * BigInt(10_000 + p.acceptMarginBps), 10_000n),
  );
  // an offer nets at least needNet exactly when its price per unit is at least this
  return grossFor(needNet, fee);
}

function decide(ctx: Ctx, only?: string): Intent[] {
  const p = ctx.params;
  // nothing of ours to sell there (an event of a collection we hold nothing of): nothing to do
  const held = heldOf(p, ctx.holdings.all(), only);
  if (held.length === 0) return [];
  prune(ctx);
  const pending = ctx.state.get<Record<string, Pending>>('pending') ?? {};
  const ours = oursOf(ctx);
  const open = openListings(ctx);
  const out: Intent[] = [];
  const offers = ctx.state.get<Record<string, SeenOffer>>('offers');
  /** Each collection's part, read when its first holding gets that far (see partOf). */
  const parts = new Map<string, CollectionPart>();
  let part: CollectionPart | undefined;
  const expiresAt = ctx.now + p.expiryMinutes * MINUTE;
  const quiet = quietHoldings.get(ctx.state) ?? put(quietHoldings, ctx.state, new Map<string, Quiet>());
  /** refusalsEnd, read once (the refusals do not change during a decision). */
  let refusals: number | undefined;
  for (const h of held) {
    const keys = keysOfHolding(h);
    const key = keys.lower;
    if (pending[key] !== undefined) continue;
    const mine = listingOf(ctx, h, keys, open);
    if (mine === 'skip') continue;
    // the holdings of a collection mostly follow one another (an event's are all of one)
    if (part === undefined || part.slug !== h.collection)
      part = parts.get(h.collection) ?? put(parts, h.collection, partOf(ctx, h.collection, ours));
    const { col, floors, fee } = part;
    if (col === undefined || floors === null) continue;
    const seen = offers?.[key];
    const last = quiet.get(key);
    let want: Plan | undefined;
    if (
      last !== undefined &&
      ctx.now < last.until &&
      stillQuiet(ctx, last, h, col, fee, keys, mine, seen, ours)
    ) {
      if (last.ref === floors.ref && last.raw === floors.raw) continue;
      // only the floors moved: the answer stays while the listing does and an offer needs what it
      // needed (the offers then read as remembered); the memo follows the floors
      want = plan(ctx, h, floors, fee);
      if (
        mine !== null &&
        actionOf(ctx, mine, want) === null &&
        needGrossOf(p, want, mine.price, fee) === last.needGross
      ) {
        last.ref = floors.ref;
        last.raw = floors.raw;
        continue;
      }
    }
    // remembered again below when it asks for nothing
    quiet.delete(key);
    want ??= plan(ctx, h, floors, fee);
    const unitCost = h.costBasis / h.quantity;

    // what our listing will be after this decision
    const action = actionOf(ctx, mine, want);
    const listPrice = action === null && mine !== null ? mine.price : want.price;
    // the least price per unit an offer must have to be accepted (see below), while the rest stands
    const needGross = needGrossOf(p, want, listPrice, fee);
    const traits = ctx.nfts.get(keys.key)?.value;
    const inputs = quietOf(ctx, h, col, floors, fee, mine, seen, traits, ours, needGross);
    // an offer under needGross is not accepted: the best is looked for only when one reaches it
    const offer = anyOfferReaches(inputs) ? bestOffer(ctx, h, col, seen, traits, ours) : null;
    if (offer !== null) {
      const offerNet = netOfFees(offer.unit, fee);
      const listNet = netOfFees(listPrice, fee);
      if (offerNet >= want.netLower && offerNet * 10_000n >= listNet * BigInt(10_000 + p.acceptMarginBps)) {
        const stopLoss =
          offerNet < want.costNet
            ? `held ${Math.floor((ctx.now - h.acquiredAt) / HOUR)} h (stop-loss after ${p.stopLossAfterHours} h): net ${offerNet} under the cost bound`
            : undefined;
        const intent = acceptOffer({
          orderHash: offer.orderHash,
          collection: h.collection,
          nft: h.nft,
          offerPrice: offer.unit,
          minProceeds: offerNet,
          paymentToken: offer.token,
          quantity: 1n,
          ...(stopLoss !== undefined ? { stopLoss } : {}),
          priority: 1 + toScore(offerNet > unitCost ? offerNet - unitCost : 0n, offer.token.decimals),
          reason: `${offer.what} ${offer.unit} nets ${offerNet}, listing nets ${listNet}`,
        });
        pending[key] = { t: ctx.now, target: intent.target };
        out.push(intent);
        continue;
      }
    }
    if (action === null) {
      refusals ??= refusalsEnd(ctx);
      inputs.until = quietUntil(ctx, h, mine, refusals);
      quiet.set(key, inputs);
      continue;
    }
    const priority = toScore(want.price > unitCost ? want.price - unitCost : 0n, p.paymentToken.decimals);
    const sl = want.stopLoss !== undefined ? { stopLoss: want.stopLoss } : {};
    const why = want.stopLoss ?? `${p.pricing} pricing, floor ${floors.ref}, unit cost ${unitCost}`;
    const intent =
      mine === null
        ? placeListing({
            collection: h.collection,
            nft: h.nft,
            price: want.price,
            paymentToken: p.paymentToken,
            quantity: h.quantity,
            expiresAt,
            ...sl,
            priority,
            reason: why,
          })
        : replaceListing({
            orderHash: mine.orderHash,
            price: want.price,
            expiresAt,
            target: listingTarget(h.nft),
            ...sl,
            priority,
            reason: `${action}: ${mine.price} -> ${want.price} (${why})`,
          });
    pending[key] = { t: ctx.now, target: intent.target };
    out.push(intent);
  }
  if (out.length > 0) {
    ctx.state.set('pending', pending);
    endsAt(ctx, ctx.now + PENDING_MS);
  }
  return out;
}

/** Remembers the best item offer (not ours, not expired) on an NFT we hold. */
function rememberItemOffer(ctx: Ctx, ev: MarketEvent): boolean {
  if (ev.kind !== 'item_offer' || ev.quantity <= 0n) return false;
  const key = lower(nftKey(ev.nft));
  if (ctx.holdings.get(nftKey(ev.nft)) === undefined) return false;
  if (isOurs(ctx, oursOf(ctx), ev.orderHash, ev.maker)) return false;
  if (ev.expiresAt !== null && ev.expiresAt <= ctx.now) return false;
  const unit = ev.price / ev.quantity;
  const offers = ctx.state.get<Record<string, SeenOffer>>('offers') ?? {};
  const prev = offers[key];
  if (prev !== undefined && (prev.e === null || prev.e > ctx.now) && BigInt(prev.p) >= unit) return false;
  offers[key] = {
    h: ev.orderHash,
    p: unit.toString(),
    a: ev.paymentToken.address,
    s: ev.paymentToken.symbol,
    d: ev.paymentToken.decimals,
    e: ev.expiresAt,
    m: ev.maker,
  };
  ctx.state.set('offers', offers);
  if (ev.expiresAt !== null) endsAt(ctx, ev.expiresAt);
  return true;
}

/** An item offer seen: its price per unit (parsed once per entry; entries are replaced, never changed). */
const seenUnits = new WeakMap<SeenOffer, bigint>();
function seenUnit(seen: SeenOffer): bigint {
  return seenUnits.get(seen) ?? put(seenUnits, seen, BigInt(seen.p));
}

function forgetOffer(ctx: Ctx, orderHash: string): boolean {
  const offers = ctx.state.get<Record<string, SeenOffer>>('offers');
  if (offers === undefined) return false;
  const hash = lower(orderHash);
  let n = 0;
  for (const k in offers) {
    const h = (offers[k] as SeenOffer).h;
    if (h === orderHash || (h.length === hash.length && lower(h) === hash)) {
      delete offers[k];
      n++;
    }
  }
  if (n > 0) ctx.state.set('offers', offers);
  return n > 0;
}

/** Every holding is evaluated afresh at the next decision (at start). */
const forgetInputs = (ctx: Ctx): void => {
  quietHoldings.delete(ctx.state);
  pruneMemo.delete(ctx.state);
};

export default defineStrategy({
  id: 'seller',
  version: '1.0.0',
  description:
    'Lists what other strategies acquired at a markup or just under the floor, reprices, accepts better offers, stop-loss after a holding time.',
  params,
  subscriptions: (p) => ({
    ...(p.collections !== undefined ? { collections: p.collections } : {}),
    // what decide reads (the other listings only while the floor is ours: the tick's), and the
    // item offers on what we hold, which it remembers
    changes: ['floor', 'collection_offer', 'trait_offers', 'holdings'],
    held: ['item_offer', 'cancel', 'order_invalidated'],
  }),
  schedules: (p) => [p.tickCron],
  init: (ctx) => {
    forgetInputs(ctx);
    return decide(ctx);
  },
  // each holding's memo says when time alone could change its answer (see quietHoldings)
  onTick: (ctx) => decide(ctx),
  onEvent(ctx, ev) {
    // the engine calls only when something decide reads changed (see subscriptions), or for item
    // offers and their ends on what we hold; a holding whose own inputs stand is passed over
    if (ev.kind === 'item_offer') rememberItemOffer(ctx, ev);
    if (ev.kind === 'cancel' || ev.kind === 'order_invalidated') forgetOffer(ctx, ev.orderHash);
    return decide(ctx, ev.collection);
  },
  onOrderUpdate(ctx, u) {
    const pending = ctx.state.get<Record<string, Pending>>('pending') ?? {};
    if (u.kind === 'intent_result') {
      const i = u.intent;
      if (i.kind !== 'place_listing' && i.kind !== 'replace_listing' && i.kind !== 'accept_offer') return [];
      // an unknown outcome keeps the NFT blocked until it is reconciled (or PENDING_MS)
      if (u.status !== 'unknown')
        for (const k in pending) if ((pending[k] as Pending).target === i.target) delete pending[k];
      if (i.kind === 'accept_offer') {
        forgetOffer(ctx, i.orderHash);
        if (u.status !== 'done' && u.status !== 'unknown') {
          const refused = ctx.state.get<Record<string, number>>('refused') ?? {};
          refused[lower(i.orderHash)] = ctx.now + REFUSED_MS;
          ctx.state.set('refused', refused);
          endsAt(ctx, ctx.now + REFUSED_MS);
        }
      }
      ctx.state.set('pending', pending);
      return [];
    }
    // our listing sold: forget the NFT (the holdings drop it once the fill is recorded)
    if (u.status === 'filled') {
      const key = lower(ctx.ownOrders.find((o) => o.orderHash === u.orderHash)?.nftKey);
      if (key !== '') {
        delete pending[key];
        const offers = ctx.state.get<Record<string, SeenOffer>>('offers') ?? {};
        delete offers[key];
        ctx.state.set('offers', offers);
        ctx.state.set('pending', pending);
      }
    }
    return [];
  },
});
