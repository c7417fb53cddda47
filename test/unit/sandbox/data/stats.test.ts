import { describe, expect, it } from 'vitest';
import { collectionStats, ethVolumeOf } from '../../../../src/sandbox/data/stats.ts';
import type { MarketEvent } from '../../../../src/sandbox/events/log.ts';

const DAY = 86_400_000;
const NOW = 100 * DAY;
const E18 = 10n ** 18n;

let nextId = 1;
function sale(collection: string, ageMs: number, amount: bigint, symbol = 'ETH', decimals = 18): MarketEvent {
  return {
    id: nextId++,
    kind: 'sale',
    chain: 'ethereum',
    collection,
    timestampMs: NOW - ageMs,
    version: 1,
    price: { amount, token: { address: '0x0', symbol, decimals } },
  };
}

describe('collection stats', () => {
  const events: MarketEvent[] = [
    sale('a', 1000, E18), // within a day
    sale('a', 2 * DAY, 2n * E18, 'WETH'), // within 7 days
    sale('a', 10 * DAY, 4n * E18), // within 30 days
    sale('a', 40 * DAY, 8n * E18), // older than 30 days
    sale('a', 3000, 5_000_000n, 'USDC', 6), // a sale, but no ETH volume
    sale('b', 1000, 16n * E18), // another collection
    { ...sale('a', 1000, 32n * E18), kind: 'listing' }, // not a sale
  ];

  it('totals and rolling intervals from the sale events of the collection, in ETH', () => {
    const s = collectionStats(events, 'a', NOW, 7, {
      price: 0.25,
      symbol: 'ETH',
      source: 'sandbox',
      tokenId: '1',
    });
    expect(s.total).toEqual({
      volume: 15,
      volume_symbol: 'ETH',
      sales: 5,
      num_owners: 7,
      floor_price: 0.25,
      floor_price_symbol: 'ETH',
    });
    expect(s.intervals).toEqual([
      { interval: 'one_day', volume: 1, volume_symbol: 'ETH', sales: 2 },
      { interval: 'seven_day', volume: 3, volume_symbol: 'ETH', sales: 3 },
      { interval: 'thirty_day', volume: 7, volume_symbol: 'ETH', sales: 4 },
    ]);
  });

  it('a window boundary: exactly one day old is outside one_day', () => {
    const s = collectionStats([sale('a', DAY, E18)], 'a', NOW, 0, undefined);
    expect(s.intervals[0]).toMatchObject({ interval: 'one_day', sales: 0 });
    expect(s.intervals[1]).toMatchObject({ interval: 'seven_day', sales: 1, volume: 1 });
  });

  it('no listing: floor 0 with an empty symbol; no sales: zeros', () => {
    const s = collectionStats([], 'a', NOW, 0, undefined);
    expect(s.total).toMatchObject({ floor_price: 0, floor_price_symbol: '', volume: 0, sales: 0 });
    expect(s.intervals.map((i) => i.sales)).toEqual([0, 0, 0]);
  });

  it('ETH volume counts ETH and WETH only', () => {
    expect(ethVolumeOf(sale('a', 0, 5n))).toBe(5n);
    expect(ethVolumeOf(sale('a', 0, 5n, 'WETH'))).toBe(5n);
    expect(ethVolumeOf(sale('a', 0, 5n, 'USDC', 6))).toBe(0n);
  });
});
