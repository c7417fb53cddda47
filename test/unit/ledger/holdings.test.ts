import { describe, expect, it } from 'vitest';
import { createHoldings, createOrderLedger, storeLedger } from '../../../src/ledger/index.ts';
import { openStore } from '../../../src/store/index.ts';

const C = '0x00000000000000000000000000000000000000c1';
const ETH = { address: '0x0000000000000000000000000000000000000000' as never, symbol: 'ETH', decimals: 18 };
const E = 10n ** 18n;

describe('holdings: what we hold and what it cost, from our fills', () => {
  it('buys add units at price + gas, sells take the oldest out, our listing shows; the strategy is the buyer', () => {
    const store = openStore(':memory:');
    let now = 1_000;
    const ledger = createOrderLedger({
      clock: { now: () => now },
      chain: 'ethereum',
      store: storeLedger(store, () => now),
    });
    store.intents.create({
      id: 'buy-1',
      strategy: 'sniper',
      kind: 'buy_listing',
      targetKey: 'b1',
      payload: {},
    });
    store.fills.record({
      intentId: 'buy-1',
      txHash: '0xt1',
      side: 'buy',
      collection: 'apes',
      contract: C,
      tokenId: '7',
      price: E,
      token: ETH.address,
      filledAt: 10,
    });
    store.spend.record({
      strategy: 'sniper',
      intentId: 'buy-1',
      kind: 'gas',
      token: ETH.address,
      amount: 3n * 10n ** 15n,
      at: 10,
    });
    store.fills.record({
      intentId: 'buy-2',
      txHash: '0xt2',
      side: 'buy',
      collection: 'apes',
      contract: C,
      tokenId: '8',
      price: 2n * E,
      token: ETH.address,
      filledAt: 20,
    });
    store.fills.record({
      txHash: '0xt3',
      side: 'sell',
      collection: 'apes',
      contract: C,
      tokenId: '8',
      price: 3n * E,
      token: ETH.address,
      filledAt: 30,
    });
    ledger.post({
      orderHash: `0x${'ab'.repeat(32)}`,
      intentId: 'list-1',
      strategyId: 'seller',
      target: 'list:x',
      side: 'listing',
      collection: 'apes',
      contract: C,
      tokenId: '7',
      standard: 'erc721',
      trait: null,
      price: 2n * E,
      paymentToken: ETH,
      quantity: 1n,
      expiresAt: 10_000_000,
    });
    const h = createHoldings({ store, ledger, chain: 'ethereum', tokenOf: () => ETH });
    expect(h.all().map((x) => x.nft.identifier)).toEqual(['7']); // #8 was sold
    expect(h.get(`ethereum/${C}/7`)).toMatchObject({
      quantity: 1n,
      costBasis: E + 3n * 10n ** 15n, // price + gas of its buy
      strategyId: 'sniper',
      acquiredAt: 10,
      listedBy: { orderHash: `0x${'ab'.repeat(32)}`, strategyId: 'seller', price: 2n * E },
    });
    // sold: gone after a refresh
    store.fills.record({
      txHash: '0xt4',
      side: 'sell',
      collection: 'apes',
      contract: C,
      tokenId: '7',
      price: 2n * E,
      token: ETH.address,
      filledAt: 40,
    });
    now = 2_000;
    h.refresh();
    expect(h.all()).toEqual([]);
    store.close();
  });
});
