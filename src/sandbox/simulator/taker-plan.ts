/**
 * The dice and the judgement of the simulated traders who answer other wallets' orders, pure and
 * seeded: which listings of non-simulated wallets are attractive (at or below the floor plus a
 * premium, per unit), who takes one (never its maker), how many units, and what an item offer on
 * an NFT someone else holds bids (near the floor or just over the best offer, never above the
 * floor). Taker tick `n` draws from its own PRNG derived from (seed, n), so its draws are the same
 * for a seed whatever the settings or the earlier ticks did.
 */
import { hashString, prng } from '../catalog/traits.ts';
import type { WireParameters } from '../market/seaport.ts';
import type { TraderSettings } from '../server/types.ts';
import { PRICE_STEP, type Rng } from './plan.ts';

/** On by default at a modest rate: a listing under the floor sells within seconds to a minute. */
export const DEFAULT_TRADER_SETTINGS: TraderSettings = Object.freeze({
  enabled: true,
  listingTakerRate: 0.2,
  premiumBps: 500,
  heldItemOfferRate: 0.1,
});
/** How often the takers look (ms); their rates are per look. */
export const TAKER_TICK_MS = 1000;
/** At most this many simulated item offers stand on one held NFT (a holder is courted, not flooded). */
export const MAX_HELD_OFFERS_PER_ITEM = 2;
/** A held-item offer bids this share of the floor (uniform), unless it outbids a better offer. */
export const HELD_OFFER_RANGE: readonly [number, number] = [0.85, 0.97];
/** Outbidding the best offer adds this share of it (uniform), at least one price step. */
export const OUTBID_RANGE: readonly [number, number] = [0.005, 0.03];

/** The PRNG of taker tick `n` (0-based) of a simulator with `seed`. */
export function takerRng(seed: number, n: number): Rng {
  return prng(hashString(`${seed >>> 0}:takers:${n}`));
}

/** What taker tick `n` does: always the same nine draws, whatever the settings. */
export interface TakerTickPlan {
  /** Buy an attractive listing this tick. */
  readonly take: boolean;
  readonly takerU: number;
  readonly unitsU: number;
  /** Make an offer on a held item this tick. */
  readonly offer: boolean;
  readonly offererU: number;
  readonly targetU: number;
  readonly priceU: number;
  readonly outbidU: number;
  readonly durationU: number;
}

export function planTakerTick(seed: number, n: number, settings: TraderSettings): TakerTickPlan {
  const rng = takerRng(seed, n);
  const takeU = rng();
  const takerU = rng();
  const unitsU = rng();
  const offerU = rng();
  const offererU = rng();
  const targetU = rng();
  const priceU = rng();
  const outbidU = rng();
  const durationU = rng();
  return {
    take: settings.enabled && takeU < settings.listingTakerRate,
    takerU,
    unitsU,
    offer: settings.enabled && offerU < settings.heldItemOfferRate,
    offererU,
    targetU,
    priceU,
    outbidU,
    durationU,
  };
}

/** The highest unit price a taker pays: `floor × (1 + premiumBps / 10000)`. */
export function attractionLimit(floor: bigint, premiumBps: number): bigint {
  return (floor * BigInt(10_000 + premiumBps)) / 10_000n;
}

/** A listing as the takers judge it. */
export interface ListingCandidate {
  readonly orderHash: string;
  readonly slug: string;
  /** Lower case. */
  readonly maker: string;
  /** Price of one unit now (wei, or the currency's smallest unit). */
  readonly unitPrice: bigint;
  readonly remaining: bigint;
  readonly parameters: WireParameters;
}

/**
 * The listings a taker would buy: made by a wallet that is not a simulated trader, with units
 * left, at or below the attraction limit of their collection; the best deal (lowest price
 * relative to the floor) first, ties by order hash.
 */
