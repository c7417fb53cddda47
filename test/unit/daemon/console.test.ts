import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Console, createConsole, type FillFacts } from '../../../src/daemon/console.ts';
import type { DaemonStatus } from '../../../src/daemon/status.ts';
import { createHoldings, createOrderLedger, storeLedger } from '../../../src/ledger/index.ts';
import type { MarketSnapshot } from '../../../src/market/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';

const C = '0x00000000000000000000000000000000000000c1';
const ME = '0x00000000000000000000000000000000000000aa';
const OTHER = '0x00000000000000000000000000000000000000bb';
const ETH = { address: '0x0000000000000000000000000000000000000000' as never, symbol: 'ETH', decimals: 18 };
const WETH = { address: '0x00000000000000000000000000000000000000e0' as never, symbol: 'WETH', decimals: 18 };
const E = 10n ** 18n;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

const STATUS = {
  spend: [],
  rateBudget: [{ group: 'write', available: 3, limit: 5, windowMs: 1000, queued: 0, served: 0, http429: 0 }],
  stream: { channels: [{ key: 'apes', joined: true, ageMs: 1200, stale: false }] },
} as unknown as DaemonStatus;

/** A response that records what the console writes to it. */
function fakeResponse(): ServerResponse & { text: string; ended: boolean } {
  const r = new EventEmitter() as unknown as ServerResponse & { text: string; ended: boolean };
  Object.assign(r, {
    text: '',
    ended: false,
    writableLength: 0,
    writeHead() {
      return r;
    },
    write(chunk: string) {
      r.text += chunk;
      return true;
    },
    end() {
      r.ended = true;
      return r;
    },
    destroy() {
      r.ended = true;
      return r;
    },
  });
  return r;
}

function market(collectionOffer: { price: bigint; maker: string; orderHash: string }): MarketSnapshot {
  const c = {
    slug: 'apes',
    floor: {
      value: { price: 2n * E, paymentToken: WETH, orderHash: hash(99), maker: OTHER, expiresAt: null },
    },
    floorRelearning: false,
    traitFloors: null,
    traitFloorsByTrait: new Map(),
    traits: null,
    bestCollectionOffer: { value: { ...collectionOffer, paymentToken: WETH, expiresAt: null } },
    bestTraitOffers: new Map(),
    bestListings: new Map(),
    ageMs: 0,
    stale: false,
  };
  return {
    at: 0,
    collections: ['apes'],
    collection: (s: string) => (s === 'apes' ? c : undefined),
    ownOrders: [],
  } as unknown as MarketSnapshot;
}

