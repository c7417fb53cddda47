/**
 * Decision benchmark: event (or cron tick) -> intent at the executor port, for the five
 * strategies, through the real engine path: loader, safe runner, hook, coalescing queue, risk,
 * write-ahead journal, guard, executor (an in-memory executor that answers at once).
 *
 *   npm run bench -- decision            # 2000 decisions per strategy
 *   npm run bench -- decision --quick    # smoke run (or BENCH_QUICK=1): 200 per strategy
 *   npm run bench -- decision --only sniper --n 5000   # one strategy, more samples
 *
 * Latency = time from the engine receiving the event (or tick) to the executor receiving the
 * first intent it caused. The market view is in memory (500 listings, 60 trait floors), so the
 * number is the daemon's own decision cost, not I/O. Between decisions the engine is drained
 * (not measured) and the clock advances 10 minutes, so floors, balances and drop status are
 * refreshed and daily windows roll as they would.
 *
 * Prints one progress line per strategy, then one JSON object as the last line.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type {
  CollectionOfferEvent,
  ListingEvent,
  MarketEvent,
  PaymentToken,
  TraitOfferEvent,
} from '../src/domain/events.ts';
import type { Address, OrderHash } from '../src/domain/ids.ts';
import { createEngine } from '../src/engine/engine.ts';
import { loadStrategy } from '../src/engine/loader.ts';
import {
  ETH_TOKEN,
  ManualClock,
  MemoryExecutor,
  MemoryJournal,
  MemoryMarket,
  MemorySpendLedger,
  MemoryStateStore,
} from '../src/engine/memory.ts';
import { DEFAULT_RISK_TIMING } from '../src/engine/risk/limits.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, n: { type: 'string' }, only: { type: 'string' } },
  allowPositionals: true,
});
const quick = values.quick === true || process.env.BENCH_QUICK === '1';
const perStrategy = Number(values.n ?? (quick ? 200 : 2000));
const warmup = quick ? 20 : 200;

const E = 10n ** 18n;
const WETH: PaymentToken = {
  address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as Address,
  symbol: 'WETH',
  decimals: 18,
};
const USDC: PaymentToken = {
  address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' as Address,
  symbol: 'USDC',
  decimals: 6,
};
const CONTRACT = '0x00000000000000000000000000000000000000c1' as Address;
const OTHER = '0x00000000000000000000000000000000000000bb' as Address;
const ROOT = resolve(import.meta.dirname, '..');
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as OrderHash;
const TRAIT_TYPES = ['Fur', 'Hat', 'Eyes', 'Mouth', 'Background', 'Clothes'];

function line(s: string): void {
  process.stdout.write(`${s}\n`);
}

const clock = new ManualClock(1_800_000_000_000);
const market = new MemoryMarket(clock);

const listings: Record<string, { price: bigint }> = {};
for (let i = 0; i < 500; i++)
  listings[`ethereum/${CONTRACT}/${10_000 + i}`] = { price: E + BigInt(i) * 10n ** 15n };
const apes = {
  slug: 'apes',
  floor: { price: E, orderHash: hash(999_999) },
  bestListings: listings,
  traitFloors: TRAIT_TYPES.flatMap((type, t) =>
    Array.from({ length: 10 }, (_, v) => ({
      type,
      value: `v${v}`,
      price: E + BigInt(t * 10 + v) * 10n ** 16n,
    })),
  ),
  traits: TRAIT_TYPES.map((type) => ({
    type,
    counts: Object.fromEntries(Array.from({ length: 10 }, (_, v) => [`v${v}`, 10 + v * 7])),
  })),
  bestCollectionOffer: { price: (E * 85n) / 100n, orderHash: hash(888_888), maker: OTHER, token: WETH },
};

/** Re-learns everything at the current clock (outside the measurement). */
function refresh(): void {
  market.setCollection(apes);
  market.setBalances({ [WETH.address]: 3n * E, [USDC.address]: 1_000_000_000n });
  market.setPrice(WETH, E, undefined, 'native');
  market.setPrice(USDC, 400_000_000_000_000n); // 0.0004 ETH per USDC, as the rebalancer's reference
  market.setDrop({
    slug: 'genesis',
    stage: 'active',
    eligible: true,
    pricePerToken: E / 100n,
    paymentToken: ETH_TOKEN,
    maxPerWallet: null,
    mintedByWallet: 0,
    remaining: null,
    startsAt: null,
    endsAt: null,
  });
}

const base = {
  collection: CONTRACT,
  chain: 'ethereum' as const,
  source: 'stream' as const,
  taker: null,
  quantity: 1n,
};

function listingEvent(i: number): ListingEvent {
  return {
    ...base,
    kind: 'listing',
    id: `l${i}`,
    collection: 'apes' as ListingEvent['collection'],
    occurredAt: clock.now(),
    receivedAt: clock.now(),
    orderHash: hash(1_000_000 + i),
    maker: OTHER,
    price: (E * 7n) / 10n,
    paymentToken: ETH_TOKEN,
    expiresAt: null,
    nft: {
      chain: 'ethereum',
      contract: CONTRACT,
      identifier: String(i) as ListingEvent['nft']['identifier'],
    },
    isPrivate: false,
  };
}

function collectionOfferEvent(i: number): CollectionOfferEvent {
  return {
    ...base,
    kind: 'collection_offer',
    id: `c${i}`,
    collection: 'apes' as CollectionOfferEvent['collection'],
    occurredAt: clock.now(),
    receivedAt: clock.now(),
    orderHash: hash(2_000_000 + i),
    maker: OTHER,
    price: (E * (90n + BigInt(i % 2) * 2n)) / 100n,
    paymentToken: WETH,
    expiresAt: null,
  };
}

