import { afterEach, describe, expect, it } from 'vitest';
import { storeJournal, storeSpendLedger, storeStrategyState } from '../../../src/daemon/persistence.ts';
import type { Address, OrderHash } from '../../../src/domain/ids.ts';
import type { IntentState, JournalRecord } from '../../../src/engine/index.ts';
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
  it('journal: write-ahead record, state changes, order hash and spend survive a restart, one row per intent', () => {
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
    // the journal row is the intent's only row: a second row of the same id cannot be made
    expect(
      store.intents.create({ id: 'a-1', strategy: 'x', kind: 'buy_listing', targetKey: 't', payload: {} }),
    ).toBe(false);
    expect(store.db.prepare('SELECT count(*) AS n FROM intents').get()).toEqual({ n: 2 });
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

  it('journal: the records of some states and kinds since a time, without reading the rest', () => {
    let now = 100;
    store = openStore(':memory:', { now: () => now });
    const j = storeJournal(store);
    const swap = (id: string) =>
      j.append({
        id,
        strategyId: 'rebalancer',
        intent: cancelOrder({ orderHash: `0x${id}` as OrderHash }),
        state: 'pending',
        createdAt: now,
        updatedAt: now,
      });
    for (const id of ['old', 'new', 'offer', 'failed']) swap(id);
    // the execution layer claims the swaps (their rows take its kind); an offer stays the engine's
    for (const id of ['old', 'new', 'failed'])
      expect(store.intents.claim(id, { kind: 'swap', targetKey: id, payload: {} })).toBe(true);
    j.update('old', { state: 'done', at: now });
    now = 200;
    j.update('new', { state: 'done', at: now });
    j.update('offer', { state: 'done', at: now });
    j.update('failed', { state: 'failed', at: now });
    const since = (at: number, kinds: string[], states: IntentState[] = ['done']) =>
      j.listSince({ states, kinds, since: at }).map((r) => r.id);
    expect(since(150, ['swap', 'mint'])).toEqual(['new']);
    expect(since(0, ['swap'])).toEqual(['old', 'new']);
    expect(since(0, ['swap'], ['failed'])).toEqual(['failed']);
    expect(since(0, ['engine.cancel_order'])).toEqual(['offer']);
    expect(since(0, [])).toEqual([]);
  });

  it('journal: the execution layer claims the row (its kind, target, payload and error code), the journal facts stay', () => {
    store = openStore(':memory:');
    const j = storeJournal(store);
    const intent = cancelOrder({ orderHash: '0xdef' as OrderHash });
    j.append({ id: 'b-1', strategyId: 'sniper', intent, state: 'pending', createdAt: 1, updatedAt: 1 });
    // not claimable once settled; claimable while pending or sent
    j.update('b-1', { state: 'sent', at: 2 });
    expect(
      store.intents.claim('b-1', {
        kind: 'buy_listing',
        targetKey: 'listing:0xdef',
        payload: { orderHash: '0xdef' },
      }),
    ).toBe(true);
    expect(store.intents.claim('nope', { kind: 'buy_listing', targetKey: 'x', payload: {} })).toBe(false);
    // a second claim of an execution row is refused (only journal rows are claimed)
    expect(store.intents.claim('b-1', { kind: 'swap', targetKey: 'y', payload: {} })).toBe(false);
    const row = store.intents.get('b-1');
    expect(row).toMatchObject({ kind: 'buy_listing', targetKey: 'listing:0xdef', state: 'pending' });
    expect(row?.payload).toMatchObject({ orderHash: '0xdef' });
    store.intents.setState('b-1', 'failed', 'tx_reverted');
    j.update('b-1', { state: 'failed', at: 3, error: { code: 'tx_reverted', message: 'the buy reverted' } });
    const after = store.intents.get('b-1');
    expect(after?.error).toBe('tx_reverted'); // the execution layer's code is not overwritten
    expect(after?.payload).toMatchObject({ orderHash: '0xdef' });
    const rec = (j.list() as readonly JournalRecord[]).find((r) => r.id === 'b-1');
    expect(rec?.intent).toEqual(intent);
    expect(rec?.error).toEqual({ code: 'tx_reverted', message: 'the buy reverted' });
    // settled rows are not claimed again
    j.append({ id: 'b-2', strategyId: 'sniper', intent, state: 'pending', createdAt: 4, updatedAt: 4 });
    j.update('b-2', { state: 'failed', at: 5, error: { code: 'x', message: 'y' } });
    expect(store.intents.claim('b-2', { kind: 'buy_listing', targetKey: 'z', payload: {} })).toBe(false);
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
