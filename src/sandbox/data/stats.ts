import type { MarketEvent } from '../events/log.ts';
import { toDisplay } from './currencies.ts';
import type { CollectionFloor } from './floors.ts';

/**
 * `GET /api/v2/collections/{slug}/stats` from the sandbox's own activity: sales are the event
 * log's `sale` records of the collection (the market's fills, the simulator's trades). Volume is
 * in ETH: sales paid in ETH or WETH count one to one; sales in other currencies count as sales but
 * add no volume (the sandbox does not convert). Intervals are rolling windows ending now.
 */

export const INTERVALS = [
  ['one_day', 86_400_000],
  ['seven_day', 7 * 86_400_000],
  ['thirty_day', 30 * 86_400_000],
] as const;

export type IntervalName = (typeof INTERVALS)[number][0];

export interface IntervalStat {
  readonly interval: IntervalName;
  readonly volume: number;
  readonly volume_symbol: string;
  readonly sales: number;
}

export interface CollectionStats {
  readonly total: {
    readonly volume: number;
    readonly volume_symbol: string;
    readonly sales: number;
    readonly num_owners: number;
    readonly floor_price: number;
    readonly floor_price_symbol: string;
  };
  readonly intervals: IntervalStat[];
}

const ETH_LIKE = new Set(['ETH', 'WETH']);

/** Wei of a sale that counts as ETH volume (0 for other currencies). */
export function ethVolumeOf(e: MarketEvent): bigint {
  if (!e.price) return 0n;
  return ETH_LIKE.has(e.price.token.symbol.toUpperCase()) && e.price.token.decimals === 18
    ? e.price.amount
    : 0n;
}

export function salesOf(events: readonly MarketEvent[], slug: string): MarketEvent[] {
  return events.filter((e) => e.kind === 'sale' && e.collection === slug);
}

/** Sales count and ETH volume (wei) of `sales` in the window of `windowMs` ending at `nowMs`. */
export function activityIn(
  sales: readonly MarketEvent[],
  windowMs: number,
  nowMs: number,
): { readonly sales: number; readonly volume: bigint } {
  let volume = 0n;
  let n = 0;
  for (const e of sales) {
    if (e.timestampMs > nowMs - windowMs && e.timestampMs <= nowMs) {
      volume += ethVolumeOf(e);
      n++;
    }
  }
  return { sales: n, volume };
}

export function collectionStats(
  events: readonly MarketEvent[],
  slug: string,
  nowMs: number,
  numOwners: number,
  floor: CollectionFloor | undefined,
): CollectionStats {
  const sales = salesOf(events, slug);
  let total = 0n;
  for (const e of sales) total += ethVolumeOf(e);
  const intervals = INTERVALS.map(([interval, ms]): IntervalStat => {
    const a = activityIn(sales, ms, nowMs);
    return { interval, volume: toDisplay(a.volume, 18), volume_symbol: 'ETH', sales: a.sales };
  });
  return {
    total: {
      volume: toDisplay(total, 18),
      volume_symbol: 'ETH',
      sales: sales.length,
      num_owners: numOwners,
      floor_price: floor?.price ?? 0,
      floor_price_symbol: floor?.symbol ?? '',
    },
    intervals,
  };
}
