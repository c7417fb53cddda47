import type { TokenTrait } from '../catalog/traits.ts';
import { toDisplay } from './currencies.ts';
import type { ExternalListing } from './external.ts';
import { compareText, isNumericTrait, type TraitCategory } from './traits.ts';

/**
 * Floors on the aggregated basis: every active listing of the sandbox's book and of the other
 * marketplaces (external.ts) is a `PricePoint` — one NFT's price per unit in one currency.
 *
 * Trait floors (spec "Trait floor prices"): for each text trait value, the cheapest unit price
 * among the tokens having it, once per payment currency (no conversion), values without any
 * listing omitted, numeric traits excluded; ordered by trait type, then value, then price (then
 * symbol). The collection floor is the cheapest unit price in the floor currency: ETH when any
 * item is listed in ETH, else the first of WETH then the other symbols alphabetically that has a
 * listing (prices in different currencies are never compared).
 */

export interface PricePoint {
  readonly tokenId: string;
  readonly symbol: string;
  readonly decimals: number;
  /** Price of one unit, smallest unit of the currency (integer division for multi-unit listings). */
  readonly unitPrice: bigint;
  readonly source: 'sandbox' | 'external';
}

/** The fields of a wire `Listing` (the sandbox book's rendering) a price point needs. */
export interface WireListingLike {
  readonly price?: {
    readonly current?: { readonly currency?: string; readonly decimals?: number; readonly value?: string };
  };
  readonly remaining_quantity?: number;
  readonly asset?: { readonly identifier?: string };
  readonly status?: string;
}

export function pointOfListing(l: WireListingLike): PricePoint | undefined {
  const cur = l.price?.current;
  const id = l.asset?.identifier;
  if (!cur || id === undefined || cur.value === undefined || cur.currency === undefined) return undefined;
  if (l.status !== undefined && l.status !== 'ACTIVE') return undefined;
  const units = BigInt(Math.max(1, l.remaining_quantity ?? 1));
  return {
    tokenId: id,
    symbol: cur.currency,
    decimals: cur.decimals ?? 18,
    unitPrice: BigInt(cur.value) / units,
    source: 'sandbox',
  };
}

export function pointOfExternal(l: ExternalListing): PricePoint {
  return {
    tokenId: l.tokenId,
    symbol: l.currency.symbol,
    decimals: l.currency.decimals,
    unitPrice: l.price / BigInt(Math.max(1, l.quantity)),
    source: 'external',
  };
}

/** Each item's best listing per currency across all sources (key `tokenId|symbol`). */
export function bestPerItem(points: readonly PricePoint[]): Map<string, PricePoint> {
  const out = new Map<string, PricePoint>();
  for (const p of points) {
    const k = `${p.tokenId}|${p.symbol}`;
    const had = out.get(k);
    if (!had || p.unitPrice < had.unitPrice) out.set(k, p);
  }
  return out;
}

export interface TraitFloor {
  readonly trait_type: string;
  readonly value: string;
  readonly floor_price: number;
  readonly payment_token_symbol: string;
}

interface Candidate {
  readonly trait_type: string;
  readonly value: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly unitPrice: bigint;
}

export function compareTraitFloors(a: TraitFloor, b: TraitFloor): number {
  return (
    compareText(a.trait_type, b.trait_type) ||
    compareText(a.value, b.value) ||
    a.floor_price - b.floor_price ||
    compareText(a.payment_token_symbol, b.payment_token_symbol)
  );
}

/**
 * The trait floors of a collection. `traitsOf` gives a token's traits; `categories` (from the
 * traits endpoint) decides which trait names are numeric — those are left out, as are numeric
 * occurrences of any trait.
 */
export function traitFloors(
  points: readonly PricePoint[],
  traitsOf: (tokenId: string) => readonly TokenTrait[],
  categories: ReadonlyMap<string, TraitCategory> = new Map(),
): TraitFloor[] {
  const best = new Map<string, Candidate>();
  for (const p of bestPerItem(points).values()) {
    for (const t of traitsOf(p.tokenId)) {
      if (isNumericTrait(t) || categories.get(t.trait_type) === 'number') continue;
      const value = String(t.value);
      const k = `${t.trait_type}\u0000${value}\u0000${p.symbol}`;
      const had = best.get(k);
      if (!had || p.unitPrice < had.unitPrice) {
        best.set(k, {
          trait_type: t.trait_type,
          value,
          symbol: p.symbol,
          decimals: p.decimals,
          unitPrice: p.unitPrice,
        });
      }
    }
  }
  return [...best.values()]
    .map((c) => ({
      trait_type: c.trait_type,
      value: c.value,
      floor_price: toDisplay(c.unitPrice, c.decimals),
      payment_token_symbol: c.symbol,
    }))
    .sort(compareTraitFloors);
}

/** Order in which currencies are tried for the collection floor. */
export function floorCurrencyRank(symbol: string): [number, string] {
  const s = symbol.toUpperCase();
  return [s === 'ETH' ? 0 : s === 'WETH' ? 1 : 2, s];
}

export interface CollectionFloor {
  readonly price: number;
  readonly symbol: string;
  /** Which source holds the floor listing. */
  readonly source: 'sandbox' | 'external';
  readonly tokenId: string;
}

/** The collection floor (see the module comment), or undefined when nothing is listed. */
export function collectionFloor(points: readonly PricePoint[]): CollectionFloor | undefined {
  let best: PricePoint | undefined;
  for (const p of points) {
    if (!best) {
      best = p;
      continue;
    }
    const [ra, sa] = floorCurrencyRank(p.symbol);
    const [rb, sb] = floorCurrencyRank(best.symbol);
    if (ra < rb || (ra === rb && sa < sb)) best = p;
    else if (ra === rb && sa === sb && p.unitPrice < best.unitPrice) best = p;
  }
  if (!best) return undefined;
  return {
    price: toDisplay(best.unitPrice, best.decimals),
    symbol: best.symbol,
    source: best.source,
    tokenId: best.tokenId,
  };
}
