import { describe, expect, it } from 'vitest';
import { ManualClock, MemoryMarket } from '../../../src/engine/memory.ts';
import { RiskManager } from '../../../src/engine/risk/manager.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import { buyListing, cancelOrder, type Intent, mint, replaceOffer, swap } from '../../../src/strategy.ts';
import { ETH_TOKEN, eth, hash, NOW, nft, ownOffer, USDC, WETH } from '../strategies/helpers.ts';
import { limits, offer } from './fixtures.ts';

function setup(l = limits()) {
  const clock = new ManualClock(NOW);
  const market = new MemoryMarket(clock);
  market.setCollection({
    slug: 'apes',
    floor: { price: eth('1') },
    traitFloors: [{ type: 'Fur', value: 'Gold', price: eth('3') }],
  });
  market.setCollection({ slug: 'cats', floor: { price: eth('2') } });
  const risk = new RiskManager({ limits: l });
  let n = 0;
  const check = (intent: Intent, strategyId = 's1') => {
    const intentId = `i${++n}`;
    risk.check(intent, { intentId, strategyId, market: market.snapshot(), now: clock.now() });
    return intentId;
  };
  const code = (intent: Intent, strategyId = 's1'): string | null => {
    try {
      check(intent, strategyId);
      return null;
    } catch (e) {
      if (e instanceof RejectedError) return e.code;
      throw e;
    }
  };
  return { clock, market, risk, check, code };
}

const buy = (price: bigint, collection = 'apes', trait?: { type: string; value: string }) =>
  buyListing({
    orderHash: hash(900),
    collection,
    nft: nft(1),
    maxPrice: price,
    paymentToken: ETH_TOKEN,
    ...(trait ? { trait } : {}),
  });

describe('risk: checks of one intent (floor 1.0, max per item 5, exposure 10, daily 10)', () => {
  const rows: [
    string,
    () => Intent,
    Parameters<typeof limits>[0],
    Record<string, unknown> | null,
    string | null,
  ][] = [
    ['an offer below the floor passes', () => offer('apes', eth('0.9')), {}, null, null],
    [
      'an offer above the floor is refused',
      () => offer('apes', eth('1.1')),
      {},
      null,
      'risk_price_over_floor',
    ],
    [
      'a floor allowance in bps lets it pass',
      () => offer('apes', eth('1.1')),
      { maxPriceVsFloorBps: 11_000 },
      null,
      null,
    ],
    [
      'a trait offer is compared with its trait floor',
      () => offer('apes', eth('2.9'), 0, { trait: 'Gold' }),
      {},
      null,
      null,
    ],
    [
      'a trait offer above its trait floor is refused',
      () => offer('apes', eth('3.1'), 0, { trait: 'Gold' }),
      {},
      null,
      'risk_price_over_floor',
    ],
    [
      'a trait without a floor is refused',
      () => offer('apes', eth('0.5'), 0, { trait: 'Silver' }),
      {},
      null,
      'risk_no_floor',
    ],
    [
      'above maxPricePerItem is refused',
      () => offer('cats', eth('1.5')),
      { eth: { maxPricePerItem: eth('1') } },
      null,
      'risk_max_price',
    ],
    [
      'a token without limits is refused',
      () => swap({ fromToken: USDC, toToken: WETH, amountIn: 10n, slippageBps: 50 }),
      {},
      null,
      'risk_no_limits',
    ],
    [
      'a stale collection is refused',
      () => offer('apes', eth('0.5')),
      {},
      { stale: true },
      'risk_collection_stale',
    ],
    [
      'a collection with old information is refused',
      () => offer('apes', eth('0.5')),
      {},
      { ageMs: 400_000 },
      'risk_collection_stale',
    ],
    [
      'an old floor is refused',
      () => offer('apes', eth('0.5')),
      {},
      { floor: { price: eth('1'), learnedAt: NOW - 1_000_000 } },
      'risk_floor_stale',
    ],
    [
      'a floor being re-learned is no reference',
      () => offer('apes', eth('0.5')),
      {},
      { floorRelearning: true },
      'risk_no_floor',
    ],
    [
      'an unwatched collection is refused',
      () => offer('dogs', eth('0.5')),
      {},
      null,
      'risk_unknown_collection',
    ],
    ['a zero price is refused', () => offer('apes', 0n), {}, null, 'risk_invalid'],
    ['a buy at the floor passes', () => buy(eth('1')), {}, null, null],
    ['a buy above the floor is refused', () => buy(eth('1.2')), {}, null, 'risk_price_over_floor'],
    [
      'a trait buy is compared with the trait floor',
      () => buy(eth('2.5'), 'apes', { type: 'Fur', value: 'Gold' }),
      {},
      null,
      null,
    ],
    [
      'a mint within caps passes (no floor needed)',
      () => mint({ drop: 'd', quantity: 2n, maxPricePerToken: eth('0.1'), paymentToken: ETH_TOKEN }),
      {},
      null,
      null,
    ],
    [
      'a buy above the daily cap is refused',
      () => buy(eth('1')),
      { eth: { maxSpendPerDay: eth('0.5') } },
      null,
      'risk_daily_cap',
    ],
    [
      'a buy above the budget is refused',
      () => buy(eth('1')),
      { eth: { budget: eth('0.5') } },
      null,
      'risk_budget',
    ],
    [
      'a buy above the strategy budget is refused',
      () => buy(eth('1')),
      { strategies: new Map([['s1', { budgets: new Map([['ETH', eth('0.5')]]) }]]) },
      null,
      'risk_strategy_budget',
    ],
    [
      'a collection exposure cap applies',
      () => offer('apes', eth('0.9')),
      { collections: new Map([['apes', { maxExposure: eth('0.5') }]]) },
      null,
      'risk_collection_exposure',
    ],
    [
      'a collection item cap applies',
      () => offer('apes', eth('0.9')),
      { collectionDefaults: { maxItemsPerDay: 0 } },
      null,
      'risk_collection_items',
    ],
    [
      'a cancel always passes',
      () => cancelOrder({ orderHash: hash(1) }),
      { eth: { maxSpendPerDay: 0n } },
      null,
      null,
    ],
    [
      'replacing an unknown order is refused',
      () => replaceOffer({ orderHash: hash(5), price: eth('0.9'), expiresAt: NOW + 1, target: 't' }),
      {},
      null,
      'risk_unknown_order',
    ],
  ];
  for (const [name, intent, l, col, want] of rows) {
    it(name, () => {
      const s = setup(limits(l));
      if (col) s.market.setCollection({ slug: 'apes', floor: { price: eth('1') }, ...col });
      expect(s.code(intent())).toBe(want);
      if (want !== null) expect(s.risk.refusalCounts()[want]).toBe(1);
    });
  }
});