function traitOfferEvent(i: number): TraitOfferEvent {
  return {
    ...base,
    kind: 'trait_offer',
    id: `t${i}`,
    collection: 'apes' as TraitOfferEvent['collection'],
    occurredAt: clock.now(),
    receivedAt: clock.now(),
    orderHash: hash(3_000_000 + i),
    maker: OTHER,
    price: (E * (99n + BigInt(i % 2) * 2n)) / 100n,
    paymentToken: WETH,
    expiresAt: null,
    traits: [{ type: 'Fur', value: 'v9' }],
  };
}

async function main(): Promise<void> {
  refresh();
  const opts = { strategiesDir: resolve(ROOT, 'strategies') };
  const strategies = await Promise.all([
    loadStrategy(
      { id: 'sniper', module: 'sniper', params: { collections: ['apes'], maxPrice: '2', maxPerDay: 10_000 } },
      opts,
    ),
    loadStrategy(
      {
        id: 'collection-bidder',
        module: 'collection-bidder',
        params: { collection: 'apes', paymentToken: WETH, maxPrice: '2' },
      },
      opts,
    ),
    loadStrategy(
      {
        id: 'trait-bidder',
        module: 'trait-bidder',
        params: {
          collection: 'apes',
          paymentToken: WETH,
          maxPrice: '3',
          traits: [{ type: 'Fur', value: 'v9' }],
        },
      },
      opts,
    ),
    loadStrategy(
      {
        id: 'rebalancer',
        module: 'rebalancer',
        params: {
          tokens: [
            { token: WETH, weight: 1, referencePrice: '1' },
            { token: USDC, weight: 1, referencePrice: '0.0004' },
          ],
        },
      },
      opts,
    ),
    loadStrategy(
      {
        id: 'drop-minter',
        module: 'drop-minter',
        params: { drop: 'genesis', maxPricePerToken: '0.02', quantity: 10_000 },
      },
      opts,
    ),
  ]);
  const big = 10n ** 30n;
  const executor = new MemoryExecutor();
  const journal = new MemoryJournal();
  const stateStore = new MemoryStateStore();
  const engine = createEngine({
    strategies,
    market,
    executor,
    journal,
    stateStore,
    spendLedger: new MemorySpendLedger(),
    risk: {
      tokens: new Map([
        ['USDC', { budget: null, maxExposure: big, maxSpendPerDay: big, maxPricePerItem: big }],
      ]),
      ethLike: { budget: null, maxExposure: big, maxSpendPerDay: big, maxPricePerItem: 5n * E },
      strategies: new Map(),
      collectionDefaults: {},
      collections: new Map(),
      ...DEFAULT_RISK_TIMING,
    },
    clock,
    cron: { validate: () => true, schedule: () => ({ stop: () => undefined }) },
    retryIntervalMs: 0,
  });
  await engine.start();
  await engine.idle();

  const cases: { id: string; trigger: (i: number) => Promise<void> | undefined }[] = [
    { id: 'sniper', trigger: (i) => engine.onEvent(listingEvent(i)) },
    { id: 'collection-bidder', trigger: (i) => engine.onEvent(collectionOfferEvent(i)) },
    { id: 'trait-bidder', trigger: (i) => engine.onEvent(traitOfferEvent(i) as MarketEvent) },
    { id: 'rebalancer', trigger: () => engine.tick('rebalancer', '*/15 * * * *') },
    { id: 'drop-minter', trigger: () => engine.tick('drop-minter', '*/10 * * * * *') },
  ];

  if (values.only !== undefined) cases.splice(0, cases.length, ...cases.filter((c) => c.id === values.only));
  const all: number[] = [];
  const per: Record<string, { p50: number; p99: number; n: number }> = {};
  let seq = 0;

  const samples = new Map<string, number[]>(cases.map((c) => [c.id, []]));
  // Interleave the strategies, as a live market would.
  for (let round = 0; round < warmup + perStrategy; round++) {
    for (const c of cases) {
      clock.advance(600_000);
      refresh();
      const before = executor.calls.length;
      const t0 = process.hrtime.bigint();
      await c.trigger(seq++);
      await engine.idle();
      const first = executor.calls.slice(before).find((call) => call.ctx.strategyId === c.id);
      if (first === undefined) {
        throw new Error(
          `${c.id}: no intent reached the executor (round ${round}); status ${JSON.stringify(engine.status(), (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
        );
      }
      if (round >= warmup) samples.get(c.id)?.push(Number(first.at - t0) / 1000);
      if (executor.calls.length > 10_000) executor.calls.splice(0, executor.calls.length);
    }
  }
  for (const [id, xs] of samples) {
    xs.sort((a, b) => a - b);
    all.push(...xs);
    per[id] = { p50: pct(xs, 0.5), p99: pct(xs, 0.99), n: xs.length };
    line(`decision ${id.padEnd(18)} n=${xs.length} p50=${per[id]?.p50} µs p99=${per[id]?.p99} µs`);
  }
  all.sort((a, b) => a - b);
  await engine.stop();
  const st = engine.status();
  if (process.env.BENCH_DEBUG === '1')
    line(
      `debug: open offers ${st.risk.openOffers}, journal ${(await journal.list()).length}, state bytes ${[...stateStore.data.values()].map((m) => [...m.values()].reduce((a, v) => a + v.length, 0)).join(',')}`,
    );
  line(
    JSON.stringify({
      decisionUsP50: pct(all, 0.5),
      decisionUsP99: pct(all, 0.99),
      goalP99Us: 1000,
      decisions: all.length,
      perStrategy: per,
      intents: st.intents,
      mode: quick ? 'quick' : 'full',
    }),
  );
}

function pct(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round((sorted[i] ?? 0) * 10) / 10;
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
