import { describe, expect, it } from 'vitest';
import type { PaymentToken } from '../../../src/domain/events.ts';
import { ManualClock, MemoryMarket } from '../../../src/engine/memory.ts';
import { RiskManager } from '../../../src/engine/risk/manager.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import { createOrderLedger, type NewLedgerOrder } from '../../../src/ledger/index.ts';
import { buyListing, cancelOrder, type Intent, mint, replaceOffer, swap } from '../../../src/strategy.ts';
import { ETH_TOKEN, eth, hash, NOW, nft, USDC, WETH } from '../strategies/helpers.ts';
import { limits, offer, usdcLimits } from './fixtures.ts';

/** One of our offers, as the executor records it in the ledger before its post. */
function ledgerOffer(a: {
  hash: number;
  price: bigint;
  strategyId?: string | null;
  collection?: string;
  intentId?: string | null;
  quantity?: bigint;
  expiresAt?: number;
  token?: PaymentToken;
}): NewLedgerOrder {
  return {
    orderHash: hash(a.hash),
    intentId: a.intentId === undefined ? `adopted-${a.hash}` : a.intentId,
    strategyId: a.strategyId === undefined ? 's1' : a.strategyId,
    target: `offer:collection:${a.collection ?? 'apes'}`,
    side: 'collection_offer',
    collection: a.collection ?? 'apes',
    contract: null,
    tokenId: null,
    standard: null,
    trait: null,
    price: a.price,
    paymentToken: a.token ?? WETH,
    quantity: a.quantity ?? 1n,
    expiresAt: a.expiresAt ?? NOW + 3_600_000,
  };
}

