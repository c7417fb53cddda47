import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBudgetFromScheduler } from '../../../src/engine/budget.ts';
import { createEngine } from '../../../src/engine/engine.ts';
import { loadStrategy } from '../../../src/engine/loader.ts';
import {
  ETH_TOKEN,
  ManualClock,
  MemoryExecutor,
  MemoryJournal,
  MemoryMarket,
  MemoryStateStore,
} from '../../../src/engine/memory.ts';
import type { SchedulerStatus } from '../../../src/ratelimit/types.ts';
import { fromJson, toJson } from '../../../src/store/json.ts';
import { defineStrategy, type Intent, z } from '../../../src/strategy.ts';
import { eth, hash, listing, NOW, USDC, WETH } from '../strategies/helpers.ts';
import { limits, load, offer, usdcLimits } from './fixtures.ts';

const STRATS = resolve(import.meta.dirname, '../../../strategies');

describe('the five strategies together through the engine', () => {
  it('each one reaches the executor with the intent it should, within risk', async () => {
    const clock = new ManualClock(NOW);
    const market = new MemoryMarket(clock);
    market.setCollection({
      slug: 'apes',
      floor: { price: eth('1'), orderHash: hash(500) },
      traitFloors: [{ type: 'Fur', value: 'Gold', price: eth('2') }],
    });
    market.setBalances({ [WETH.address]: eth('2') });
    market.setPrice(WETH, eth('1'), NOW, 'native');
    market.setPrice(USDC, 400_000_000_000_000n);
    market.setDrop({
      slug: 'genesis',
      stage: 'active',
      eligible: true,
      pricePerToken: eth('0.01'),
      paymentToken: ETH_TOKEN,
      maxPerWallet: 2,
      mintedByWallet: 0,
      remaining: 10n,
      startsAt: null,
      endsAt: null,
    });
    const o = { strategiesDir: STRATS };
    const strategies = await Promise.all([
      loadStrategy({ id: 'snipe', module: 'sniper', params: { collections: ['apes'], maxPrice: '1' } }, o),
      loadStrategy(
        {
          id: 'bid',
          module: 'collection-bidder',
          params: { collection: 'apes', paymentToken: WETH, maxPrice: '1' },
        },
        o,
      ),
      loadStrategy(
        {
          id: 'traits',
          module: 'trait-bidder',
          params: { collection: 'apes', paymentToken: WETH, maxPrice: '2' },
        },
        o,
      ),
      loadStrategy(
        {
          id: 'rebal',
          module: 'rebalancer',
          params: {
            tokens: [
              { token: WETH, weight: 1, referencePrice: '1' },
              { token: USDC, weight: 1, referencePrice: '0.0004' },
            ],
          },
        },
        o,
      ),
      loadStrategy(
        { id: 'mint', module: 'drop-minter', params: { drop: 'genesis', maxPricePerToken: '0.02' } },
        o,
      ),
    ]);
    const executor = new MemoryExecutor();
    const engine = createEngine({
      strategies,
      market,
      executor,
      journal: new MemoryJournal(),
      stateStore: new MemoryStateStore(),
      risk: limits({
        tokens: usdcLimits(),
      }),
      clock,
      cron: { validate: () => true, schedule: () => ({ stop: () => undefined }) },
      retryIntervalMs: 0,
    });
    await engine.start();
    await engine.onEvent(listing({ price: eth('0.7'), hash: 9 }));
    await engine.tick('rebal');
    await engine.tick('mint');
    await engine.idle();
    const by = (id: string) =>
      executor.calls.filter((c) => c.ctx.strategyId === id).map((c) => c.intent.kind);
    expect(by('snipe')).toEqual(['buy_listing']);
    expect(by('bid')).toEqual(['place_offer']);
    expect(by('traits')).toEqual(['place_offer']);
    expect(by('rebal')).toEqual(['swap']);
    expect(by('mint')).toEqual(['mint']);
    const json = engine.statusJson();
    expect(JSON.stringify(json)).toContain('"done":5');
    expect((json.intents as Record<string, unknown>).failed).toBe(0);
    expect(json.writesAvailable).toBeNull();
  });
});

