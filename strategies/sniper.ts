// sniper: buys listings priced well below a reference — the collection floor, the floor of the
// item's rarest trait, or the highest floor among configured traits the item has — within a max
// price and per-item and per-day caps.
import {
  amountSchema,
  buyListing,
  type CollectionSnapshot,
  defineStrategy,
  type ListingEvent,
  nftKey,
  type StrategyContext,
  slugSchema,
  toScore,
  traitKey,
  z,
} from '../src/strategy.ts';

const DAY_MS = 86_400_000;

const params = z
  .strictObject({
    collections: z.array(slugSchema).min(1, 'list at least one collection'),
    /** collection: the collection floor; rarest: the floor of the item's rarest trait; traits: configured traits. */
    basis: z.enum(['collection', 'rarest', 'traits']).default('collection'),
    traits: z.array(z.strictObject({ type: z.string().min(1), value: z.string().min(1) })).default([]),
    /** Buy when the price is at least this far below the reference (bps). */
    discountBps: z.number().int().min(1).max(9_000).default(1_500),
    /** Most paid per item (ETH, 18 decimals). */
    maxPrice: amountSchema(18),
    /** Times the same NFT may be bought. */
    maxPerItem: z.number().int().min(1).max(100).default(1),
    /** Buys per rolling 24 h. */
    maxPerDay: z.number().int().min(1).max(10_000).default(3),
    /** A reference older than this is not used (ms). */
    maxFloorAgeMs: z.number().int().min(1_000).default(600_000),
    /** With basis rarest/traits: use the collection floor when the item's traits are unknown or unmatched. */
    fallbackToFloor: z.boolean().default(true),
    /** Payment token symbols accepted. */
    tokens: z.array(z.string().min(1)).min(1).default(['ETH', 'WETH']),
    /** How many bought items the per-item cap remembers (most recent first). */
    rememberItems: z.number().int().min(1).max(100_000).default(200),
    /** When reference floors are remembered (a new floor listing hides the floor it undercut). */
    refreshCron: z.string().default('* * * * *'),
  })
  .refine((p) => p.basis !== 'traits' || p.traits.length > 0, {
    message: 'basis "traits" needs at least one entry in traits',
    path: ['traits'],
  });

type Params = z.output<typeof params>;

interface Remembered {
  at: number;
  floor: string | null;
  traits: Record<string, string>;
}

interface BuyRecord {
  t: number;
  k: string;
  o: string;
}

/**
 * Lowest listing of the collection other than this NFT's (the floor this listing undercuts), when
 * it is above `unit`; null when there is none, or one at or below `unit` (the scan stops there: such
 * a floor is no reference for this listing).
 */
function floorAbove(col: CollectionSnapshot, key: string, unit: bigint): bigint | null {
  let best: bigint | null = null;
  for (const [k, level] of col.bestListings) {
    if (k === key) continue;
    const p = level.value.price;
    if (p <= unit) return null;
    if (best === null || p < best) best = p;
  }
  return best;
}

function rememberedOf(ctx: StrategyContext<Params>, slug: string): Remembered | undefined {
  const r = ctx.state.get<Record<string, Remembered>>('refs')?.[slug];
  return r !== undefined && ctx.now - r.at <= ctx.params.maxFloorAgeMs ? r : undefined;
}

function traitFloorOf(col: CollectionSnapshot, type: string, value: string, decimals: number): bigint | null {
  if (col.traitFloors === null) return null;
  let best: bigint | null = null;
  for (const f of col.traitFloorsByTrait.get(traitKey(type, value)) ?? [])
    if (f.paymentToken.decimals === decimals && (best === null || f.price < best)) best = f.price;
  return best;
}

interface Reference {
  price: bigint;
  trait?: { type: string; value: string };
}

function collectionReference(
  ctx: StrategyContext<Params>,
  col: CollectionSnapshot,
  ev: ListingEvent,
  unit: bigint,
): Reference | null {
  const f = col.floor;
  if (f !== null && !col.floorRelearning && ctx.now - f.learnedAt <= ctx.params.maxFloorAgeMs) {
    if (f.value.orderHash !== ev.orderHash && f.value.price > unit) return { price: f.value.price };
    const without = floorAbove(col, nftKey(ev.nft), unit);
    if (without !== null) return { price: without };
  }
  const r = rememberedOf(ctx, col.slug);
  return r?.floor != null ? { price: BigInt(r.floor) } : null;
}

function traitReference(
  ctx: StrategyContext<Params>,
  col: CollectionSnapshot,
  type: string,
  value: string,
  unit: bigint,
  decimals: number,
): bigint | null {
  const fresh = col.traitFloors !== null && ctx.now - col.traitFloors.learnedAt <= ctx.params.maxFloorAgeMs;
  const current = fresh ? traitFloorOf(col, type, value, decimals) : null;
  if (current !== null && current > unit) return current;
  const r = rememberedOf(ctx, col.slug)?.traits[traitKey(type, value)];
  return r === undefined ? null : BigInt(r);
}

