import { describe, expect, it } from 'vitest';
import type { TraitOfferEvent } from '../../../src/domain/events.ts';
import type { LevelInit } from '../../../src/engine/memory.ts';
import type { OwnOrder } from '../../../src/market/snapshot.ts';
import { traitKey } from '../../../src/market/snapshot.ts';
import type { PlaceOffer } from '../../../src/strategy.ts';
import bidder from '../../../strategies/trait-bidder.ts';
import { brief, eth, harness, hash, NOW, OTHER, ownOffer, run, USDC, WETH } from './helpers.ts';

const base = { collection: 'apes', paymentToken: WETH, maxPrice: '5' };
const GOLD = { type: 'Fur', value: 'Gold' };
const BROWN = { type: 'Fur', value: 'Brown' };
const CAP = { type: 'Hat', value: 'Cap' };
const t = (x: { type: string; value: string }) => `offer:trait:apes:${x.type}:${x.value}`;

function setup(o: {
  params?: Record<string, unknown>;
  best?: Record<string, LevelInit>;
  mine?: OwnOrder[];
  col?: Record<string, unknown>;
}) {
  const h = harness(bidder, { ...base, ...o.params });
  h.market.setCollection({
    slug: 'apes',
    floor: { price: eth('1') },
    traitFloors: [
      { ...GOLD, price: eth('3') },
      { ...BROWN, price: eth('1') },
      { ...CAP, price: eth('1.2') },
      { ...BROWN, price: 500_000n, token: USDC },
    ],
    bestTraitOffers: o.best ?? {},
    ...o.col,
  });
  h.ownOrders = o.mine ?? [];
  return h;
}

const gold = traitKey('Fur', 'Gold');
const mineGold = (price: string, n = 1, extra: Partial<Parameters<typeof ownOffer>[0]> = {}) =>
  ownOffer({ hash: n, price: eth(price), trait: GOLD, ...extra });

function traitEvent(trait: { type: string; value: string }, price: bigint): TraitOfferEvent {
  return {
    kind: 'trait_offer',
    id: 'to-1',
    collection: 'apes' as TraitOfferEvent['collection'],
    chain: 'ethereum',
    occurredAt: NOW,
    receivedAt: NOW,
    source: 'stream',
    orderHash: hash(77),
    maker: OTHER,
    taker: null,
    quantity: 1n,
    price,
    paymentToken: WETH,
    expiresAt: null,
    traits: [trait],
  };
}

