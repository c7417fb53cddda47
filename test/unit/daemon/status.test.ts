import { describe, expect, it } from 'vitest';
import { createDaemonMetrics } from '../../../src/daemon/metrics.ts';
import {
  buildStatus,
  type DaemonStatus,
  describeTape,
  liveAtStopLine,
  renderStatus,
} from '../../../src/daemon/status.ts';
import { createOrderLedger } from '../../../src/ledger/index.ts';

const status: DaemonStatus = {
  state: 'running',
  mode: 'live',
  wallet: '0xabc',
  chain: { name: 'ethereum', chainId: 1 },
  startedAt: 0,
  uptimeMs: 42_000,
  readyMs: 350,
  events: { total: 120, byKind: { listing: 80, sale: 40 } },
  strategies: [
    {
      id: 'sniper',
      module: 'sniper',
      version: '1',
      state: 'idle',
      hooksRun: 80,
      intents: 2,
      errors: 0,
      lastError: null,
    },
    {
      id: 'bad',
      module: 'bad',
      version: '1',
      state: 'disabled',
      hooksRun: 5,
      intents: 0,
      errors: 5,
      lastError: 'boom',
    },
  ],
  intents: {
    emitted: 9,
    accepted: 6,
    done: 5,
    failed: 1,
    unknown: 0,
    rejected: 3,
    queued: 0,
    inFlight: 0,
    unresolved: 0,
  },
  skipped: { total: 2, byReason: { write_budget: 2 } },
  orders: {
    placed: 3,
    open: [
      {
        orderHash: '0x1',
        strategy: 'collection-bidder',
        side: 'collection',
        state: 'open',
        collection: 'apes',
        price: '0.0475',
        quantity: '1',
        symbol: 'WETH',
        expiresAt: 0,
      },
    ],
  },
  fills: {
    total: 2,
    recent: [
      {
        at: 0,
        strategy: 'sniper',
        kind: 'buy',
        collection: 'apes',
        price: '0.030030000000000000',
        symbol: 'ETH',
      },
    ],
  },
  spend: [
    {
      account: 'eth-like',
      symbol: 'ETH+WETH',
      spentToday: '0.63',
      spentTotal: '0.63',
      exposure: '0.0475',
      maxSpendPerDay: '2.0',
      maxExposure: '0.3',
      budget: '3.0',
    },
  ],
  risk: { killed: false, paused: false, openOffers: 1, refusals: { risk_price_over_floor: 1 } },
  rateBudget: [
    { group: 'read', available: 570, limit: 600, windowMs: 3_600_000, queued: 0, served: 30, http429: 0 },
    { group: 'write', available: 12, limit: 30, windowMs: 3_600_000, queued: 1, served: 18, http429: 0 },
    { group: 'fulfillment', available: 5, limit: 5, windowMs: 60_000, queued: 0, served: 2, http429: 0 },
  ],
  stream: {
    state: 'connected',
    stale: false,
    channels: [{ key: 'apes', joined: true, ageMs: 812.4, stale: false }],
    events: 120,
    reconnects: 0,
  },
  guardRejections: { wrong_recipient: 1 },
  reconcile: {},
};

