// collection-bidder: keeps one collection offer at a distance below the floor; rebids one step
// above a competitor when outbid (stream `collection_offer`), up to a cap; re-prices when the floor
// moves; renews before expiry.
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
  toScore,
  z,
} from '../src/strategy.ts';

const params = z.strictObject({
  collection: slugSchema,
  /** The token offers are made in (WETH on Ethereum). */
  paymentToken: paymentTokenSchema,
  /** Bid this far below the floor (bps). */
  distanceBps: z.number().int().min(1).max(9_900).default(1_000),
  /** When outbidding, never closer to the floor than this (bps). */
  minDistanceBps: z.number().int().min(0).max(9_900).default(200),
  /** Highest price per item ever offered (18 decimals). */
  maxPrice: amountSchema(18),
  /** Outbid by this much (18 decimals). */
  outbidStep: amountSchema(18).prefault('0.0001'),
  quantity: z.number().int().min(1).max(1_000).default(1),
  expiryMinutes: z.number().int().min(1).max(43_200).default(60),
  renewBeforeMinutes: z.number().int().min(0).max(1_440).default(10),
  /** Re-price when the wanted price moved by at least this much (bps). */
  repriceBps: z.number().int().min(1).max(10_000).default(100),
  maxFloorAgeMs: z.number().int().min(1_000).default(600_000),
  tickCron: z.string().default('* * * * *'),
});

type Params = z.output<typeof params>;
type Ctx = StrategyContext<Params>;

/** Whether an offer (its hash and maker, when known) is someone else's: not one of ours, not our wallet's. */
function isOther(ctx: Ctx, mine: readonly OwnOrder[], hash: string | null, maker: string | null): boolean {
  if (hash !== null && mine.some((o) => o.orderHash === hash)) return false;
  return maker === null || ctx.wallet === null || maker.toLowerCase() !== ctx.wallet.toLowerCase();
}

function competitorOf(ctx: Ctx, mine: readonly OwnOrder[], ev?: MarketEvent): bigint | null {
  const p = ctx.params;
  let best: bigint | null = null;
  const level = ctx.market.collection(p.collection)?.bestCollectionOffer?.value;
  if (
    level !== undefined &&
    level.paymentToken.decimals === p.paymentToken.decimals &&
    isOther(ctx, mine, level.orderHash, level.maker) &&
    (level.expiresAt === null || level.expiresAt > ctx.now)
  )
    best = level.price;
  if (
    ev?.kind === 'collection_offer' &&
    ev.quantity > 0n &&
    ev.paymentToken.decimals === p.paymentToken.decimals &&
    isOther(ctx, mine, ev.orderHash, ev.maker) &&
    (ev.expiresAt === null || ev.expiresAt > ctx.now)
  ) {
    const unit = ev.price / ev.quantity;
    if (best === null || unit > best) best = unit;
  }
  return best;
}

function decide(ctx: Ctx, ev?: MarketEvent): Intent[] {
  const p = ctx.params;
  const col = ctx.market.collection(p.collection);
  if (col === undefined || col.stale) return [];
  const floor = col.floor;
  if (floor === null || col.floorRelearning || ctx.now - floor.learnedAt > p.maxFloorAgeMs) return [];
  // (an indexed loop: filter() of a frozen array is V8's slow path, and for…of here makes an object
  // per entry, of a list that holds our closed orders too)
  const own = ctx.ownOrders;
  const mine: OwnOrder[] = [];
  for (let i = 0; i < own.length; i++) {
    const o = own[i] as OwnOrder;
    if (
      o.status === 'open' &&
      o.side === 'collection_offer' &&
      o.collection === p.collection &&
      (o.expiresAt === null || o.expiresAt > ctx.now)
    )
      mine.push(o);
  }
  mine.sort((a, b) => (b.price > a.price ? 1 : b.price < a.price ? -1 : 0));
  const competitor = competitorOf(ctx, mine, ev);
  const plan = planBid({
    floor: floor.value.price,
    competitor,
    distanceBps: p.distanceBps,
    minDistanceBps: p.minDistanceBps,
    maxPrice: p.maxPrice,
    step: p.outbidStep,
  });
  const out: Intent[] = [];
  // Duplicates (e.g. from before a crash): keep the best one, cancel the rest.
  for (const extra of mine.slice(1))
    out.push(cancelOrder({ orderHash: extra.orderHash, priority: 1, reason: 'duplicate offer' }));
  const offer = { type: 'collection' as const, collection: p.collection };
  const target = offerTarget(offer);
  const expiresAt = ctx.now + p.expiryMinutes * 60_000;
  const priority = plan.price === null ? 0 : toScore(floor.value.price - plan.price) + (plan.outbids ? 1 : 0);
  const planned = offerAction({
    mine: mine[0],
    price: plan.price,
    competitor,
    repriceBps: p.repriceBps,
    renewBeforeMs: p.renewBeforeMinutes * 60_000,
    now: ctx.now,
  });
  // a new offer counts in full while the one it replaces still does: held back when short
  const budget = budgetFor(ctx, p.paymentToken);
  const action =
    (planned.do === 'place' || planned.do === 'replace') && !budget.take(planned.price * BigInt(p.quantity))
      ? ({ do: 'keep' } as const)
      : planned;
  noteBudget(ctx, budget.short, p.paymentToken);
  switch (action.do) {
    case 'place':
      out.push(
        placeOffer({
          offer,
          price: action.price,
          paymentToken: p.paymentToken,
          expiresAt,
          quantity: BigInt(p.quantity),
          priority,
          reason: plan.outbids
            ? `outbid ${competitor}`
            : `${p.distanceBps} bps below floor ${floor.value.price}`,
        }),
      );
      break;
    case 'replace':
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
      break;
    case 'cancel':
      out.push(cancelOrder({ orderHash: action.order.orderHash, priority, reason: 'no bid possible' }));
      break;
    case 'keep':
      break;
  }
  return out;
}

export default defineStrategy({
  id: 'collection-bidder',
  version: '1.0.0',
  description: 'Keeps a collection offer at a distance below the floor; rebids when outbid, up to a cap.',
  params,
  subscriptions: (p) => ({
    collections: [p.collection],
    // what decide reads: an event that moves neither does not reach it
    changes: ['floor', 'collection_offer'],
  }),
  schedules: (p) => [p.tickCron],
  init: (ctx) => decide(ctx),
  onEvent: (ctx, ev) => decide(ctx, ev),
  onTick: (ctx) => decide(ctx),
  onOrderUpdate(ctx, u) {
    // Our offer filled, was cancelled or invalidated: put a new one up.
    if (u.kind === 'order' && u.status !== 'revalidated') return decide(ctx);
    return [];
  },
});