function setup(l = limits()) {
  const clock = new ManualClock(NOW);
  const market = new MemoryMarket(clock);
  market.setCollection({
    slug: 'apes',
    floor: { price: eth('1') },
    traitFloors: [{ type: 'Fur', value: 'Gold', price: eth('3') }],
  });
  market.setCollection({ slug: 'cats', floor: { price: eth('2') } });
  const orders = createOrderLedger({ clock, chain: 'ethereum' });
  const risk = new RiskManager({ limits: l, orders });
  // what the engine does: units the ledger sees filled become spend
  orders.onChange((c) => {
    if (c.filledUnits > 0n) risk.recordFill(c.order, c.filledUnits, c.filledAmount, clock.now());
  });
  /** An offer of ours standing on the marketplace (posted, then opened). */
  const open = (a: Parameters<typeof ledgerOffer>[0]) => {
    orders.post(ledgerOffer(a));
    orders.note(hash(a.hash), { kind: 'opened' });
  };
  const filled = (h: number, fillId: string, units = 1n, amount: bigint | null = null) =>
    orders.note(hash(h), {
      kind: 'filled',
      fillId,
      units,
      amount,
      txHash: fillId,
      tokenId: null,
      contract: null,
    });
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
  return { clock, market, orders, risk, check, code, open, filled };
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

  it('counts ledger offers (posted included), not listings', () => {
    const s = setup(limits({ eth: { maxExposure: eth('2') } }));
    s.orders.post(ledgerOffer({ hash: 1, price: eth('0.9') }));
    s.orders.post({ ...ledgerOffer({ hash: 2, price: eth('5') }), side: 'listing' });
    expect(s.risk.openOffers().map((e) => e.orderHash)).toEqual([hash(1)]);
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('1.1'));
    expect(s.code(offer('apes', eth('0.9')))).toBeNull();
    expect(s.code(offer('apes', eth('0.3')))).toBe('risk_exposure');
  });

  it('settles: offers the ledger holds count once, failures release, unknown outcomes stay held', () => {
    const s = setup(limits({ eth: { maxExposure: eth('2') } }));
    const a = s.check(offer('apes', eth('0.9')));
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('1.1'));
    // the executor records the order under its intent: the ledger counts it, the reservation no longer
    s.open({ hash: 1, price: eth('0.9'), intentId: a });
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('1.1'));
    s.risk.settle(a, { status: 'done', result: { orderHash: hash(1) } }, NOW);
    expect(s.risk.bookEntry(hash(1))?.amount).toBe(eth('0.9'));
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('1.1'));
    const b = s.check(offer('cats', eth('1')));
    s.risk.settle(b, { status: 'failed' }, NOW);
    const c = s.check(offer('cats', eth('1')));
    s.risk.settle(c, { status: 'unknown' }, NOW);
    expect(s.risk.status(NOW).unknown).toBe(1);
    expect(s.code(offer('cats', eth('0.2')))).toBe('risk_exposure');
  });

  it('a replace commits only the difference when old and new do not fit together, and the old order retires', () => {
    const s = setup(limits({ eth: { maxExposure: eth('1') } }));
    s.open({ hash: 1, price: eth('0.9') });
    const r = s.check(
      replaceOffer({ orderHash: hash(1), price: eth('0.95'), expiresAt: NOW + 10, target: 't' }),
    );
    expect(s.risk.replaceOverlaps(r)).toBe(false);
    // old 0.9 still counts + the difference 0.05 reserved
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('0.05'));
    // the order being replaced is not replaced twice
    expect(
      s.code(replaceOffer({ orderHash: hash(1), price: eth('0.8'), expiresAt: NOW + 10, target: 't' })),
    ).toBe('risk_unknown_order');
    // the executor: the old order is gone — between that and the new post, the new amount stays held
    s.orders.note(hash(1), { kind: 'cancelled', source: 'chain' });
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('0.05'));
    expect(s.code(offer('cats', eth('0.9')))).toBe('risk_exposure');
    s.open({ hash: 2, price: eth('0.95'), intentId: r });
    s.risk.settle(r, { status: 'done', result: { orderHash: hash(2) } }, NOW);
    expect(s.risk.replaceOverlaps(r)).toBe(false);
    expect(s.risk.bookEntry(hash(1))).toBeUndefined();
    expect(s.risk.bookEntry(hash(2))?.amount).toBe(eth('0.95'));
    expect(
      s.code(replaceOffer({ orderHash: hash(2), price: eth('1.01'), expiresAt: NOW + 10, target: 't' })),
    ).toBe('risk_price_over_floor');
  });

  it('a replace whose old and new orders fit together overlaps: the full new amount is reserved', () => {
    const s = setup(limits({ eth: { maxExposure: eth('2') } }));
    s.open({ hash: 1, price: eth('0.9') });
    const r = s.check(
      replaceOffer({ orderHash: hash(1), price: eth('0.95'), expiresAt: NOW + 10, target: 't' }),
    );
    expect(s.risk.replaceOverlaps(r)).toBe(true);
    // old 0.9 + new 0.95 in full
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('0.15'));
    expect(s.code(offer('cats', eth('0.2')))).toBe('risk_exposure');
    expect(s.code(offer('cats', eth('0.15')))).toBeNull();
    expect(s.risk.replaceOverlaps('nope')).toBe(false);
  });

  it('an offer whose off-chain cancel was accepted counts until the signature window passes', () => {
    const s = setup(limits({ eth: { maxExposure: eth('1') } }));
    s.open({ hash: 1, price: eth('0.9') });
    const c = s.check(cancelOrder({ orderHash: hash(1) }));
    s.orders.note(hash(1), { kind: 'cancel_requested' });
    s.orders.note(hash(1), { kind: 'cancel_accepted', validUntil: NOW + 60_000 });
    s.risk.settle(c, { status: 'done', result: {} }, NOW);
    expect(s.risk.bookEntry(hash(1))?.amount).toBe(eth('0.9'));
    expect(s.code(offer('apes', eth('0.2')))).toBe('risk_exposure');
    // not picked again to cut exposure: it is being cancelled already
    expect(s.risk.excess(NOW)).toEqual([]);
    s.clock.advance(59_999);
    expect(s.code(offer('apes', eth('0.2')))).toBe('risk_exposure');
    s.clock.advance(1);
    expect(s.risk.bookEntry(hash(1))).toBeUndefined();
    expect(s.code(offer('apes', eth('0.2')))).toBeNull();
  });

  it('a fill becomes spend once; the daily window rolls', () => {
    const s = setup(limits({ eth: { maxSpendPerDay: eth('1') } }));
    s.open({ hash: 1, price: eth('0.9') });
    expect(s.filled(1, '0xtx1')?.filledUnits).toBe(1n);
    expect(s.filled(1, '0xtx1')).toBeNull();
    expect(s.risk.status(NOW).tokens[0]).toMatchObject({ spentToday: eth('0.9'), exposure: 0n });
    expect(s.code(buy(eth('0.2')))).toBe('risk_daily_cap');
    s.clock.advance(86_400_001);
    s.market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    expect(s.code(buy(eth('0.2')))).toBeNull();
  });

  it('a partial fill: the filled units become spend (at the price paid), the rest stays exposure', () => {
    const s = setup(limits({ eth: { maxExposure: eth('2'), maxSpendPerDay: eth('3') } }));
    s.open({ hash: 1, price: eth('0.5'), quantity: 3n });
    s.filled(1, '0xtx1', 1n, eth('0.45'));
    expect(s.risk.status(NOW).tokens[0]).toMatchObject({ exposure: eth('1'), spentToday: eth('0.45') });
    expect(s.risk.bookEntry(hash(1))).toMatchObject({ quantity: 2n, amount: eth('1') });
  });

  it('listings filled are not spend', () => {
    const s = setup();
    s.orders.post({ ...ledgerOffer({ hash: 1, price: eth('0.9') }), side: 'listing' });
    s.filled(1, '0xtx1');
    expect(s.risk.status(NOW).tokens).toEqual([]);
  });

  it('a swap between ETH and WETH (one account) spends nothing of it: passes a spent daily cap, counts toward no cap; another token still does', () => {
    const s = setup(
      limits({
        eth: { maxSpendPerDay: eth('1') },
        tokens: usdcLimits(),
      }),
    );
    const a = s.check(buy(eth('0.9')));
    s.risk.settle(a, { status: 'done', result: { spent: eth('0.9') } }, NOW);
    const wrap = swap({ fromToken: ETH_TOKEN, toToken: WETH, amountIn: eth('5'), slippageBps: 0 });
    const w = s.check(wrap);
    s.risk.settle(w, { status: 'done', result: { spent: eth('5') } }, NOW);
    expect(
      s.code(swap({ fromToken: WETH, toToken: ETH_TOKEN, amountIn: eth('3'), slippageBps: 0 })),
    ).toBeNull();
    expect(s.risk.status(NOW).tokens[0]).toMatchObject({ spentToday: eth('0.9') });
    expect(s.code(buy(eth('0.05')))).toBeNull();
    // WETH into USDC leaves the account: it counts toward its daily cap as before
    expect(s.code(swap({ fromToken: WETH, toToken: USDC, amountIn: eth('0.2'), slippageBps: 50 }))).toBe(
      'risk_daily_cap',
    );
    expect(s.code(swap({ fromToken: ETH_TOKEN, toToken: WETH, amountIn: 0n, slippageBps: 0 }))).toBe(
      'risk_invalid',
    );
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
    s.open({ hash: 1, price: eth('0.9'), strategyId: 'a' });
    s.open({ hash: 2, price: eth('0.5'), strategyId: 'b', collection: 'cats' });
    s.open({ hash: 3, price: eth('0.3'), strategyId: 'a' });
    expect(s.risk.excess(NOW)).toEqual([]);
    s.open({ hash: 9, price: eth('1'), strategyId: null });
    expect(s.risk.excess(NOW).map((e) => e.orderHash)).toEqual([hash(9)]);
    s.filled(9, '0xtx9');
    // spent 1 today: headroom 1, exposure 1.7 -> cancel 0.9 first
    expect(s.risk.excess(NOW).map((e) => e.orderHash)).toEqual([hash(1)]);
    s.orders.note(hash(1), { kind: 'cancel_requested' });
    expect(s.risk.excess(NOW)).toEqual([]);
    // a cancel in flight (the check of a cancel intent) counts as being cancelled too
    s.orders.note(hash(1), { kind: 'cancel_refused', reason: 'http_500' });
    expect(s.risk.excess(NOW).map((e) => e.orderHash)).toEqual([hash(1)]);
    s.check(cancelOrder({ orderHash: hash(1) }));
    expect(s.risk.excess(NOW)).toEqual([]);
  });

  it('kill switch refuses everything but cancels; pause too; resume keeps the book', () => {
    const s = setup();
    s.open({ hash: 1, price: eth('0.9') });
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

  it('preview answers what check would, and changes nothing: no reservation, no refusal counted', () => {
    const s = setup(limits({ eth: { maxExposure: eth('1') } }));
    const input = { strategyId: 's1', market: s.market.snapshot(), now: NOW };
    expect(s.risk.preview(offer('apes', eth('0.9')), input)).toBeNull();
    expect(s.risk.preview(offer('apes', eth('0.9')), input)).toBeNull();
    expect(s.risk.remaining('s1', WETH, NOW)).toBe(eth('1'));
    expect(s.risk.preview(offer('apes', eth('1.1')), input)).toMatchObject({ code: 'risk_price_over_floor' });
    expect(s.risk.refusalCounts()).toEqual({});
    // the same offer through check reserves: a second one no longer fits, and the preview says so
    s.check(offer('apes', eth('0.9')));
    expect(s.risk.preview(offer('cats', eth('0.5')), input)).toMatchObject({ code: 'risk_exposure' });
    expect(s.code(offer('cats', eth('0.5')))).toBe('risk_exposure');
    expect(s.risk.refusalCounts()).toEqual({ risk_exposure: 1 });
    s.risk.kill(NOW);
    expect(s.risk.preview(buy(eth('0.1')), input)).toEqual({
      code: 'risk_killed',
      message: 'kill switch is on',
    });
    expect(s.risk.preview(cancelOrder({ orderHash: hash(1) }), input)).toBeNull();
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

  it('an order the ledger says filled, expired or cancelled no longer counts', () => {
    const s = setup();
    s.open({ hash: 1, price: eth('0.5'), strategyId: 'x' });
    s.open({ hash: 2, price: eth('0.4'), strategyId: 'x', expiresAt: NOW + 10 });
    s.open({ hash: 3, price: eth('0.3'), strategyId: 'x' });
    expect(s.risk.openOffers('x')).toHaveLength(3);
    expect(s.risk.openOffers('y')).toHaveLength(0);
    s.orders.note(hash(1), { kind: 'marketplace_status', status: 'FULFILLED', remaining: 0n });
    s.orders.note(hash(3), { kind: 'cancelled', source: 'chain' });
    expect(s.risk.openOffers().map((e) => e.orderHash)).toEqual([hash(2)]);
    // time alone moves (the book is read again as it was), then reaches its expiry
    s.clock.advance(9);
    expect(s.risk.openOffers().map((e) => e.orderHash)).toEqual([hash(2)]);
    // expired: no longer counted from its expiry on, even before the ledger's tick
    s.clock.advance(1);
    expect(s.risk.openOffers()).toHaveLength(0);
    s.orders.tick();
    expect(s.orders.get(hash(2))?.state).toBe('expired');
    expect(s.risk.status(s.clock.now()).tokens[0]).toMatchObject({ exposure: 0n, spentToday: eth('0.5') });
    expect(s.risk.status(s.clock.now()).openOffers).toBe(0);
  });
});

describe('risk totals over the day window', () => {
  it('the running sums equal a walk over the day’s spends, as spends leave the window (swaps count only for the day)', () => {
    let seed = 99;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const l = limits();
    const clock = new ManualClock(NOW);
    const entries = Array.from({ length: 300 }, (_, i) => ({
      at: NOW + i * 600_000 + Math.floor(rnd() * 1000),
      strategyId: ['s1', 's2', 's3'][Math.floor(rnd() * 3)] as string,
      collection: rnd() < 0.1 ? null : (['apes', 'cats'][Math.floor(rnd() * 2)] as string),
      token: '0x0000000000000000000000000000000000000000',
      account: rnd() < 0.8 ? 'eth-like' : '0xusdc',
      amount: BigInt(1 + Math.floor(rnd() * 10_000)),
      kind: (['buy', 'fill', 'mint', 'swap'] as const)[Math.floor(rnd() * 4)] as 'buy',
      items: BigInt(Math.floor(rnd() * 3)),
      intentId: null,
    }));
    type T = { totals(now: number, key: string, f?: { strategyId?: string; collection?: string }): unknown };
    const fast = new RiskManager({ limits: l, orders: createOrderLedger({ clock, chain: 'ethereum' }) });
    const walk = new RiskManager({ limits: l, orders: createOrderLedger({ clock, chain: 'ethereum' }) });
    fast.loadSpends(entries);
    walk.loadSpends(entries);
    // the walking path, as when spends came out of time order
    (walk as unknown as { spendsInOrder: boolean }).spendsInOrder = false;
    let compared = 0;
    for (let now = NOW; now < NOW + 300 * 600_000 + 2 * l.dayMs; now += 1_800_000) {
      for (const key of ['eth-like', '0xusdc'])
        for (const f of [{}, { strategyId: 's2' }, { collection: 'cats' }, { collection: 'apes' }]) {
          const a = (fast as unknown as T).totals(now, key, f);
          expect(a, `${now} ${key} ${JSON.stringify(f)}`).toEqual((walk as unknown as T).totals(now, key, f));
          compared++;
        }
    }
    expect(compared).toBeGreaterThan(1000);
    // and the day's spend moved: some of it left the window into the all-time totals
    const end = (fast as unknown as T).totals(NOW + 300 * 600_000 + 2 * l.dayMs, 'eth-like') as {
      spentDay: bigint;
      spentAll: bigint;
    };
    expect(end.spentDay).toBe(0n);
    expect(end.spentAll).toBeGreaterThan(0n);
  });
});