describe('renderStatus', () => {
  it('says what a newcomer needs: events, intents, orders, fills, spend vs budgets, rate budget, freshness', () => {
    const t = renderStatus(status, { title: 'harpoon demo' });
    expect(t).toMatch(/^harpoon demo — running, LIVE, up 42 s \(ready in 350 ms\)/);
    expect(t).toMatch(/market events seen: 120 {2}\(listing 80, sale 40\)/);
    expect(t).toMatch(/stream: connected, fresh; newest info per collection: apes 812 ms/);
    expect(t).toMatch(
      /intents: 9 proposed by strategies → 6 passed risk → 5 done, 1 failed, 3 refused by risk/,
    );
    expect(t).toMatch(/skipped \(coalesced or no budget\): write_budget 2/);
    expect(t).toMatch(
      /orders placed: 3; open offers: 1\n {4}collection-bidder +collection +apes +0\.0475 WETH/,
    );
    expect(t).toMatch(/fills: 2 \(the last 1\)\n.*sniper +buy +apes +0\.03003 ETH/);
    expect(t).toMatch(/ETH\+WETH +spent 0\.63 of 2\/day; open offers 0\.0475 of 0\.3; budget 3/);
    expect(t).toMatch(
      /rate budget left: read 570\/600 per 1h, write 12\/30 per 1h \(1 queued\), fulfillment 5\/5 per 1m/,
    );
    expect(t).toMatch(/bad +disabled .*errors 5 \(boom\)/);
    expect(t).toMatch(/calldata guard refused: wrong_recipient 1/);
    expect(t).not.toMatch(/PAPER/);
  });

  it('paper mode says so and adds what it would have paid', () => {
    const t = renderStatus({
      ...status,
      mode: 'paper',
      paper: {
        orders: { placed: 1 },
        fills: 1,
        gas: '0.0016',
        totals: { ETH: { spent: '0.05', fees: '0.0025', count: 1 } },
      },
    });
    expect(t).toMatch(/PAPER \(simulated, nothing is sent\)/);
    expect(t).toMatch(
      /paper: 1 simulated fill\(s\); gas a live run would pay 0\.0016 ETH; ETH 0\.05 \(fees 0\.0025\)/,
    );
  });

  const tape = {
    path: '/var/harpoon/market.tape',
    records: 1_300,
    events: 1_234,
    snapshots: 65,
    bytes: 4_200_000,
    held: 0,
    dropped: 0,
  };

  it('a daemon recording its market (market.record) says what the tape holds so far', () => {
    expect(renderStatus(status)).not.toMatch(/recording to/);
    expect(describeTape(tape, true)).toBe(
      'recorded to /var/harpoon/market.tape: 1,234 events and 65 REST answers, 4.2 MB',
    );
    expect(renderStatus({ ...status, tape })).toMatch(
      /\n {2}recording to \/var\/harpoon\/market\.tape: 1,234 events and 65 REST answers so far, 4\.2 MB\n/,
    );
  });

  it('a recording that cannot write its tape (disk full) says how many records wait and how many were lost', () => {
    expect(renderStatus({ ...status, tape: { ...tape, held: 2_500 } })).toMatch(
      /recording to \/var\/harpoon\/market\.tape: 1,234 events and 65 REST answers so far, 4\.2 MB; 2,500 records not written yet \(writing the tape fails\)\n/,
    );
    expect(describeTape({ ...tape, held: 741, dropped: 12_000 }, true)).toBe(
      'recorded to /var/harpoon/market.tape: 1,234 events and 65 REST answers, 4.2 MB; 741 records not written (writing the tape fails), 12,000 records lost',
    );
  });
});

