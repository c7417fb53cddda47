// trait-bidder: keeps trait offers at a distance below each trait's floor, for configured traits
// or every trait value with a floor. Top-of-book aware (outbids a competitor one step when it stays
// within the cap, leaves a trait alone when it cannot be on top), and ranks traits by the margin
// to their floor so that a short write budget goes to the best opportunities first.
import {
  amountSchema,
  budgetFor,
  cancelOrder,
  defineStrategy,
  type Intent,
  type MarketEvent,
  noteBudget,
  type OwnOrder,
  offerAction,
  offerTarget,
  paymentTokenSchema,
  placeOffer,
  planBid,
  replaceOffer,
  type StrategyContext,
  slugSchema,
  type TraitFloor,
  toScore,
  traitKey,
  z,
} from '../src/strategy.ts';

const traitSchema = z.strictObject({ type: z.string().min(1), value: z.string().min(1) });

const params = z.strictObject({
  collection: slugSchema,
  paymentToken: paymentTokenSchema,
  /** 'all' = every trait value with a floor; or a list of traits. */
  traits: z.union([z.literal('all'), z.array(traitSchema).min(1)]).default('all'),
  distanceBps: z.number().int().min(1).max(9_900).default(1_000),
  minDistanceBps: z.number().int().min(0).max(9_900).default(200),
  /** Highest price per item ever offered (18 decimals). */
  maxPrice: amountSchema(18),
  /** Traits whose bid would be below this are skipped (18 decimals). */
  minPrice: amountSchema(18).prefault('0'),
  outbidStep: amountSchema(18).prefault('0.0001'),
  /** Trait offers held at once (the best opportunities). */
  maxOffers: z.number().int().min(1).max(500).default(10),
  expiryMinutes: z.number().int().min(1).max(43_200).default(60),
  renewBeforeMinutes: z.number().int().min(0).max(1_440).default(10),
  repriceBps: z.number().int().min(1).max(10_000).default(100),
  maxFloorAgeMs: z.number().int().min(1_000).default(600_000),
  tickCron: z.string().default('* * * * *'),
});

type Params = z.output<typeof params>;
type Ctx = StrategyContext<Params>;

interface Candidate {
  type: string;
  value: string;
  floor: bigint;
  price: bigint;
  competitor: bigint | null;
  outbids: boolean;
  margin: bigint;
}

type FloorsByTrait = ReadonlyMap<
  string,
  { readonly type: string; readonly value: string; readonly floor: bigint }
>;

/** Lowest floor per trait value we bid on, in our token's decimals (the same until the trait floors change). */
function floorsByTrait(p: Params, floors: readonly TraitFloor[]): FloorsByTrait {
  let memo = floorsMemo.get(p);
  if (memo === undefined) {
    memo = new WeakMap();
    floorsMemo.set(p, memo);
  }
  const had = memo.get(floors);
  if (had !== undefined) return had;
  const dec = p.paymentToken.decimals;
  const wanted = wantedOf(p);
  const floorBy = new Map<string, { type: string; value: string; floor: bigint }>();
  for (const f of floors) {
    if (f.paymentToken.decimals !== dec) continue;
    const k = traitKey(f.traitType, f.value);
    if (wanted !== null && !wanted.has(k)) continue;
    const prev = floorBy.get(k);
    if (prev === undefined || f.price < prev.floor)
      floorBy.set(k, { type: f.traitType, value: f.value, floor: f.price });
  }
  memo.set(floors, floorBy);
  return floorBy;
}
const floorsMemo = new WeakMap<Params, WeakMap<readonly TraitFloor[], FloorsByTrait>>();

/** The trait keys configured (null: every trait), once per params. */
function wantedOf(p: Params): ReadonlySet<string> | null {
  let w = wantedMemo.get(p);
  if (w === undefined) {
    w = p.traits === 'all' ? null : new Set(p.traits.map((t) => traitKey(t.type, t.value)));
    wantedMemo.set(p, w);
  }
  return w;
}
const wantedMemo = new WeakMap<Params, ReadonlySet<string> | null>();