describe('the console: what the dashboard reads', () => {
  let con: Console | undefined;
  let store: Store | undefined;
  afterEach(() => {
    con?.stop();
    store?.close();
  });

  it('fills with strategy, gas and realized PnL, paged newest first; each new fill pushed once to clients and onFill', async () => {
    store = openStore(':memory:');
    const st = store;
    let now = 1_000;
    const ledger = createOrderLedger({
      clock: { now: () => now },
      chain: 'ethereum',
      store: storeLedger(st, () => now),
    });
    const holdings = createHoldings({ store: st, ledger, chain: 'ethereum', tokenOf: () => ETH });
    st.intents.create({
      id: 'buy-1',
      strategy: 'sniper',
      kind: 'engine.buy_listing',
      targetKey: 'b',
      payload: {},
    });
    st.spend.record({
      strategy: 'sniper',
      intentId: 'buy-1',
      kind: 'gas',
      token: ETH.address,
      amount: 3n * 10n ** 15n,
    });
    const buy = (id: string, tokenId: string, at: number) =>
      st.fills.record({
        intentId: id,
        txHash: `0x${tokenId}`,
        side: 'buy',
        collection: 'apes',
        contract: C,
        tokenId,
        price: E,
        token: ETH.address,
        filledAt: at,
      });
    buy('buy-1', '1', 10);
    const seen: { id: number; facts: FillFacts }[] = [];
    con = createConsole(
      {
        now: () => now,
        status: () => STATUS,
        store: () => st,
        ledger: () => ledger,
        holdings: () => holdings,
        market: () => undefined,
        tokenOf: () => ETH,
        wallet: () => ME,
        balances: () => new Map([[ETH.address as string, 5n * E]]),
      },
      {
        fillPollMs: 5,
        statusEveryMs: 60_000,
        sampleEveryMs: 60_000,
        onFill: (f, facts) => seen.push({ id: f.id, facts }),
      },
    );
    con.start();
    const res = fakeResponse();
    con.events({ on: () => undefined } as unknown as IncomingMessage, res);
    expect(res.text).toContain('event: status');
    expect(con.clients).toBe(1);
    // fills booked before the start are history, not news
    await new Promise((r) => setTimeout(r, 30));
    expect(seen).toEqual([]);
    // a sale of token 1 (bought at 1 ETH + 0.003 gas) for 1.5 ETH, 0.05 fees
    st.fills.record({
      txHash: '0xs1',
      side: 'sell',
      collection: 'apes',
      contract: C,
      tokenId: '1',
      price: (3n * E) / 2n,
      fees: 5n * 10n ** 16n,
      token: ETH.address,
      filledAt: 20,
    });
    for (let i = 2; i <= 5; i++) buy(`buy-${i}`, String(i), 20 + i);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.map((s) => s.id)).toEqual([2, 3, 4, 5, 6]);
    expect(seen[0]?.facts).toMatchObject({ realized: (3n * E) / 2n - 5n * 10n ** 16n - E - 3n * 10n ** 15n });
    const pushed = res.text.split('event: fill').length - 1;
    expect(pushed).toBe(5);
    const snap = con.snapshot();
    expect(snap.fills.total).toBe(6);
    expect(snap.fills.rows.map((r) => r.id)).toEqual(['6', '5', '4', '3', '2', '1']);
    const first = snap.fills.rows.find((r) => r.id === '1');
    expect(first).toMatchObject({
      strategy: 'sniper',
      kind: 'buy_listing',
      gas: '0.003',
      price: '1',
      side: 'buy',
    });
    expect(snap.fills.rows.find((r) => r.id === '2')).toMatchObject({ realized: '0.447', fees: '0.05' });
    expect(snap.pnlHistory).toEqual([{ at: 20, symbol: 'ETH', realized: '0.447' }]);
    const page = con.fills({ limit: 2, beforeId: 4 });
    expect(page.rows.map((r) => r.id)).toEqual(['3', '2']);
    expect(snap.series[0]?.balances).toEqual([{ symbol: 'ETH', amount: '5' }]);
    expect(snap.series[0]?.streamAgeMs).toBe(1200);
    now = 2_000;
  });

  it('our orders ranked against the best competing order; decisions and alerts newest first; gone orders said so', () => {
    store = openStore(':memory:');
    const st = store;
    const ledger = createOrderLedger({
      clock: { now: () => 5 },
      chain: 'ethereum',
      store: storeLedger(st, () => 5),
    });
    const offer = (n: number, price: bigint) =>
      ledger.post({
        orderHash: hash(n),
        intentId: `i${n}`,
        strategyId: 'collection-bidder',
        target: 'offer:collection:apes',
        side: 'collection_offer',
        collection: 'apes',
        contract: null,
        tokenId: null,
        standard: null,
        trait: null,
        price,
        paymentToken: WETH,
        quantity: 1n,
        expiresAt: 10_000_000,
      });
    offer(1, E);
    offer(2, E / 2n);
    let snapshot = market({ price: (3n * E) / 4n, maker: OTHER, orderHash: hash(50) });
    con = createConsole({
      now: () => 5,
      status: () => STATUS,
      store: () => st,
      ledger: () => ledger,
      holdings: () => undefined,
      market: () => snapshot,
      tokenOf: () => WETH,
      wallet: () => ME,
      balances: () => undefined,
    });
    const rows = con.snapshot().orders;
    expect(rows.map((r) => [r.orderHash, r.rank, r.bestCompeting])).toEqual([
      [hash(1), 1, '0.75'],
      [hash(2), 2, '0.75'],
    ]);
    // the best offer on the book is our own: nothing competes that we know of
    snapshot = market({ price: E, maker: ME, orderHash: hash(1) });
    expect(con.snapshot().orders.map((r) => [r.rank, r.bestCompeting])).toEqual([
      [1, null],
      [1, null],
    ]);
    con.outcome({
      at: 1,
      intentId: 'a',
      strategyId: 's',
      kind: 'place_offer',
      target: 't',
      status: 'rejected',
      code: 'risk_max_exposure',
      message: 'over the cap',
    });
    con.outcome({
      at: 2,
      intentId: 'b',
      strategyId: 's',
      kind: 'place_offer',
      target: 't',
      status: 'done',
      code: null,
      message: null,
    });
    expect(con.snapshot().decisions).toEqual([
      { at: 2, strategy: 's', kind: 'place_offer', target: 't', outcome: 'done', reason: null },
      {
        at: 1,
        strategy: 's',
        kind: 'place_offer',
        target: 't',
        outcome: 'refused',
        reason: 'risk_max_exposure: over the cap',
      },
    ]);
    con.alert({ at: 3, kind: 'kill', severity: 'critical', title: 'Kill switch', text: 'x' });
    expect(con.snapshot().alerts).toHaveLength(1);
    const res = fakeResponse();
    con.events({ on: () => undefined } as unknown as IncomingMessage, res);
    ledger.apply({ kind: 'cancel', orderHash: hash(2) } as never);
    con.orderChanged(ledger.get(hash(2)) as never);
    expect(res.text).toContain(`"orderHash":"${hash(2)}","state":"gone"`);
  });
});
