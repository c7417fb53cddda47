/**
 * The simulator's dice, pure and seeded: which action comes next and at what price. Action `n`
 * draws from its own PRNG derived from (seed, n), so the sequence of chosen actions and of their
 * random parameters is the same for a seed whatever happened before (how many draws an earlier
 * action used, whether it found a target, how long it took).
 */
import { hashString, prng } from '../catalog/traits.ts';

export const ACTION_KINDS = [
  'list',
  'item_offer',
  'collection_offer',
  'trait_offer',
  'buy',
  'accept',
  'transfer',
  'cancel',
  'metadata',
  'mint',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export type ActionWeights = Readonly<Record<ActionKind, number>>;

/** Relative frequencies of the actions (a market that lists more than it trades). */
export const DEFAULT_WEIGHTS: ActionWeights = Object.freeze({
  list: 30,
  item_offer: 10,
  collection_offer: 10,
  trait_offer: 8,
  buy: 12,
  accept: 8,
  transfer: 5,
  cancel: 10,
  metadata: 5,
  mint: 6,
});

export type Rng = () => number;

/** The PRNG of action number `n` (0-based) of a simulator with `seed`. */
export function actionRng(seed: number, n: number): Rng {
  return prng(hashString(`${seed >>> 0}:simulator:${n}`));
}

/** The PRNG of a collection's initial book. */
export function initialRng(seed: number, slug: string): Rng {
  return prng(hashString(`${seed >>> 0}:simulator:initial:${slug}`));
}

/** Picks a kind for a uniform draw `u` in [0, 1) by weight. */
export function chooseKind(u: number, weights: ActionWeights = DEFAULT_WEIGHTS): ActionKind {
  const total = ACTION_KINDS.reduce((s, k) => s + Math.max(0, weights[k]), 0);
  if (!(total > 0)) throw new Error('action weights must have a positive sum');
  let r = u * total;
  for (const k of ACTION_KINDS) {
    const w = Math.max(0, weights[k]);
    if (r < w) return k;
    r -= w;
  }
  // u * total rounded up to total: the last kind with a weight
  return [...ACTION_KINDS].reverse().find((k) => weights[k] > 0) as ActionKind;
}

/** The kinds of actions `from .. from+count-1` of a seed (what the simulator will try, in order). */
export function planActions(
  seed: number,
  count: number,
  weights: ActionWeights = DEFAULT_WEIGHTS,
  from = 0,
): ActionKind[] {
  return Array.from({ length: count }, (_, i) => chooseKind(actionRng(seed, from + i)(), weights));
}

/** An index in [0, n) from a draw. */
export const pick = (rng: Rng, n: number): number => Math.min(n - 1, Math.floor(rng() * n));

/** A draw in [lo, hi). */
export const between = (rng: Rng, lo: number, hi: number): number => lo + (hi - lo) * rng();

/** A standard normal draw (Box–Muller; two uniform draws). */
export function gaussian(rng: Rng): number {
  const u = 1 - rng(); // (0, 1]
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface ListingPriceDraw {
  /** Price relative to the floor. */
  readonly factor: number;
  readonly underpriced: boolean;
}

/** Spread of regular listings above the floor: log-normal, σ of the log. */
export const LISTING_SIGMA = 0.15;
/** Underpriced listings sit this far below the floor (fractions). */
export const UNDERPRICED_RANGE: readonly [number, number] = [0.2, 0.4];

/**
 * A listing's price relative to the floor. With probability `underpricedShare` it is 20–40 %
 * below the floor (a snipe); otherwise log-normal at or above the floor (`exp(σ·|z|)`: most near
 * the floor, a long tail up), so the floor is the cheapest regular ask. Always three draws.
 */
export function listingPriceFactor(rng: Rng, underpricedShare: number): ListingPriceDraw {
  const u = rng();
  const below = between(rng, UNDERPRICED_RANGE[0], UNDERPRICED_RANGE[1]);
  const z = gaussian(rng);
  if (u < underpricedShare) return { factor: 1 - below, underpriced: true };
  return { factor: Math.exp(LISTING_SIGMA * Math.abs(z)), underpriced: false };
}

export type OfferKind = 'item_offer' | 'collection_offer' | 'trait_offer';

/** Offers bid under the floor; traits and single items a little closer to it. */
export const OFFER_RANGES: Readonly<Record<OfferKind, readonly [number, number]>> = Object.freeze({
  item_offer: [0.75, 1.0],
  collection_offer: [0.7, 0.95],
  trait_offer: [0.85, 1.1],
});

export function offerPriceFactor(rng: Rng, kind: OfferKind): number {
  const [lo, hi] = OFFER_RANGES[kind];
  return between(rng, lo, hi);
}

/** Prices are multiples of this (1e-6 ETH), so partial fills of a few units always divide evenly. */
export const PRICE_STEP = 10n ** 12n;

/** `floor × factor`, rounded to `PRICE_STEP` (at least one step). */
export function scalePrice(floor: bigint, factor: number): bigint {
  const ppm = BigInt(Math.round(factor * 1_000_000));
  const raw = (floor * ppm) / 1_000_000n;
  const stepped = (raw / PRICE_STEP) * PRICE_STEP;
  return stepped > 0n ? stepped : PRICE_STEP;
}