function decide(ctx: Ctx, ev?: MarketEvent): Intent[] {
  const p = ctx.params;
  const col = ctx.market.collection(p.collection);
  if (col === undefined || col.stale) return [];
  const floors = col.traitFloors;
  if (floors === null || ctx.now - floors.learnedAt > p.maxFloorAgeMs) return [];
  const dec = p.paymentToken.decimals;

  // (an indexed loop: filter() of a frozen array is V8's slow path, and for…of here makes an object
  // per entry, of a list that holds our closed orders too)
  const own = ctx.ownOrders;
  const mineAll: OwnOrder[] = [];
  for (let i = 0; i < own.length; i++) {
    const o = own[i] as OwnOrder;
    if (
      o.status === 'open' &&
      o.side === 'trait_offer' &&
      o.collection === p.collection &&
      o.trait !== null &&
      (o.expiresAt === null || o.expiresAt > ctx.now)
    )
      mineAll.push(o);
  }
  const ownHashes = new Set<string>(mineAll.map((o) => o.orderHash));
  const mineBy = new Map<string, OwnOrder[]>();
  for (const o of mineAll) {
    const k = traitKey(o.trait?.type ?? '', o.trait?.value ?? '');
    const l = mineBy.get(k);
    if (l === undefined) mineBy.set(k, [o]);
    else l.push(o);
  }
  const wanted = wantedOf(p);
  const floorBy = floorsByTrait(p, floors.value);
  const wallet = ctx.wallet?.toLowerCase() ?? null;

  // A trait offer seen on the stream that the snapshot may not have yet.
  let evKey: string | null = null;
  let evUnit: bigint | null = null;
  if (
    ev?.kind === 'trait_offer' &&
    ev.traits.length === 1 &&
    ev.quantity > 0n &&
    ev.paymentToken.decimals === dec &&
    !ownHashes.has(ev.orderHash) &&
    (wallet === null || ev.maker.toLowerCase() !== wallet) &&
    (ev.expiresAt === null || ev.expiresAt > ctx.now)
  ) {
    const t = ev.traits[0];
    if (t !== undefined) {
      evKey = traitKey(t.type, t.value);
      evUnit = ev.price / ev.quantity;
    }
  }

  const candidates: Candidate[] = [];
  for (const [k, f] of floorBy) {
    let competitor: bigint | null = null;
    const best = col.bestTraitOffers.get(k)?.value;
    if (
      best !== undefined &&
      best.paymentToken.decimals === dec &&
      (best.orderHash === null || !ownHashes.has(best.orderHash)) &&
      (best.maker === null || wallet === null || best.maker.toLowerCase() !== wallet) &&
      (best.expiresAt === null || best.expiresAt > ctx.now)
    )
      competitor = best.price;
    if (k === evKey && evUnit !== null && (competitor === null || evUnit > competitor)) competitor = evUnit;
    const plan = planBid({
      floor: f.floor,
      competitor,
      distanceBps: p.distanceBps,
      minDistanceBps: p.minDistanceBps,
      maxPrice: p.maxPrice,
      step: p.outbidStep,
    });
    if (plan.price === null || plan.price < p.minPrice) continue;
    // Top of book: a competitor we may not beat makes this trait no opportunity.
    if (competitor !== null && competitor >= plan.price) continue;
    candidates.push({
      type: f.type,
      value: f.value,
      floor: f.floor,
      price: plan.price,
      competitor,
      outbids: plan.outbids,
      margin: f.floor - plan.price,
    });
  }
  candidates.sort((a, b) => (b.margin > a.margin ? 1 : b.margin < a.margin ? -1 : 0));
  const chosen = candidates.slice(0, p.maxOffers);
  const chosenKeys = new Set(chosen.map((c) => traitKey(c.type, c.value)));

  const out: Intent[] = [];
  // Offers on traits that are no longer among the best opportunities (or duplicates): cancel.
  for (const [k, orders] of mineBy) {
    const sorted = [...orders].sort((a, b) => (b.price > a.price ? 1 : b.price < a.price ? -1 : 0));
    // chosen: keep the best, cancel duplicates; no longer configured, ranked out, cannot be on top,
    // or (with 'all') its floor vanished: cancel; a configured trait without a floor right now: keep.
    const inScope = wanted === null || wanted.has(k);
    const extra = chosenKeys.has(k)
      ? sorted.slice(1)
      : !inScope || floorBy.has(k) || wanted === null
        ? sorted
        : [];
    const reason = chosenKeys.has(k)
      ? 'duplicate offer'
      : inScope
        ? 'not a top opportunity'
        : 'trait not configured';
    for (const o of extra) out.push(cancelOrder({ orderHash: o.orderHash, priority: 0, reason }));
  }
  const expiresAt = ctx.now + p.expiryMinutes * 60_000;
  // each new offer counts in full while the one it replaces still does: held back when short
  const budget = budgetFor(ctx, p.paymentToken);
  for (const c of chosen) {
    const k = traitKey(c.type, c.value);
    const offer = { type: 'trait' as const, collection: p.collection, traitType: c.type, value: c.value };
    const target = offerTarget(offer);
    const priority = toScore(c.margin, dec) + (c.outbids ? 1 : 0);
    const mine = [...(mineBy.get(k) ?? [])].sort((a, b) =>
      b.price > a.price ? 1 : b.price < a.price ? -1 : 0,
    )[0];
    const action = offerAction({
      mine,
      price: c.price,
      competitor: c.competitor,
      repriceBps: p.repriceBps,
      renewBeforeMs: p.renewBeforeMinutes * 60_000,
      now: ctx.now,
    });
    if ((action.do === 'place' || action.do === 'replace') && !budget.take(action.price)) continue;
    if (action.do === 'place')
      out.push(
        placeOffer({
          offer,
          price: action.price,
          paymentToken: p.paymentToken,
          expiresAt,
          priority,
          reason: `${c.type}=${c.value}: floor ${c.floor}${c.outbids ? `, outbid ${c.competitor}` : ''}`,
        }),
      );
    else if (action.do === 'replace')
      out.push(
        replaceOffer({
          orderHash: action.order.orderHash,
          price: action.price,
          expiresAt,
          target,
          priority,
          reason: action.why,
        }),
      );
  }
  noteBudget(ctx, budget.short, p.paymentToken);
  return out;
}

export default defineStrategy({
  id: 'trait-bidder',
  version: '1.0.0',
  description: 'Keeps trait offers below trait floors, best opportunities first, top-of-book aware.',
  params,
  subscriptions: (p) => ({
    collections: [p.collection],
    // what decide reads: an event that moves neither does not reach it
    changes: ['trait_floors', 'trait_offers'],
  }),
  schedules: (p) => [p.tickCron],
  init: (ctx) => decide(ctx),
  onEvent: (ctx, ev) => decide(ctx, ev),
  onTick: (ctx) => decide(ctx),
  onOrderUpdate(ctx, u) {
    if (u.kind === 'order' && u.status !== 'revalidated') return decide(ctx);
    return [];
  },
});
