import { describe, expect, it } from 'vitest';
import type { MarketEvent, SaleEvent } from '../../../src/domain/events.ts';
import { createEngine, type Engine, type EngineOptions } from '../../../src/engine/engine.ts';
import type { LoadedStrategy } from '../../../src/engine/loader.ts';
import {
  ManualClock,
  MemoryExecutor,
  MemoryJournal,
  MemoryMarket,
  MemorySpendLedger,
  MemoryStateStore,
} from '../../../src/engine/memory.ts';
import { RejectedError, TransientError } from '../../../src/errors/index.ts';
import { createOrderLedger, type OrderLedger, type OrderSide } from '../../../src/ledger/index.ts';
import { partMask } from '../../../src/market/snapshot.ts';
import { createLogger } from '../../../src/observability/index.ts';
import { cancelOrder, defineStrategy, type Intent, type OrderUpdate, z } from '../../../src/strategy.ts';
import { memorySink } from '../observability/sink.ts';
import { eth, hash, listing, NOW, nft, OTHER, WALLET } from '../strategies/helpers.ts';
import { FixedWriteBudget, limits, load, ManualCron, offer, scripted } from './fixtures.ts';

function setup(strategies: LoadedStrategy[], o: Partial<EngineOptions> = {}) {
  const clock = new ManualClock(NOW);
  const market = new MemoryMarket(clock);
  market.setCollection({
    slug: 'apes',
    floor: { price: eth('1') },
    traitFloors: [{ type: 'Fur', value: 'Gold', price: eth('3') }],
  });
  market.setCollection({ slug: 'cats', floor: { price: eth('2') } });
  const executor = new MemoryExecutor();
  const journal = new MemoryJournal();
  const stateStore = new MemoryStateStore();
  const ledger = new MemorySpendLedger();
  const cron = new ManualCron();
  const engine = createEngine({
    strategies,
    market,
    executor,
    journal,
    stateStore,
    spendLedger: ledger,
    risk: limits(),
    clock,
    cron,
    retryIntervalMs: 0,
    hookTimeoutMs: 50,
    ...o,
  });
  return { clock, market, executor, journal, stateStore, ledger, cron, engine };
}

/** One of our orders as the order desk records it (posted, then open), in the engine's ledger. */
function own(
  ledger: OrderLedger,
  a: {
    hash: number;
    price: bigint;
    strategyId?: string | null;
    target?: string;
    collection?: string;
    side?: OrderSide;
  },
): void {
  const h = hash(a.hash);
  ledger.post({
    orderHash: h,
    intentId: null,
    strategyId: a.strategyId === undefined ? 'a' : a.strategyId,
    target: a.target ?? `offer:collection:${a.collection ?? 'apes'}`,
    side: a.side ?? 'collection_offer',
    collection: a.collection ?? 'apes',
    contract: null,
    tokenId: null,
    standard: null,
    trait: null,
    price: a.price,
    paymentToken: {
      address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as never,
      symbol: 'WETH',
      decimals: 18,
    },
    quantity: 1n,
    expiresAt: NOW + 3_600_000,
  });
  ledger.note(h, { kind: 'opened' });
}

/** The daemon feeds every market event to the ledger, then to the engine. */
async function feed(engine: Engine, event: MarketEvent): Promise<void> {
  engine.orders.apply(event);
  await engine.onEvent(event);
}

function sale(orderHash: string, price: bigint): SaleEvent {
  return {
    kind: 'sale',
    id: `sale-${orderHash}`,
    collection: 'apes' as SaleEvent['collection'],
    chain: 'ethereum',
    occurredAt: NOW,
    receivedAt: NOW,
    source: 'stream',
    nft: nft(3),
    orderHash: orderHash as SaleEvent['orderHash'],
    txHash: null,
    seller: OTHER,
    buyer: WALLET,
    quantity: 1n,
    price,
    paymentToken: {
      address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as never,
      symbol: 'WETH',
      decimals: 18,
    },
  };
}

