import { describe, expect, it } from 'vitest';
import type { CollectionOfferEvent } from '../../../src/domain/events.ts';
import type { LevelInit } from '../../../src/engine/memory.ts';
import type { OwnOrder } from '../../../src/market/snapshot.ts';
import bidder from '../../../strategies/collection-bidder.ts';
import { brief, eth, harness, hash, NOW, OTHER, ownOffer, run, USDC, WALLET, WETH } from './helpers.ts';

const base = { collection: 'apes', paymentToken: WETH, maxPrice: '0.95' };

function setup(o: {
  params?: Record<string, unknown>;
  floor?: bigint;
  best?: LevelInit | null;
  mine?: OwnOrder[];
  col?: Record<string, unknown>;
}) {
  const h = harness(bidder, { ...base, ...o.params });
  h.market.setCollection({
    slug: 'apes',
    floor: { price: o.floor ?? eth('1') },
    bestCollectionOffer: o.best ?? null,
    ...o.col,
  });
  h.ownOrders = o.mine ?? [];
  return h;
}

function offerEvent(price: bigint, maker = OTHER, n = 50): CollectionOfferEvent {
  return {
    kind: 'collection_offer',
    id: `co-${n}`,
    collection: 'apes' as CollectionOfferEvent['collection'],
    chain: 'ethereum',
    occurredAt: NOW,
    receivedAt: NOW,
    source: 'stream',
    orderHash: hash(n),
    maker,
    taker: null,
    quantity: 1n,
    price,
    paymentToken: WETH,
    expiresAt: NOW + 600_000,
  };
}

const T = 'offer:collection:apes';

describe('collection-bidder: keeps one offer 10% below the floor, outbids up to the cap (0.95)', () => {
  const rows: [string, Parameters<typeof setup>[0], CollectionOfferEvent | undefined, string[]][] = [
    ['places at the distance with no competitor', {}, undefined, [`place ${T} ${eth('0.9')}`]],
    [
      'outbids a better competitor by one step',
      { best: { price: eth('0.92'), orderHash: hash(50) } },
      undefined,
      [`place ${T} ${eth('0.9201')}`],
    ],
    [
      'does not chase a competitor above the cap',
      { best: { price: eth('0.96'), orderHash: hash(50) } },
      undefined,
      [`place ${T} ${eth('0.9')}`],
    ],
    [
      'never outbids itself',
      { best: { price: eth('0.9'), orderHash: hash(1) }, mine: [ownOffer({ hash: 1, price: eth('0.9') })] },
      undefined,
      [],
    ],
    [
      'rebids when outbid',
      { best: { price: eth('0.93'), orderHash: hash(50) }, mine: [ownOffer({ hash: 1, price: eth('0.9') })] },
      undefined,
      [`replace 0001 ${eth('0.9301')}`],
    ],
    [
      'rebids on the stream event before the snapshot knows it',
      { mine: [ownOffer({ hash: 1, price: eth('0.9') })] },
      offerEvent(eth('0.93')),
      [`replace 0001 ${eth('0.9301')}`],
    ],
    [
      'ignores an offer event of our own wallet',
      { mine: [ownOffer({ hash: 1, price: eth('0.9') })] },
      offerEvent(eth('0.93'), WALLET),
      [],
    ],
    [
      'ignores an expired competitor',
      {
        best: { price: eth('0.93'), orderHash: hash(50), expiresAt: NOW - 1 },
        mine: [ownOffer({ hash: 1, price: eth('0.9') })],
      },
      undefined,
      [],
    ],
    [
      'ignores a competitor in another currency',
      {
        best: { price: 930_000n, orderHash: hash(50), token: USDC },
        mine: [ownOffer({ hash: 1, price: eth('0.9') })],
      },
      undefined,
      [],
    ],
    [
      're-prices when the floor moved',
      { params: { maxPrice: '2' }, floor: eth('1.2'), mine: [ownOffer({ hash: 1, price: eth('0.9') })] },
      undefined,
      [`replace 0001 ${eth('1.08')}`],
    ],
    [
      'keeps the offer on a small floor move',
      { floor: eth('1.005'), mine: [ownOffer({ hash: 1, price: eth('0.9') })] },
      undefined,
      [],
    ],
    [
      'renews before expiry',
      { mine: [ownOffer({ hash: 1, price: eth('0.9'), expiresAt: NOW + 5 * 60_000 })] },
      undefined,
      [`replace 0001 ${eth('0.9')}`],
    ],
    [
      'cancels duplicates and keeps the best',
      { mine: [ownOffer({ hash: 1, price: eth('0.88') }), ownOffer({ hash: 2, price: eth('0.9') })] },
      undefined,
      ['cancel 0001'],
    ],
    [
      'places again when its offer expired',
      { mine: [ownOffer({ hash: 1, price: eth('0.9'), expiresAt: NOW - 1 })] },
      undefined,
      [`place ${T} ${eth('0.9')}`],
    ],
    ['does nothing on a stale collection', { col: { stale: true } }, undefined, []],
    ['does nothing while the floor is re-learned', { col: { floorRelearning: true } }, undefined, []],
    [
      'does nothing with an old floor',
      { col: { floor: { price: eth('1'), learnedAt: NOW - 700_000 } } },
      undefined,
      [],
    ],
    [
      'caps the distance price at maxPrice',
      { params: { maxPrice: '0.5' } },
      undefined,
      [`place ${T} ${eth('0.5')}`],
    ],
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

  it('offers expire expiryMinutes from now, with quantity and token from params', async () => {
    const h = setup({ params: { expiryMinutes: 30, quantity: 2 } });
    const [p] = await run(bidder.init?.(h.ctx()));
    expect(p?.kind).toBe('place_offer');
    if (p?.kind !== 'place_offer') return;
    expect(p.expiresAt).toBe(NOW + 30 * 60_000);
    expect(p.quantity).toBe(2n);
    expect(p.paymentToken).toEqual(WETH);
  });

  it('holds its offer and its re-prices back while the budget left cannot cover them (quantity included)', async () => {
    const h = setup({ params: { quantity: 2 }, best: { price: eth('0.93'), orderHash: hash(50) } });
    h.budget = eth('1.8'); // 2 × 0.9301 does not fit
    expect(brief(await run(bidder.onTick?.(h.ctx(), { schedule: 'x', at: NOW })))).toEqual([]);
    h.ownOrders = [ownOffer({ hash: 1, price: eth('0.9') })];
    expect(brief(await run(bidder.onTick?.(h.ctx(), { schedule: 'x', at: NOW })))).toEqual([]);
    h.budget = eth('1.9');
    expect(brief(await run(bidder.onTick?.(h.ctx(), { schedule: 'x', at: NOW })))).toEqual([
      `replace 0001 ${eth('0.9301')}`,
    ]);
    expect(h.logs.map((l) => l.msg)).toHaveLength(2);
  });

  it('puts a new offer up when its offer filled', async () => {
    const h = setup({});
    const out = await run(
      bidder.onOrderUpdate?.(h.ctx(), { kind: 'order', orderHash: hash(1), status: 'filled' }),
    );
    expect(brief(out)).toEqual([`place ${T} ${eth('0.9')}`]);
  });

  it('rejects bad params with the key', () => {
    const r = bidder.params.safeParse({ ...base, paymentToken: { address: 'nope', symbol: 'WETH' } });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['paymentToken', 'address']);
    expect(bidder.params.safeParse({ ...base, distanceBps: 0 }).success).toBe(false);
  });
});