describe('daemon metrics', () => {
  it('counters follow the running totals; gauges read the status at scrape time', async () => {
    let events = 3;
    let fills = 1;
    let available = 30;
    const registry = createDaemonMetrics({
      events: () => events,
      intents: () => ({ done: 2, failed: 1 }),
      ordersPlaced: () => 4,
      fills: () => fills,
      guardRejections: () => ({ wrong_recipient: 1 }),
      rateGroups: () => [{ group: 'write', available, limit: 30 }],
      streamAges: () => [{ key: 'apes', ageMs: 1500, stale: false }],
      spend: () => [
        { account: 'eth-like', spentToday: 10n ** 18n / 2n, exposure: 0n, decimals: 18 },
        // a 6-decimal token shows in whole tokens too
        { account: 'USDC', spentToday: 2_500_000n, exposure: 1_000_000n, decimals: 6 },
      ],
    });
    let text = await registry.metrics();
    expect(text).toMatch(/harpoon_events_total 3/);
    expect(text).toMatch(/harpoon_intents_total\{outcome="done"\} 2/);
    expect(text).toMatch(/harpoon_guard_rejections_total\{reason="wrong_recipient"\} 1/);
    expect(text).toMatch(/harpoon_rate_budget_available\{group="write"\} 30/);
    expect(text).toMatch(/harpoon_stream_age_seconds\{channel="apes"\} 1\.5/);
    expect(text).toMatch(/harpoon_spent_today\{account="eth-like"\} 0\.5/);
    expect(text).toMatch(/harpoon_spent_today\{account="USDC"\} 2\.5/);
    expect(text).toMatch(/harpoon_open_offer_exposure\{account="USDC"\} 1\n/);
    events = 10;
    fills = 4;
    available = 27;
    text = await registry.metrics();
    expect(text).toMatch(/harpoon_events_total 10/);
    expect(text).toMatch(/harpoon_fills_total 4/);
    expect(text).toMatch(/harpoon_rate_budget_available\{group="write"\} 27/);
    // the process's own, by their usual names: memory a long run can watch grow, event-loop delay
    expect(text).toMatch(/^process_resident_memory_bytes [1-9]\d*$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes [1-9]\d*$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    // a second daemon in the process shares them: no name registered twice
    const again = await createDaemonMetrics({
      events: () => 0,
      intents: () => ({}),
      ordersPlaced: () => 0,
      fills: () => 0,
      guardRejections: () => ({}),
      rateGroups: () => [],
      streamAges: () => [],
      spend: () => [],
    }).metrics();
    expect(again.match(/^process_resident_memory_bytes /gm)).toHaveLength(1);
    expect(again).toMatch(/^harpoon_events_total 0$/m);
  });
});

describe('buildStatus: amounts in their own token', () => {
  it('a 6-decimal token shows right in open orders and spend; an offer being cancelled shows its state', () => {
    const now = 1_800_000_000_000;
    const ledger = createOrderLedger({ clock: { now: () => now }, chain: 'ethereum' });
    const usdc = {
      address: '0x00000000000000000000000000000000000000c1' as never,
      symbol: 'USDC',
      decimals: 6,
    };
    ledger.post({
      orderHash: `0x${'1'.repeat(64)}`,
      intentId: 'i1',
      strategyId: 'bidder',
      target: 't',
      side: 'collection_offer',
      collection: 'apes',
      contract: null,
      tokenId: null,
      standard: null,
      trait: null,
      price: 12_500_000n,
      paymentToken: usdc,
      quantity: 2n,
      expiresAt: now + 60_000,
    });
    ledger.note(`0x${'1'.repeat(64)}`, { kind: 'opened' });
    ledger.note(`0x${'1'.repeat(64)}`, { kind: 'cancel_accepted', validUntil: now + 30_000 });
    const st = buildStatus({
      now,
      state: 'running',
      mode: 'live',
      wallet: '0xabc',
      chain: { name: 'ethereum', chainId: 1 },
      startedAt: now - 1000,
      readyAt: now - 900,
      failure: null,
      events: { total: 0, byKind: {} },
      engine: undefined,
      stream: undefined,
      rateGroups: [],
      ledger,
      ordersPlaced: 1,
      liveAtStop: undefined,
      fills: { total: 0, recent: [] },
      paper: undefined,
      tokenSymbol: () => 'USDC',
      guardRejections: {},
      reconcile: {},
      credentials: undefined,
      pnl: {
        byStrategy: [
          {
            key: 'seller',
            token: usdc,
            sales: 2,
            held: 1,
            realized: -1_500_000n,
            unrealizedAtFloor: 250_000n,
            unrealizedAtBestOffer: null,
          },
        ],
        byCollection: [],
      },
    });
    // profit and loss in the token's own decimals (6 for USDC), a loss negative
    expect(st.pnl?.byStrategy).toEqual([
      {
        key: 'seller',
        symbol: 'USDC',
        sales: 2,
        held: 1,
        realized: '-1.5',
        unrealizedAtFloor: '0.25',
        unrealizedAtBestOffer: null,
      },
    ]);
    expect(renderStatus(st)).toMatch(
      /PnL strategy seller: realized -1\.5 USDC over 2 sale\(s\); 1 held, unrealized 0\.25 at the floor \/ not known at the best offer/,
    );
    // neither known (a minted collection the market view does not follow): said in words
    const unknown = {
      ...st,
      pnl: {
        byStrategy: [
          {
            ...(st.pnl?.byStrategy[0] as NonNullable<typeof st.pnl>['byStrategy'][number]),
            unrealizedAtFloor: null,
          },
        ],
        byCollection: [],
      },
    };
    expect(renderStatus(unknown)).toMatch(
      /1 held, unrealized not known \(the market view knows no floor and no offer for them\)\n/,
    );
    expect(st.orders.open).toEqual([
      expect.objectContaining({
        price: '12.5',
        quantity: '2',
        symbol: 'USDC',
        state: 'cancelling',
        countedUntil: now + 30_000,
      }),
    ]);
    expect(renderStatus(st)).toMatch(/12\.5 USDC ×2 \[cancelling\]/);
    expect(renderStatus(st)).toMatch(/1 being cancelled, still counted/);
  });
});

describe('orders still live as the daemon stops', () => {
  const order = (n: number, state: string, reason: string | null) => ({
    orderHash: `0x${String(n).padStart(64, '0')}`,
    state,
    reason,
  });
  it('says each reason once, with the orders it holds, in one line', () => {
    const standing = 'left standing: the daemon stops without cancelling (the next start resumes them)';
    const line = liveAtStopLine([
      order(1, 'open', standing),
      order(2, 'posted', 'its post was not answered'),
      order(3, 'partly_filled', standing),
      order(4, 'cancelling', null),
    ]);
    expect(line).toBe(
      `4 order(s) of ours still live on the marketplace (kept in the store): 0x00000000… open, 0x00000000… partly_filled (${standing}); 0x00000000… posted (its post was not answered); 0x00000000… cancelling`,
    );
    expect(line.split(standing)).toHaveLength(2);
  });
  it('names ten at most and says there are more', () => {
    const line = liveAtStopLine(Array.from({ length: 12 }, (_, i) => order(i, 'open', 'r')));
    expect(line.startsWith('12 order(s)')).toBe(true);
    expect(line.match(/… open/g)).toHaveLength(10);
    expect(line.endsWith('(r); …')).toBe(true);
  });
  it('the final summary says each reason once, then its orders with their whole hashes', () => {
    const standing = 'left standing: the daemon stops without cancelling them';
    const liveAtStop = [order(1, 'open', standing), order(2, 'posted', null), order(3, 'open', standing)];
    const t = renderStatus({ ...status, orders: { ...status.orders, liveAtStop } });
    expect(t).toContain(
      `\n  STILL LIVE on the marketplace: 2 order(s), ${standing}\n    0x${'1'.padStart(64, '0')} open\n    0x${'3'.padStart(64, '0')} open\n  STILL LIVE on the marketplace: 1 order(s)\n    0x${'2'.padStart(64, '0')} posted\n`,
    );
    expect(t.split(standing)).toHaveLength(2);
  });
});

describe('fills in the summary', () => {
  const fill = (n: number) =>
    ({ ...status.fills.recent[0], at: n * 1000 }) as DaemonStatus['fills']['recent'][number];
  it('says when it shows only the last of them', () => {
    const one = { total: 1, recent: [fill(0)] };
    expect(renderStatus({ ...status, fills: one })).toMatch(/\n {2}fills: 1\n/);
    const many = { total: 11, recent: Array.from({ length: 11 }, (_, i) => fill(i)) };
    const t = renderStatus({ ...status, fills: many });
    expect(t).toMatch(/\n {2}fills: 11 \(the last 6\)\n/);
    expect(t.match(/\n {4}00:00:\d\d /g)).toHaveLength(6);
  });
});