describe('engine: the intent pipeline', () => {
  it('event -> hook -> risk -> journal (write-ahead) -> executor; owners and status follow', async () => {
    const updates: OrderUpdate[] = [];
    const s = setup([
      load(
        scripted('a', { event: () => [offer('apes', eth('0.9'))] }, (u) => updates.push(u as OrderUpdate)),
      ),
    ]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: eth('2') }));
    await s.engine.idle();
    expect(s.executor.calls.map((c) => c.intent.kind)).toEqual(['place_offer']);
    const [rec] = s.journal.list();
    expect(rec?.state).toBe('done');
    expect(s.journal.history.get(rec?.id ?? '')).toEqual(['pending', 'sent', 'done']);
    expect(rec?.orderHash).toBe(hash(1));
    expect(updates).toMatchObject([{ kind: 'intent_result', status: 'done', orderHash: hash(1) }]);
    const st = s.engine.status();
    expect(st.intents).toMatchObject({ emitted: 1, accepted: 1, done: 1, failed: 0 });
    expect(st.risk.openOffers).toBe(1);
    expect(st.strategies[0]).toMatchObject({ id: 'a', state: 'idle', module: 'a', version: '1.0.0' });
  });

  it('only subscribed kinds and collections reach onEvent', async () => {
    let calls = 0;
    const def = scripted('a', {
      event: () => {
        calls++;
        return [];
      },
      events: ['sale'],
    });
    const s = setup([validateWithCollections(def, ['cats'])]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.onEvent({ ...sale(hash(5), 1n), collection: 'apes' as never });
    await s.engine.onEvent({ ...sale(hash(5), 1n), collection: 'cats' as never });
    expect(calls).toBe(1);
  });

  it('a strategy that follows changes hears an event only when what it follows moved, its orders spoke, or a held NFT is named', async () => {
    const seen: string[] = [];
    const def = defineStrategy({
      id: 'follower',
      version: '1.0.0',
      params: z.strictObject({}),
      subscriptions: { collections: ['apes'], changes: ['floor', 'holdings'], held: ['item_offer'] },
      onEvent: (_ctx, ev) => {
        seen.push(`${ev.kind}:${ev.id}`);
        return [];
      },
    });
    const clock = new ManualClock(NOW);
    const view = new MemoryMarket(clock);
    view.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    let floorStamp = 0;
    const masks: number[] = [];
    let held: readonly { nftKey: string }[] = [];
    const market = {
      snapshot: () => view.snapshot(),
      changeStamp: (slug: string, mask: number) => {
        masks.push(mask);
        return slug === 'apes' ? floorStamp : -1;
      },
      holdings: () => ({
        all: () => held as never,
        get: (k: string) => held.find((h) => h.nftKey === k) as never,
      }),
    };
    const s = setup([load(def as never)], { market, clock });
    await s.engine.start();
    const itemOffer = (id: number, n: number): MarketEvent =>
      ({ ...listing({ id: n, price: 1n, hash: 100 + id }), kind: 'item_offer', id: `offer-${id}` }) as never;
    const ev = (id: number) => ({ ...listing({ price: 1n, hash: id }), id: `l${id}` });
    await s.engine.onEvent(ev(1)); // nothing seen yet: it hears
    await s.engine.onEvent(ev(2)); // nothing moved
    floorStamp = 7; // the floor moved (an event, a REST answer: the view's stamp says so)
    await s.engine.onEvent(ev(3));
    await s.engine.onEvent(ev(4));
    held = [{ nftKey: `ethereum/${nft(9).contract}/9` }]; // a fill: the holdings changed
    await s.engine.onEvent(ev(5));
    await s.engine.onEvent(itemOffer(6, 8)); // an offer on an NFT we do not hold
    await s.engine.onEvent(itemOffer(7, 9)); // on one we hold
    await s.engine.onEvent({ ...ev(8), collection: 'cats' as never }); // not its collection
    // an update about its orders: the next event reaches it whatever moved
    own(s.engine.orders, { hash: 42, price: eth('0.5'), strategyId: 'follower' });
    s.engine.orders.note(hash(42), { kind: 'cancelled', source: 'chain' });
    await s.engine.idle();
    await s.engine.onEvent(ev(9));
    await s.engine.onEvent(ev(10));
    expect(seen).toEqual(['listing:l1', 'listing:l3', 'listing:l5', 'item_offer:offer-7', 'listing:l9']);
    expect(new Set(masks)).toEqual(new Set([partMask(['floor'])]));
  });

  it('coalesces: a newer intent for a queued target replaces it; an in-flight target skips', async () => {
    let price = eth('0.5');
    const s = setup([load(scripted('a', { event: () => [offer('apes', price)] }))], { maxInFlight: 1 });
    const gate: { open?: () => void } = {};
    s.executor.behave = (intent) =>
      intent.kind === 'cancel_order'
        ? {}
        : new Promise((res) => {
            gate.open = () => res({ orderHash: s.executor.nextHash() });
          });
    await s.engine.start();
    // occupy the only slot with another strategy's target
    const busy = setup([]);
    void busy;
    await s.engine.onEvent(listing({ price: 1n })); // 0.5 goes in flight
    price = eth('0.6');
    await s.engine.onEvent(listing({ price: 1n })); // same target in flight -> skipped
    expect(s.engine.status().skipped.byReason).toEqual({ in_flight: 1 });
    gate.open?.();
    await s.engine.idle();
    expect(s.executor.calls.map((c) => c.intent.kind === 'place_offer' && c.intent.price)).toEqual([
      eth('0.5'),
    ]);
  });

  it('coalesces queued intents while the slots are full: the newest wins', async () => {
    let n = 0;
    const targets = () => [offer('cats', eth('0.5') + BigInt(n++))];
    const s = setup(
      [
        load(scripted('a', { event: () => [offer('apes', eth('0.5'))] })),
        load(scripted('b', { event: targets })),
      ],
      {
        maxInFlight: 1,
      },
    );
    const gates: (() => void)[] = [];
    s.executor.behave = () =>
      new Promise((res) => gates.push(() => res({ orderHash: s.executor.nextHash() })));
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n })); // a: apes in flight, b: cats queued (slot full)
    await s.engine.onEvent(listing({ price: 1n })); // a: apes skipped (in flight), b: cats replaces queued
    expect(s.engine.status().skipped.byReason).toMatchObject({ superseded: 1 });
    while (gates.length > 0 || s.engine.status().intents.inFlight > 0) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await s.engine.idle();
    const prices = s.executor.calls.map((c) =>
      c.intent.kind === 'place_offer' ? `${c.intent.target}:${c.intent.price}` : '',
    );
    expect(prices).toEqual([
      `offer:collection:apes:${eth('0.5')}`,
      `offer:collection:cats:${eth('0.5') + 1n}`,
    ]);
  });

  it('under a short write budget spends writes on the highest-value intents and says what it skipped', async () => {
    const intents: Intent[] = [
      offer('apes', eth('0.5'), 1, { trait: 'A' }),
      offer('apes', eth('0.5'), 9, { trait: 'B' }),
      offer('apes', eth('0.5'), 5, { trait: 'C' }),
    ];
    const budget = new FixedWriteBudget(4);
    const s = setup([load(scripted('a', { tick: () => intents }))], {
      writeBudget: budget,
      queueTtlMs: 10_000,
      risk: limits({ maxPriceVsFloorBps: 100_000 }),
    });
    s.market.setCollection({
      slug: 'apes',
      floor: { price: eth('1') },
      traitFloors: ['A', 'B', 'C'].map((v) => ({ type: 'Fur', value: v, price: eth('1') })),
    });
    // the scheduler's budget shrinks as writes are spent
    s.executor.behave = (intent) => {
      budget.available -= 2;
      return s.executor.defaultResult(intent);
    };
    await s.engine.start();
    await s.engine.tick('a');
    await s.engine.idle();
    // 2 writes each: B (9) and C (5) fit in 4; A waits
    expect(s.executor.calls.map((c) => c.intent.target)).toEqual([
      'offer:trait:apes:Fur:B',
      'offer:trait:apes:Fur:C',
    ]);
    expect(s.engine.status().intents.queued).toBe(1);
    s.clock.advance(10_001);
    s.engine.drain();
    const st = s.engine.status();
    expect(st.skipped.byReason).toEqual({ write_budget: 1 });
    expect(st.skipped.recent[0]).toMatchObject({
      strategyId: 'a',
      target: 'offer:trait:apes:Fur:A',
      reason: 'write_budget',
    });
    expect(st.intents.queued).toBe(0);
  });

  it('a cheaper, less valuable intent does not take the writes a more valuable one waits for', async () => {
    const budget = new FixedWriteBudget(2);
    const s = setup(
      [load(scripted('a', { tick: () => [offer('apes', eth('0.5'), 9), offer('cats', eth('0.5'), 1)] }))],
      { writeBudget: budget, writeCost: (i) => (i.target.includes('apes') ? 3 : 1) },
    );
    await s.engine.start();
    await s.engine.tick('a');
    await s.engine.idle();
    expect(s.executor.calls).toHaveLength(0);
    budget.available = 3;
    s.engine.drain();
    await s.engine.idle();
    // apes takes the 3 writes first; cats follows once writes are there again
    expect(s.executor.calls.map((c) => c.intent.target)).toEqual([
      'offer:collection:apes',
      'offer:collection:cats',
    ]);
  });

  it('cancels go first and buys need no write budget', async () => {
    const s = setup(
      [
        load(
          scripted('a', {
            tick: () => [offer('apes', eth('0.5'), 100), cancelOrder({ orderHash: hash(77) })],
          }),
        ),
      ],
      {
        writeBudget: new FixedWriteBudget(1),
      },
    );
    await s.engine.start();
    await s.engine.tick('a');
    await s.engine.idle();
    expect(s.executor.calls.map((c) => c.intent.kind)).toEqual(['cancel_order']);
  });

  it('risk refusals are counted, reported to the strategy and never journaled', async () => {
    const updates: OrderUpdate[] = [];
    const s = setup([
      load(
        scripted('a', { event: () => [offer('apes', eth('1.5'))] }, (u) => updates.push(u as OrderUpdate)),
      ),
    ]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.executor.calls).toHaveLength(0);
    expect(s.journal.list()).toHaveLength(0);
    expect(updates).toMatchObject([{ status: 'rejected', error: { code: 'risk_price_over_floor' } }]);
    expect(s.engine.status().risk.refusals).toEqual({ risk_price_over_floor: 1 });
  });

  it('a definite failure is failed; a maybe-processed one is unknown, held, and settles later', async () => {
    let collection = 'apes';
    const s = setup([load(scripted('a', { event: () => [offer(collection, eth('0.9'))] }))], {
      risk: limits({ eth: { maxExposure: eth('1') } }),
    });
    s.executor.behave = () => {
      throw new RejectedError('http_400', 'bad order');
    };
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.journal.list()[0]?.state).toBe('failed');
    s.executor.behave = () => {
      throw new TransientError('timeout', 'timed out', { maybeProcessed: true });
    };
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    const unknown = s.journal.list({ states: ['unknown'] });
    expect(unknown).toHaveLength(1);
    expect(s.engine.status().unresolved).toEqual([unknown[0]?.id]);
    // its target is blocked until reconciled, and its worst case still counts against the cap
    s.executor.behave = undefined;
    await s.engine.onEvent(listing({ price: 1n }));
    collection = 'cats';
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.engine.status().skipped.byReason).toEqual({ unresolved: 1 });
    expect(s.engine.status().risk.refusals).toEqual({ risk_exposure: 1 });
    own(s.engine.orders, { hash: 42, price: eth('0.9') }); // the desk recorded it before the post
    await s.engine.settleUnknown(unknown[0]?.id ?? '', { status: 'done', result: { orderHash: hash(42) } });
    expect(s.engine.status().unresolved).toEqual([]);
    expect(s.engine.status().risk.unknown).toBe(0);
    expect(s.engine.risk.bookEntry(hash(42))?.strategyId).toBe('a');
  });

  it('failures are logged: the first of a kind and code at once, then a line a minute with the count since', async () => {
    const sink = memorySink();
    const s = setup([load(scripted('a', { event: () => [offer('apes', eth('0.9'))] }))], {
      logger: createLogger({ destination: sink.stream }),
    });
    s.executor.behave = () => {
      throw new RejectedError('http_400', 'POST /api/v2/offers → 400: insufficient WETH balance');
    };
    await s.engine.start();
    const failed = () =>
      (sink.lines() as { msg: string; code?: string; sinceLastLine?: number; strategy?: string }[]).filter(
        (l) => l.msg.startsWith('intent failed'),
      );
    for (let i = 0; i < 3; i++) {
      await s.engine.onEvent(listing({ price: 1n }));
      await s.engine.idle();
      s.clock.advance(1_000);
    }
    expect(s.journal.list({ states: ['failed'] })).toHaveLength(3);
    expect(failed()).toMatchObject([
      { msg: 'intent failed: POST /api/v2/offers → 400: insufficient WETH balance', code: 'http_400' },
    ]);
    expect(failed()[0]?.sinceLastLine).toBeUndefined();
    s.clock.advance(60_000);
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(failed()).toHaveLength(2);
    expect(failed()[1]).toMatchObject({ code: 'http_400', sinceLastLine: 2 });
  });

  it('intents returned for a refused or skipped intent are ignored (no retry loop)', async () => {
    let updates = 0;
    const def = defineStrategy({
      id: 'retrier',
      version: '1.0.0',
      params: z.strictObject({}),
      subscriptions: { events: ['listing'] },
      onEvent: () => [offer('apes', eth('1.5'))],
      onOrderUpdate: () => {
        updates++;
        return [offer('apes', eth('1.5'))];
      },
    });
    const s = setup([load(def as never)]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    await new Promise((r) => setImmediate(r));
    await s.engine.idle();
    expect(updates).toBe(1);
    expect(s.engine.status().intents.rejected).toBe(1);
  });

  it('a guard refusal fails the intent after the write-ahead, before the executor', async () => {
    const s = setup([load(scripted('a', { event: () => [offer('apes', eth('0.9'))] }))], {
      guard: {
        check: () => {
          throw new RejectedError('guard_refused', 'no');
        },
      },
    });
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.executor.calls).toHaveLength(0);
    expect(s.journal.list()[0]).toMatchObject({ state: 'failed', error: { code: 'guard_refused' } });
  });

  it('refuses a second place for a target that already has an open own offer', async () => {
    const s = setup([load(scripted('a', { event: () => [offer('apes', eth('0.9'))] }))]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.executor.calls).toHaveLength(1);
    expect(s.engine.status().skipped.byReason).toEqual({ duplicate_offer: 1 });
  });
});