describe('trait-bidder: offers 10% below each trait floor, best margins first', () => {
  const rows: [string, Parameters<typeof setup>[0], TraitOfferEvent | undefined, string[]][] = [
    [
      'every trait with a floor, by margin',
      {},
      undefined,
      [`place ${t(GOLD)} ${eth('2.7')}`, `place ${t(CAP)} ${eth('1.08')}`, `place ${t(BROWN)} ${eth('0.9')}`],
    ],
    [
      'only the best maxOffers',
      { params: { maxOffers: 2 } },
      undefined,
      [`place ${t(GOLD)} ${eth('2.7')}`, `place ${t(CAP)} ${eth('1.08')}`],
    ],
    [
      'only configured traits',
      { params: { traits: [BROWN] } },
      undefined,
      [`place ${t(BROWN)} ${eth('0.9')}`],
    ],
    [
      'skips bids under minPrice',
      { params: { minPrice: '1' } },
      undefined,
      [`place ${t(GOLD)} ${eth('2.7')}`, `place ${t(CAP)} ${eth('1.08')}`],
    ],
    [
      'outbids a competitor within the cap',
      { params: { traits: [GOLD] }, best: { [gold]: { price: eth('2.8'), orderHash: hash(60) } } },
      undefined,
      [`place ${t(GOLD)} ${eth('2.8001')}`],
    ],
    [
      'leaves a trait alone when it cannot be on top within the cap',
      { params: { traits: [GOLD, CAP] }, best: { [gold]: { price: eth('2.95'), orderHash: hash(60) } } },
      undefined,
      [`place ${t(CAP)} ${eth('1.08')}`],
    ],
    [
      'keeps its own top offer',
      {
        params: { traits: [GOLD] },
        best: { [gold]: { price: eth('2.7'), orderHash: hash(1) } },
        mine: [mineGold('2.7')],
      },
      undefined,
      [],
    ],
    [
      'rebids when outbid',
      {
        params: { traits: [GOLD] },
        best: { [gold]: { price: eth('2.8'), orderHash: hash(60) } },
        mine: [mineGold('2.7')],
      },
      undefined,
      [`replace 0001 ${eth('2.8001')}`],
    ],
    [
      'rebids on a trait_offer event',
      { params: { traits: [CAP] } },
      traitEvent(CAP, eth('1.1')),
      [`place ${t(CAP)} ${eth('1.1001')}`],
    ],
    [
      'cancels an offer that fell out of the best maxOffers',
      { params: { maxOffers: 2 }, mine: [ownOffer({ hash: 5, price: eth('0.9'), trait: BROWN })] },
      undefined,
      ['cancel 0005', `place ${t(GOLD)} ${eth('2.7')}`, `place ${t(CAP)} ${eth('1.08')}`],
    ],
    [
      'cancels offers on traits no longer configured',
      { params: { traits: [CAP] }, mine: [mineGold('2.7', 3)] },
      undefined,
      ['cancel 0003', `place ${t(CAP)} ${eth('1.08')}`],
    ],
    [
      'keeps an offer on a configured trait whose floor is unknown right now',
      {
        params: { traits: [{ type: 'Eyes', value: 'Laser' }] },
        mine: [ownOffer({ hash: 4, price: eth('1'), trait: { type: 'Eyes', value: 'Laser' } })],
      },
      undefined,
      [],
    ],
    [
      'cancels duplicates on one trait',
      { params: { traits: [GOLD] }, mine: [mineGold('2.7', 1), mineGold('2.6', 2)] },
      undefined,
      ['cancel 0002'],
    ],
    [
      'renews before expiry',
      { params: { traits: [GOLD] }, mine: [mineGold('2.7', 1, { expiresAt: NOW + 60_000 })] },
      undefined,
      [`replace 0001 ${eth('2.7')}`],
    ],
    ['does nothing with old trait floors', { col: { traitFloorsAt: NOW - 700_000 } }, undefined, []],
    ['does nothing on a stale collection', { col: { stale: true } }, undefined, []],
    ['does nothing without trait floors', { col: { traitFloors: null } }, undefined, []],
  ];
  for (const [name, o, ev, want] of rows) {
    it(name, async () => {
      const h = setup(o);
      const out = ev
        ? await run(bidder.onEvent?.(h.ctx(), ev))
        : await run(bidder.onTick?.(h.ctx(), { schedule: 'x', at: NOW }));
      expect(brief(out)).toEqual(want);
    });
  }

  it('a budget that cannot cover an offer holds it back (best margins first), says so once, and again when it can', async () => {
    const h = setup({});
    const tick = async () => brief(await run(bidder.onTick?.(h.ctx(), { schedule: 'x', at: NOW })));
    const all = await tick();
    expect(all.length).toBeGreaterThan(1);
    h.budget = eth('2.8'); // the Gold offer (2.7) fits, nothing after it
    expect(await tick()).toEqual([all[0]]);
    expect(await tick()).toEqual([all[0]]);
    h.budget = 0n; // spent: nothing at all, not even a replace
    expect(await tick()).toEqual([]);
    h.budget = eth('100');
    expect(await tick()).toEqual(all);
    expect(h.logs.map((l) => l.msg)).toEqual([
      'the budget left (spend, open offers, daily cap) does not cover the next offer: holding it back',
      'the budget covers offers again',
    ]);
  });

  it('priorities follow the margin so a short write budget goes to the best traits', async () => {
    const out = (await run(bidder.onTick?.(setup({}).ctx(), { schedule: 'x', at: NOW }))) as PlaceOffer[];
    const p = out.map((i) => i.priority);
    expect(p).toEqual([...p].sort((a, b) => b - a));
    expect(out[0]?.offer).toEqual({ type: 'trait', collection: 'apes', traitType: 'Fur', value: 'Gold' });
  });

  it('rejects an empty trait list', () => {
    expect(bidder.params.safeParse({ ...base, traits: [] }).success).toBe(false);
  });
});