function reference(
  ctx: StrategyContext<Params>,
  col: CollectionSnapshot,
  ev: ListingEvent,
  unit: bigint,
): Reference | null {
  const p = ctx.params;
  if (p.basis === 'collection') return collectionReference(ctx, col, ev, unit);
  const known = ctx.nfts.get(nftKey(ev.nft));
  const traits = known?.value ?? [];
  let best: Reference | null = null;
  if (p.basis === 'traits') {
    for (const t of traits) {
      if (!p.traits.some((c) => c.type === t.type && c.value === t.value)) continue;
      const price = traitReference(ctx, col, t.type, t.value, unit, ev.paymentToken.decimals);
      if (price !== null && (best === null || price > best.price)) best = { price, trait: t };
    }
  } else {
    // rarest: the item's trait with the fewest items in the collection
    let rarest: { type: string; value: string; count: number } | null = null;
    for (const t of traits) {
      const cat = col.traits?.value.find((c) => c.traitType === t.type);
      const count = cat?.counts.get(t.value);
      if (count === undefined) continue;
      if (rarest === null || count < rarest.count) rarest = { ...t, count };
    }
    if (rarest !== null) {
      const price = traitReference(ctx, col, rarest.type, rarest.value, unit, ev.paymentToken.decimals);
      if (price !== null) best = { price, trait: { type: rarest.type, value: rarest.value } };
    }
  }
  if (best === null && p.fallbackToFloor) return collectionReference(ctx, col, ev, unit);
  return best;
}

export default defineStrategy({
  id: 'sniper',
  version: '1.0.0',
  description: 'Buys listings below a threshold relative to the collection floor or a trait floor.',
  params,
  subscriptions: (p) => ({ collections: p.collections, events: ['listing'] }),
  schedules: (p) => [p.refreshCron],

  onTick(ctx) {
    // Remember the reference floors: a listing that sets a new floor hides the one it undercut.
    const refs: Record<string, Remembered> = {};
    for (const slug of ctx.params.collections) {
      const col = ctx.market.collection(slug);
      if (col === undefined) continue;
      // the lowest floor of each trait, then as text (state is JSON)
      const lowest = new Map<string, bigint>();
      for (const f of col.traitFloors?.value ?? []) {
        const k = traitKey(f.traitType, f.value);
        const prev = lowest.get(k);
        if (prev === undefined || f.price < prev) lowest.set(k, f.price);
      }
      const traits: Record<string, string> = {};
      for (const [k, price] of lowest) traits[k] = price.toString();
      // A floor being re-learned is only an upper bound: keep the one remembered before.
      const before = ctx.state.get<Record<string, Remembered>>('refs')?.[slug]?.floor ?? null;
      const floor = col.floorRelearning ? before : (col.floor?.value.price.toString() ?? null);
      refs[slug] = { at: ctx.now, floor, traits };
    }
    ctx.state.set('refs', refs);
    return [];
  },

  onEvent(ctx, ev) {
    if (ev.kind !== 'listing') return [];
    const p = ctx.params;
    if (ev.isPrivate || ev.quantity <= 0n) return [];
    if (ctx.wallet !== null && ev.maker.toLowerCase() === ctx.wallet.toLowerCase()) return [];
    if (ev.expiresAt !== null && ev.expiresAt <= ctx.now) return [];
    if (!p.tokens.some((t) => t.toUpperCase() === ev.paymentToken.symbol.toUpperCase())) return [];
    const col = ctx.market.collection(ev.collection);
    if (col === undefined || col.stale) return [];
    const unit = ev.price / ev.quantity;
    if (unit <= 0n || unit > p.maxPrice) return [];
    const ref = reference(ctx, col, ev, unit);
    if (ref === null) return [];
    if (unit > (ref.price * BigInt(10_000 - p.discountBps)) / 10_000n) return [];

    const key = nftKey(ev.nft);
    const buys = (ctx.state.get<BuyRecord[]>('buys') ?? []).filter((b) => b.t > ctx.now - DAY_MS);
    if (buys.length >= p.maxPerDay) return [];
    if (
      buys.filter((b) => b.k === key).length + (ctx.state.get<Record<string, number>>('items')?.[key] ?? 0) >=
      p.maxPerItem
    )
      return [];
    if (buys.some((b) => b.o === ev.orderHash)) return [];
    const left = ctx.budget.remaining(ev.paymentToken);
    if (left !== null && left < unit) return [];

    buys.push({ t: ctx.now, k: key, o: ev.orderHash });
    ctx.state.set('buys', buys);
    return [
      buyListing({
        orderHash: ev.orderHash,
        collection: ev.collection,
        nft: ev.nft,
        maxPrice: unit,
        paymentToken: ev.paymentToken,
        quantity: 1n,
        ...(ref.trait !== undefined ? { trait: ref.trait } : {}),
        priority: toScore(ref.price - unit, ev.paymentToken.decimals),
        reason: `${unit} is ${(((ref.price - unit) * 10_000n) / ref.price).toString()} bps below ${ref.trait ? `trait floor ${ref.trait.type}=${ref.trait.value}` : 'the floor'} ${ref.price}`,
      }),
    ];
  },

  onOrderUpdate(ctx, update) {
    if (update.kind !== 'intent_result' || update.intent.kind !== 'buy_listing') return [];
    const intent = update.intent;
    const buys = ctx.state.get<BuyRecord[]>('buys') ?? [];
    if (update.status === 'done') {
      // Items bought stay counted beyond the 24 h window of `buys` (per-item cap).
      const items = ctx.state.get<Record<string, number>>('items') ?? {};
      const key = nftKey(intent.nft);
      items[key] = (items[key] ?? 0) + 1;
      // Remember the most recent items only (bounded state).
      const keys = Object.keys(items);
      for (const k of keys.slice(0, Math.max(0, keys.length - ctx.params.rememberItems))) delete items[k];
      ctx.state.set('items', items);
      ctx.state.set(
        'buys',
        buys.map((b) => (b.o === intent.orderHash ? { ...b, k: `done:${b.k}` } : b)),
      );
    } else if (update.status !== 'unknown') {
      // Not bought: free the caps it held (an unknown outcome keeps them until reconciled).
      ctx.state.set(
        'buys',
        buys.filter((b) => b.o !== intent.orderHash),
      );
    }
    return [];
  },
});