describe('engine: stop and ports', () => {
  it('stop runs onStop and executes the intents it returns', async () => {
    const def = defineStrategy({
      id: 'closer',
      version: '1.0.0',
      params: z.strictObject({}),
      subscriptions: { events: [] },
      onStop: (ctx) =>
        ctx.ownOrders.map(
          (o) =>
            ({
              kind: 'cancel_order',
              orderHash: o.orderHash,
              target: `order:${o.orderHash}`,
              priority: 0,
            }) as Intent,
        ),
      init: () => [offer('apes', eth('0.5'))],
    });
    const clock = new ManualClock(NOW);
    const market = new MemoryMarket(clock);
    market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    const executor = new MemoryExecutor();
    const engine = createEngine({
      strategies: [load(def as never)],
      market,
      executor,
      journal: new MemoryJournal(),
      stateStore: new MemoryStateStore(),
      risk: limits(),
      clock,
      cron: { validate: () => true, schedule: () => ({ stop: () => undefined }) },
    });
    await engine.start();
    await engine.idle();
    await engine.stop();
    expect(executor.calls.map((c) => c.intent.kind)).toEqual(['place_offer', 'cancel_order']);
    await engine.onEvent(listing({ price: 1n }));
    expect(engine.status().events).toBe(0);
  });

  it('reads the write budget from the scheduler: available minus queued, 0 while paused', () => {
    let status: SchedulerStatus = {
      mode: 'local',
      groups: [
        {
          group: 'write',
          limit: 30,
          windowMs: 3_600_000,
          available: 7.5,
          queued: 2,
          inFlight: 0,
          pausedUntilMs: 0,
          served: 0,
          http429: 0,
          superseded: 0,
        },
      ],
    };
    const budget = writeBudgetFromScheduler({ status: () => status }, () => 1000);
    expect(budget.writesAvailable()).toBe(5);
    status = {
      ...status,
      groups: [{ ...(status.groups[0] as SchedulerStatus['groups'][number]), pausedUntilMs: 2000 }],
    };
    expect(budget.writesAvailable()).toBe(0);
  });

  it("intents round-trip through the journal's JSON with bigints intact", () => {
    const i = offer('apes', 123456789012345678901234567890n);
    expect(fromJson(toJson(i))).toEqual(i);
  });
});

describe('engine + drop-minter: a skipped mint is released, so the quantity is reached exactly', () => {
  it('mints 3 in all although ticks come while a mint is in flight', async () => {
    const clock = new ManualClock(NOW);
    const market = new MemoryMarket(clock);
    const drop = {
      slug: 'genesis',
      stage: 'active' as const,
      eligible: true,
      pricePerToken: eth('0.01'),
      paymentToken: ETH_TOKEN,
      maxPerWallet: null,
      mintedByWallet: null,
      remaining: null,
      startsAt: null,
      endsAt: null,
    };
    market.setDrop(drop);
    const strategies = [
      await loadStrategy(
        {
          id: 'mint',
          module: 'drop-minter',
          params: { drop: 'genesis', maxPricePerToken: '0.02', quantity: 3 },
        },
        { strategiesDir: STRATS },
      ),
    ];
    const executor = new MemoryExecutor();
    const gates: (() => void)[] = [];
    executor.behave = (intent) => new Promise((res) => gates.push(() => res(executor.defaultResult(intent))));
    const engine = createEngine({
      strategies,
      market,
      executor,
      journal: new MemoryJournal(),
      stateStore: new MemoryStateStore(),
      risk: limits(),
      clock,
      cron: { validate: () => true, schedule: () => ({ stop: () => undefined }) },
      retryIntervalMs: 0,
    });
    await engine.start();
    for (let i = 0; i < 8; i++) {
      clock.advance(10_000);
      market.setDrop(drop);
      await engine.tick('mint');
      await new Promise((r) => setImmediate(r));
      if (i % 2 === 1) gates.shift()?.(); // every mint stays in flight across one more tick
      await new Promise((r) => setImmediate(r));
    }
    while (gates.length > 0) gates.shift()?.();
    await engine.idle();
    expect(executor.calls.filter((c) => c.intent.kind === 'mint')).toHaveLength(3);
    expect(engine.status().skipped.byReason.in_flight ?? 0).toBeGreaterThan(0);
  });
});