export function attractiveListings(
  listings: readonly ListingCandidate[],
  o: {
    readonly simulated: ReadonlySet<string>;
    readonly premiumBps: number;
    floorOf(slug: string): bigint;
  },
): ListingCandidate[] {
  const ratio = (l: ListingCandidate) => (l.unitPrice * 1_000_000n) / o.floorOf(l.slug);
  return listings
    .filter(
      (l) =>
        !o.simulated.has(l.maker.toLowerCase()) &&
        l.remaining > 0n &&
        o.floorOf(l.slug) > 0n &&
        l.unitPrice <= attractionLimit(o.floorOf(l.slug), o.premiumBps),
    )
    .map((l) => ({ l, r: ratio(l) }))
    .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : a.l.orderHash < b.l.orderHash ? -1 : 1))
    .map((x) => x.l);
}

/**
 * The trader for a draw `u` who is not `exclude` (a listing's maker, an NFT's holder): the drawn
 * one, or the next after it; undefined when every trader is excluded.
 */
export function traderFor<T extends { readonly address: string }>(
  traders: readonly T[],
  exclude: string,
  u: number,
): T | undefined {
  if (traders.length === 0) return undefined;
  const first = Math.min(traders.length - 1, Math.floor(u * traders.length));
  for (let k = 0; k < traders.length; k++) {
    const t = traders[(first + k) % traders.length] as T;
    if (t.address.toLowerCase() !== exclude.toLowerCase()) return t;
  }
  return undefined;
}

/**
 * Unit counts `1..remaining` that a partial fill can take from the listing: every amount of the
 * order times the units must divide by its original quantity (Seaport reverts otherwise).
 */
export function fillableUnits(p: WireParameters, remaining: bigint): bigint[] {
  const quantity = BigInt(p.offer[0]?.startAmount ?? '1');
  if (quantity <= 1n) return remaining >= 1n ? [1n] : [];
  const amounts = [...p.offer, ...p.consideration].flatMap((it) => [
    BigInt(it.startAmount),
    BigInt(it.endAmount),
  ]);
  const out: bigint[] = [];
  for (let u = 1n; u <= remaining && u <= quantity; u++) {
    if (amounts.every((a) => (a * u) % quantity === 0n)) out.push(u);
  }
  return out;
}

/** One of the fillable unit counts for a draw (undefined when none). */
export function chooseUnits(options: readonly bigint[], u: number): bigint | undefined {
  if (options.length === 0) return undefined;
  return options[Math.min(options.length - 1, Math.floor(u * options.length))];
}

const scale = (v: bigint, factor: number) => (v * BigInt(Math.round(factor * 1_000_000))) / 1_000_000n;
const stepDown = (v: bigint) => (v / PRICE_STEP) * PRICE_STEP;

/**
 * The unit price of an item offer on a held NFT: `floor × [0.85, 0.97)` (by `priceU`), or, when
 * that does not beat the best offer the NFT has, the best offer plus 0.5–3 % (by `outbidU`, at
 * least one price step); never above the floor, a multiple of `PRICE_STEP`, at least one step.
 */
export function heldOfferPrice(
  floor: bigint,
  best: bigint | undefined,
  priceU: number,
  outbidU: number,
): bigint {
  const [lo, hi] = HELD_OFFER_RANGE;
  const base = stepDown(scale(floor, lo + (hi - lo) * priceU));
  let price = base;
  if (best !== undefined && best >= base) {
    const [olo, ohi] = OUTBID_RANGE;
    const raise = scale(best, olo + (ohi - olo) * outbidU);
    price = stepDown(best + (raise > PRICE_STEP ? raise : PRICE_STEP));
  }
  const cap = stepDown(floor);
  if (price > cap) price = cap;
  return price > 0n ? price : PRICE_STEP;
}

/** An NFT a non-simulated wallet holds. */
export interface HeldItem {
  readonly slug: string;
  readonly tokenId: bigint;
  /** Lower case. */
  readonly owner: string;
}

/** Held items of non-simulated wallets, one per (collection, token), from a list of holdings. */
export function heldItems(
  holdings: readonly HeldItem[],
  simulated: ReadonlySet<string>,
  ignore: ReadonlySet<string> = new Set(),
): HeldItem[] {
  const seen = new Set<string>();
  const out: HeldItem[] = [];
  for (const h of holdings) {
    const owner = h.owner.toLowerCase();
    if (simulated.has(owner) || ignore.has(owner)) continue;
    const key = `${h.slug}:${h.tokenId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(h);
  }
  return out;
}