describe('risk: worst-case exposure, spend and switches', () => {
  it('counts every open offer as if all filled at once, in flight included', () => {
    const s = setup(limits({ eth: { maxExposure: eth('2') } }));
    s.check(offer('apes', eth('0.9')));
    s.check(offer('cats', eth('0.9'), 0));
    expect(s.code(offer('apes', eth('0.3')))).toBe('risk_exposure');
    expect(s.code(offer('apes', eth('0.2')))).toBeNull();
  });

  it('counts open exposure against the daily cap too', () => {
    const s = setup(limits({ eth: { maxSpendPerDay: eth('1.5') } }));
    s.check(offer('apes', eth('0.9')));
    expect(s.code(buy(eth('0.7')))).toBe('risk_daily_cap');
  });

  it('settles: offers enter the book, failures release, unknown outcomes stay held', () => {
    const s = setup(limits({ eth: { maxExposure: eth('2') } }));
    const a = s.check(offer('apes', eth('0.9')));
    s.risk.settle(a, { status: 'done', result: { orderHash: hash(1) } }, NOW);
    expect(s.risk.bookEntry(hash(1))?.amount).toBe(eth('0.9'));
    const b = s.check(offer('cats', eth('1')));
    s.risk.settle(b, { status: 'failed' }, NOW);
    const c = s.check(offer('cats', eth('1')));
    s.risk.settle(c, { status: 'unknown' }, NOW);
    expect(s.risk.status(NOW).unknown).toBe(1);
    expect(s.code(offer('cats', eth('0.2')))).toBe('risk_exposure');
  });

  it('a replace commits only the difference and retires the old order', () => {
    const s = setup(limits({ eth: { maxExposure: eth('1') } }));
    s.risk.adopt(ownOffer({ hash: 1, price: eth('0.9'), token: WETH }), 's1');
    const r = s.check(
      replaceOffer({ orderHash: hash(1), price: eth('0.95'), expiresAt: NOW + 10, target: 't' }),
    );
    s.risk.settle(r, { status: 'done', result: { orderHash: hash(2) } }, NOW);
    expect(s.risk.bookEntry(hash(1))).toBeUndefined();
    expect(s.risk.bookEntry(hash(2))?.amount).toBe(eth('0.95'));
    expect(
      s.code(replaceOffer({ orderHash: hash(2), price: eth('1.01'), expiresAt: NOW + 10, target: 't' })),
    ).toBe('risk_price_over_floor');
  });

  it('a fill becomes spend once; the daily window rolls', () => {
    const s = setup(limits({ eth: { maxSpendPerDay: eth('1') } }));
    s.risk.adopt(ownOffer({ hash: 1, price: eth('0.9'), token: WETH }), 's1');
    expect(s.risk.observeFill(hash(1), NOW, eth('0.9'))).toBeDefined();
    expect(s.risk.observeFill(hash(1), NOW, eth('0.9'))).toBeUndefined();
    expect(s.code(buy(eth('0.2')))).toBe('risk_daily_cap');
    s.clock.advance(86_400_001);
    s.market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    expect(s.code(buy(eth('0.2')))).toBeNull();
  });

  it('the budget counts all spend ever, the daily cap only the last 24 h', () => {
    const s = setup(limits({ eth: { budget: eth('1'), maxSpendPerDay: eth('0.8') } }));
    const a = s.check(buy(eth('0.7')));
    s.risk.settle(a, { status: 'done', result: { spent: eth('0.7') } }, NOW);
    expect(s.code(buy(eth('0.2')))).toBe('risk_daily_cap');
    s.clock.advance(86_400_001);
    s.market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    expect(s.code(buy(eth('0.4')))).toBe('risk_budget');
    expect(s.code(buy(eth('0.3')))).toBeNull();
    expect(s.risk.status(s.clock.now()).tokens[0]).toMatchObject({ spentToday: 0n, spentTotal: eth('0.7') });
  });

  it('excess: when spend eats the headroom, the largest offers are cancelled first, once', () => {
    const s = setup(limits({ eth: { maxSpendPerDay: eth('2'), maxExposure: eth('2') } }));
    s.risk.adopt(ownOffer({ hash: 1, price: eth('0.9'), token: WETH }), 'a');
    s.risk.adopt(ownOffer({ hash: 2, price: eth('0.5'), token: WETH, collection: 'cats' }), 'b');
    s.risk.adopt(ownOffer({ hash: 3, price: eth('0.3'), token: WETH }), 'a');
    expect(s.risk.excess(NOW)).toEqual([]);
    s.risk.adopt(ownOffer({ hash: 9, price: eth('1'), token: WETH }), null);
    s.risk.observeFill(hash(9), NOW, eth('1'));
    // spent 1 today: headroom 1, exposure 1.7 -> cancel 0.9 first
    expect(s.risk.excess(NOW).map((e) => e.orderHash)).toEqual([hash(1)]);
    s.risk.markCancelling(hash(1), true);
    expect(s.risk.excess(NOW)).toEqual([]);
  });

  it('kill switch refuses everything but cancels; pause too; resume keeps the book', () => {
    const s = setup();
    s.risk.adopt(ownOffer({ hash: 1, price: eth('0.9'), token: WETH }), 's1');
    s.risk.kill(NOW);
    expect(s.code(offer('apes', eth('0.5')))).toBe('risk_killed');
    expect(s.code(cancelOrder({ orderHash: hash(1) }))).toBeNull();
    s.risk.resume();
    s.risk.pause(NOW);
    expect(s.code(buy(eth('0.5')))).toBe('risk_paused');
    s.risk.resume();
    expect(s.code(buy(eth('0.5')))).toBeNull();
    expect(s.risk.openOffers()).toHaveLength(1);
  });

  it('remaining: the smallest of exposure room, daily cap, budgets', () => {
    const s = setup(
      limits({
        eth: { maxExposure: eth('3'), maxSpendPerDay: eth('2'), budget: eth('5') },
        strategies: new Map([['s1', { budgets: new Map([['WETH', eth('1.5')]]) }]]),
      }),
    );
    expect(s.risk.remaining('s2', WETH, NOW)).toBe(eth('2'));
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('1.5'));
    s.check(offer('apes', eth('0.5')));
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('1'));
    expect(s.risk.remaining('s1', USDC, NOW)).toBeNull();
  });

  it('sync: adopts own open offers it did not know and drops closed or expired ones', () => {
    const s = setup();
    s.market.ownOrders = [
      ownOffer({ hash: 1, price: eth('0.5') }),
      ownOffer({ hash: 2, price: eth('0.4'), expiresAt: NOW + 10 }),
    ];
    s.market.touch();
    s.risk.sync(s.market.snapshot(), NOW, () => 'x');
    expect(s.risk.openOffers('x')).toHaveLength(2);
    s.market.ownOrders = [ownOffer({ hash: 1, price: eth('0.5'), status: 'filled' })];
    s.market.touch();
    s.clock.advance(20);
    expect(s.risk.sync(s.market.snapshot(), NOW + 20, () => 'x')).toEqual([hash(1)]);
    expect(s.risk.openOffers()).toHaveLength(0);
    expect(s.risk.status(NOW + 20).tokens[0]?.spentToday).toBe(eth('0.5'));
  });
});
