import { afterEach, describe, expect, it } from 'vitest';
import { storeJournal, storeSpendLedger, storeStrategyState } from '../../../src/daemon/persistence.ts';
import type { Address, OrderHash } from '../../../src/domain/ids.ts';
import type { JournalRecord } from '../../../src/engine/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';
import { cancelOrder, placeOffer } from '../../../src/strategy.ts';

const WETH = {
  address: '0x00000000000000000000000000000000000000e1' as Address,
  symbol: 'WETH',
  decimals: 18,
};
let store: Store;
afterEach(() => store?.close());

describe('engine ports on the SQLite store', () => {
  it('journal: write-ahead record, state changes, order hash and spend survive; ids never collide with execution intents', () => {
    store = openStore(':memory:');
    const j = storeJournal(store);
    const intent = placeOffer({
      offer: { type: 'collection', collection: 'apes' },
      price: 5n,
      paymentToken: WETH,
      expiresAt: 9,
    });
    j.append({ id: 'a-1', strategyId: 'bidder', intent, state: 'pending', createdAt: 1, updatedAt: 1 });
    j.update('a-1', { state: 'sent', at: 2 });
    expect((j.list({ states: ['sent'] }) as unknown[]).length).toBe(1);
    j.update('a-1', { state: 'done', at: 3, orderHash: '0xabc' as OrderHash, spent: 10n ** 30n });
    j.append({
      id: 'a-2',
      strategyId: 'bidder',
      intent: cancelOrder({ orderHash: '0xabc' as OrderHash }),
      state: 'pending',
      createdAt: 4,
      updatedAt: 4,
    });
    j.update('a-2', { state: 'failed', at: 5, error: { code: 'http_404', message: 'gone' } });
    // the execution layer's own intent with the same bare id is another row
    expect(
      store.intents.create({ id: 'a-1', strategy: 'x', kind: 'buy_listing', targetKey: 't', payload: {} }),
    ).toBe(true);
    // a fresh journal over the same store (a restart) reads it all back
    const again = storeJournal(store);
    const all = again.list() as readonly JournalRecord[];
    expect(all).toHaveLength(2);
    const done = all.find((r) => r.id === 'a-1');
    expect(done?.state).toBe('done');
    expect(done?.orderHash).toBe('0xabc');
    expect(done?.spent).toBe(10n ** 30n);
    expect(done?.intent).toEqual(intent);
    const failed = all.find((r) => r.id === 'a-2');
    expect(failed?.error).toEqual({ code: 'http_404', message: 'gone' });
  });

  it('spend ledger: entries round-trip (bigints, items, account, collection) and execution rows are not read as budget', () => {
    store = openStore(':memory:');
    const l = storeSpendLedger(store);
    l.record({
      at: 1000,
      strategyId: 'sniper',
      collection: 'apes',
      token: '0xeee',
      account: 'eth-like',
      amount: 123n * 10n ** 18n,
      kind: 'buy',
      items: 1n,
      intentId: 'i-1',
    });
    l.record({
      at: 2000,
      strategyId: 'bidder',
      collection: null,
      token: '0xeee',
      account: 'eth-like',
      amount: 7n,
      kind: 'fill',
      items: 1n,
      intentId: null,
    });
    l.record({
      at: 2000,
      strategyId: 'bidder',
      collection: null,
      token: '0xeee',
      account: 'eth-like',
      amount: 8n,
      kind: 'fill',
      items: 1n,
      intentId: null,
    });
    store.spend.record({ strategy: 'sniper', intentId: 'i-1', kind: 'price', token: '0xeee', amount: 999n });
    const all = l.all() as unknown as {
      amount: bigint;
      kind: string;
      collection: string | null;
      intentId: string | null;
      items: bigint;
      account: string;
    }[];
    expect(all).toHaveLength(3);
    expect(all.map((e) => e.amount).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual([
      7n,
      8n,
      123n * 10n ** 18n,
    ]);
    const buy = all.find((e) => e.kind === 'buy');
    expect(buy).toMatchObject({ collection: 'apes', intentId: 'i-1', items: 1n, account: 'eth-like' });
    expect(all.filter((e) => e.intentId === null)).toHaveLength(2);
  });

  it('strategy state: changed keys (JSON text) merge into the saved object, deleted keys go; a restart reads it back', () => {
    store = openStore(':memory:');
    const s = storeStrategyState(store);
    void s.save('sniper', { bought: '2', seen: '{"a":[1,2]}' }, []);
    void s.save('sniper', { bought: '3' }, ['seen']);
    expect(storeStrategyState(store).load('sniper')).toEqual({ bought: 3 });
    expect(s.load('other')).toBeUndefined();
  });
});