describe('engine: kill switch, pause, exposure headroom, restart', () => {
  it('the operator cancels one order through the queue; outcomes reach the outcome listener with reasons', async () => {
    const outcomes: string[] = [];
    const s = setup(
      [
        load(scripted('a', { event: () => [offer('apes', eth('0.9'))] })),
        load(scripted('b', { event: () => [offer('cats', eth('1'))] })),
      ],
      { onOutcome: (o) => outcomes.push(`${o.strategyId}:${o.kind}:${o.status}:${o.code ?? ''}`) },
    );
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    const [first] = s.engine.orders.counting();
    expect(s.engine.cancelOrder(first?.orderHash as string, 'operator')).toBe(true);
    expect(s.engine.cancelOrder('0xnot-ours')).toBe(false);
    await s.engine.idle();
    const cancels = s.executor.calls.filter((c) => c.intent.kind === 'cancel_order');
    expect(cancels.map((c) => c.intent)).toEqual([expect.objectContaining({ orderHash: first?.orderHash })]);
    expect(s.engine.status().risk.openOffers).toBe(1);
    expect(outcomes).toContain('a:place_offer:done:');
    expect(outcomes).toContain('b:place_offer:done:');
    expect(outcomes.filter((x) => x.includes(':cancel_order:done'))).toHaveLength(1);
  });

  it('kill switch cancels every open offer and refuses new intents; resume restores trading', async () => {
    const s = setup([
      load(scripted('a', { event: () => [offer('apes', eth('0.9'))] })),
      load(scripted('b', { event: () => [offer('cats', eth('1'))] })),
    ]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.engine.status().risk.openOffers).toBe(2);
    await s.engine.kill('test');
    await s.engine.idle();
    expect(s.executor.calls.filter((c) => c.intent.kind === 'cancel_order')).toHaveLength(2);
    expect(s.engine.status().risk.openOffers).toBe(0);
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.tick('a');
    await s.engine.idle();
    expect(s.executor.calls.filter((c) => c.intent.kind === 'place_offer')).toHaveLength(2);
    expect(s.engine.status().killed).toBe(true);
    await s.engine.resume();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.executor.calls.filter((c) => c.intent.kind === 'place_offer')).toHaveLength(4);
  });

  it('an offer placed while the kill switch went on is cancelled as soon as it exists', async () => {
    const s = setup([load(scripted('a', { event: () => [offer('apes', eth('0.9'))] }))]);
    let open: (() => void) | undefined;
    s.executor.behave = (intent) =>
      intent.kind === 'place_offer'
        ? new Promise((res) => {
            open = () => res({ orderHash: hash(321) });
          })
        : {};
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.kill('test');
    open?.();
    await s.engine.idle();
    expect(s.executor.calls.map((c) => c.intent.kind)).toEqual(['place_offer', 'cancel_order']);
    expect(s.executor.calls[1]?.intent).toMatchObject({ orderHash: hash(321) });
    expect(s.engine.status().risk.openOffers).toBe(0);
  });

  it('an order we cancelled stays closed even while the market view still shows it open', async () => {
    let seen: string[] = [];
    const def = defineStrategy({
      id: 'watcher',
      version: '1.0.0',
      params: z.strictObject({}),
      subscriptions: { events: ['listing'] },
      schedules: ['* * * * *'],
      init: () => [offer('apes', eth('0.9'))],
      onTick: (ctx) => {
        seen = ctx.ownOrders.map((o) => o.status);
        return [];
      },
      onEvent: (ctx) =>
        ctx.ownOrders.filter((o) => o.status === 'open').map((o) => cancelOrder({ orderHash: o.orderHash })),
    });
    const s = setup([load(def as never)]);
    await s.engine.start();
    await s.engine.idle();
    const placed = s.engine.risk.openOffers()[0];
    expect(placed).toBeDefined();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.executor.calls.map((c) => c.intent.kind)).toEqual(['place_offer', 'cancel_order']);
    await s.engine.tick('watcher'); // the view still says open
    expect(seen).toEqual(['cancelled']);
    expect(s.engine.status().risk.openOffers).toBe(0);
  });

  it('tells the executor the scheduler priority and coalescing key of each intent', async () => {
    const s = setup([
      load(scripted('a', { event: () => [offer('apes', eth('0.9')), cancelOrder({ orderHash: hash(8) })] })),
    ]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(s.executor.calls.map((c) => [c.ctx.priority, c.ctx.coalesceKey])).toEqual([
      [1, `a|order:${hash(8)}`],
      [2, 'a|offer:collection:apes'],
    ]);
  });

  it('the kill switch survives a restart: the new process starts killed and cancels what the view shows open', async () => {
    const first = setup([load(scripted('a', { event: () => [offer('apes', eth('0.9'))] }))]);
    await first.engine.start();
    await first.engine.kill('operator');
    await first.engine.stop();
    const second = setup([load(scripted('a', { event: () => [offer('apes', eth('0.9'))] }))], {
      stateStore: first.stateStore,
    });
    own(second.engine.orders, { hash: 70, price: eth('0.8') }); // read back from the store at start
    await second.engine.start();
    await second.engine.onEvent(listing({ price: 1n }));
    await second.engine.idle();
    expect(second.engine.status().killed).toBe(true);
    expect(second.executor.calls.map((c) => c.intent.kind)).toEqual(['cancel_order']);
    await second.engine.resume();
    const third = setup([], { stateStore: first.stateStore });
    await third.engine.start();
    expect(third.engine.status().killed).toBe(false);
  });

  it('pause stops hooks and intents without losing state or orders', async () => {
    let seen = 0;
    const s = setup([
      load(
        scripted('a', {
          event: () => {
            seen++;
            return [offer('apes', eth('0.9'))];
          },
        }),
      ),
    ]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    await s.engine.pause();
    await s.engine.onEvent(listing({ price: 1n }));
    expect(seen).toBe(1);
    expect(s.engine.status()).toMatchObject({ paused: true, risk: { openOffers: 1 } });
    await s.engine.resume();
    await s.engine.onEvent(listing({ price: 1n }));
    expect(seen).toBe(2);
  });

  it('one strategy paused: its hooks stop, the others run, its orders stay; the pause survives a restart', async () => {
    const seen = { a: 0, b: 0 };
    const strategies = () => [
      load(
        scripted('a', {
          event: () => {
            seen.a++;
            return [offer('apes', eth('0.9'))];
          },
        }),
      ),
      load(
        scripted('b', {
          event: () => {
            seen.b++;
            return [];
          },
        }),
      ),
    ];
    const s = setup(strategies());
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(await s.engine.pauseStrategy('a')).toBe(true);
    expect(await s.engine.pauseStrategy('nope')).toBe(false);
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    expect(seen).toEqual({ a: 1, b: 2 });
    expect(s.engine.status().strategies.find((x) => x.id === 'a')?.state).toBe('paused');
    expect(s.engine.status().risk.openOffers).toBe(1);
    await s.engine.stop();
    const again = setup(strategies(), { stateStore: s.stateStore });
    await again.engine.start();
    await again.engine.onEvent(listing({ price: 1n }));
    await again.engine.idle();
    expect(seen).toEqual({ a: 1, b: 3 });
    expect(await again.engine.resumeStrategy('a')).toBe(true);
    await again.engine.onEvent(listing({ price: 1n }));
    await again.engine.idle();
    expect(seen).toEqual({ a: 2, b: 4 });
    expect(again.engine.status().strategies.find((x) => x.id === 'a')?.state).toBe('idle');
  });

  it('after a fill eats the daily headroom, offers are cancelled so the worst case stays within the cap', async () => {
    const s = setup(
      [
        load(
          scripted('a', {
            tick: () => [
              offer('apes', eth('0.9')),
              offer('cats', eth('0.5')),
              offer('apes', eth('0.4'), 0, { trait: 'Gold' }),
            ],
          }),
        ),
      ],
      { risk: limits({ eth: { maxSpendPerDay: eth('2'), maxExposure: eth('2') } }) },
    );
    await s.engine.start();
    await s.engine.tick('a');
    await s.engine.idle();
    expect(s.engine.status().risk.openOffers).toBe(3);
    const first = s.journal.list().find((r) => r.intent.target === 'offer:collection:cats')?.orderHash ?? '';
    await feed(s.engine, sale(first, eth('0.5'))); // spent 0.5: worst case 0.5 + 1.3 fits 2
    await s.engine.idle();
    expect(s.executor.calls.filter((c) => c.intent.kind === 'cancel_order')).toHaveLength(0);
    s.clock.advance(1);
    // a buy outside the engine's book (restart, other process) spends 0.8 more: 1.3 > 0.7 left
    own(s.engine.orders, { hash: 99, price: eth('0.8'), side: 'item_offer', strategyId: null, target: 'x' });
    await feed(s.engine, sale(hash(99), eth('0.8')));
    await s.engine.idle();
    const cancels = s.executor.calls.filter((c) => c.intent.kind === 'cancel_order');
    expect(cancels).toHaveLength(1);
    const st = s.engine.status().risk.tokens.find((t) => t.token === 'eth-like');
    expect((st?.exposure ?? 0n) + (st?.spentToday ?? 0n)).toBeLessThanOrEqual(eth('2'));
  });

  it('an offer the floor fell under is cancelled by the risk sweep, even while paused', async () => {
    const s = setup([load(scripted('a', { event: () => [offer('apes', eth('0.9'))] }))]);
    await s.engine.start();
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    await s.engine.pause();
    s.market.setCollection({ slug: 'apes', floor: { price: eth('0.8') } });
    expect(s.cron.fire('* * * * *')).toBe(1); // the engine's risk sweep
    await s.engine.idle();
    expect(s.executor.calls.map((c) => c.intent.kind)).toEqual(['place_offer', 'cancel_order']);
    expect(s.engine.status()).toMatchObject({ paused: true, risk: { openOffers: 0 } });
  });

  it('restart: pending intents become failed, sent ones stay held, strategy state comes back', async () => {
    const def = scripted('a', { event: () => [offer('apes', eth('0.9'))] });
    const s = setup([load(def)]);
    s.journal.append({
      id: 'old-1',
      strategyId: 'a',
      intent: offer('cats', eth('1')),
      state: 'pending',
      createdAt: 1,
      updatedAt: 1,
    });
    s.journal.append({
      id: 'old-2',
      strategyId: 'a',
      intent: offer('apes', eth('0.5')),
      state: 'sent',
      createdAt: 1,
      updatedAt: 1,
    });
    s.stateStore.save('a', { seen: '3' }, []);
    await s.engine.start();
    expect(s.journal.records.get('old-1')?.state).toBe('failed');
    expect(s.engine.status().unresolved).toEqual(['old-2']);
    expect(s.engine.status().risk.unknown).toBe(1);
  });

  it('restart: the reconciler settles what it can before init; a target still unknown stays blocked', async () => {
    const def = scripted('a', { event: () => [offer('apes', eth('0.5')), offer('cats', eth('0.5'))] });
    const journal = new MemoryJournal();
    journal.append({
      id: 'r1',
      strategyId: 'a',
      intent: offer('apes', eth('0.5')),
      state: 'sent',
      createdAt: 1,
      updatedAt: 1,
    });
    journal.append({
      id: 'r2',
      strategyId: 'a',
      intent: offer('cats', eth('0.5')),
      state: 'unknown',
      createdAt: 1,
      updatedAt: 1,
    });
    const orders = createOrderLedger({ clock: new ManualClock(NOW), chain: 'ethereum' });
    own(orders, { hash: 555, price: eth('0.5') }); // recorded by the order desk before the post
    const s = setup([load(def)], {
      journal,
      orders,
      reconciler: {
        reconcile: async (r) =>
          r.id === 'r1' ? { status: 'done', result: { orderHash: hash(555) } } : { status: 'unknown' },
      },
    });
    await s.engine.start();
    expect(journal.records.get('r1')).toMatchObject({ state: 'done', orderHash: hash(555) });
    expect(s.engine.status().unresolved).toEqual(['r2']);
    expect(s.engine.risk.bookEntry(hash(555))?.strategyId).toBe('a');
    await s.engine.onEvent(listing({ price: 1n }));
    await s.engine.idle();
    // apes: an open offer exists (duplicate); cats: unknown outcome blocks the target
    expect(s.executor.calls).toHaveLength(0);
    expect(s.engine.status().skipped.byReason).toEqual({ duplicate_offer: 1, unresolved: 1 });
  });

  it('strategy state is saved after a hook that changed it, and loaded at start', async () => {
    const first = setup([
      load((await import('../../fixtures/strategies/good.ts')).default as never, {}, 'g'),
    ]);
    await first.engine.start();
    await first.engine.onEvent(listing({ price: 1n }));
    await first.engine.idle();
    expect(first.stateStore.get('g')).toEqual({ seen: 1 });
    const second = setup([
      load((await import('../../fixtures/strategies/good.ts')).default as never, {}, 'g'),
    ]);
    second.stateStore.save('g', { seen: '41' }, []);
    await second.engine.start();
    await second.engine.onEvent(listing({ price: 1n }));
    await second.engine.idle();
    expect(second.stateStore.get('g')).toEqual({ seen: 42 });
  });

  it('cron schedules call onTick', async () => {
    let ticks = 0;
    const s = setup([
      load(
        scripted('a', {
          tick: () => {
            ticks++;
            return [];
          },
        }),
      ),
    ]);
    await s.engine.start();
    expect(s.cron.fire('*/5 * * * *')).toBe(1);
    await s.engine.idle();
    expect(ticks).toBe(1);
    await s.engine.stop();
    expect(s.cron.tasks.size).toBe(0);
  });
});

function validateWithCollections(def: ReturnType<typeof scripted>, collections: string[]): LoadedStrategy {
  const l = load(def);
  return { ...l, subscriptions: { ...l.subscriptions, collections: new Set(collections) } };
}
