// Contract suites for the engine's persistence ports. Run them against the in-memory fakes (here)
// and against the real adapters (the SQLite store): one suite per port, both implementations.
//
//   import { journalContract } from '../engine/contracts.ts';
//   journalContract('sqlite', () => openStore(tmpPath()).journal);
import { describe, expect, it } from 'vitest';
import type { OrderHash } from '../../../src/domain/ids.ts';
import type { IntentJournal, SpendLedger, StrategyStateStore } from '../../../src/engine/ports.ts';
import { buyListing, placeOffer, swap } from '../../../src/strategy.ts';

type Make<T> = () => T | Promise<T>;

const WETH = { address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as never, symbol: 'WETH', decimals: 18 };
const H = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as OrderHash;
const BIG = 123_456_789_012_345_678_901_234_567_890n;

export function journalContract(name: string, make: Make<IntentJournal>): void {
  describe(`IntentJournal contract: ${name}`, () => {
    const offer = placeOffer({
      offer: { type: 'trait', collection: 'apes', traitType: 'Fur', value: 'Gold' },
      price: BIG,
      paymentToken: WETH,
      expiresAt: 1_900_000_000_000,
      quantity: 2n,
      priority: 1.5,
      reason: 'test',
    });

    it('stores an intent exactly (bigints included) and walks it through its states', async () => {
      const j = await make();
      await j.append({
        id: 'i1',
        strategyId: 's',
        intent: offer,
        state: 'pending',
        createdAt: 1,
        updatedAt: 1,
      });
      await j.update('i1', { state: 'sent', at: 2 });
      await j.update('i1', { state: 'done', at: 3, orderHash: H(7) });
      const [r] = await j.list();
      expect(r).toEqual({
        id: 'i1',
        strategyId: 's',
        intent: offer,
        state: 'done',
        createdAt: 1,
        updatedAt: 3,
        orderHash: H(7),
      });
    });

    it('keeps spend and errors, and filters by state', async () => {
      const j = await make();
      const buy = buyListing({
        orderHash: H(1),
        collection: 'apes',
        nft: { chain: 'ethereum', contract: WETH.address, identifier: '5' as never },
        maxPrice: BIG,
        paymentToken: WETH,
      });
      const sw = swap({ fromToken: WETH, toToken: WETH, amountIn: 5n, slippageBps: 30 });
      await j.append({ id: 'a', strategyId: 's', intent: buy, state: 'pending', createdAt: 1, updatedAt: 1 });
      await j.append({ id: 'b', strategyId: 's', intent: sw, state: 'pending', createdAt: 1, updatedAt: 1 });
      await j.update('a', { state: 'done', at: 2, spent: BIG - 1n });
      await j.update('b', { state: 'unknown', at: 2, error: { code: 'timeout', message: 'timed out' } });
      const unknown = await j.list({ states: ['sent', 'unknown'] });
      expect(unknown.map((r) => r.id)).toEqual(['b']);
      expect(unknown[0]?.error).toEqual({ code: 'timeout', message: 'timed out' });
      const done = await j.list({ states: ['done'] });
      expect(done[0]?.spent).toBe(BIG - 1n);
      expect(done[0]?.intent).toEqual(buy);
    });

    it('refuses the same id twice (no silent double intent)', async () => {
      const j = await make();
      await j.append({
        id: 'x',
        strategyId: 's',
        intent: offer,
        state: 'pending',
        createdAt: 1,
        updatedAt: 1,
      });
      await expect(
        (async () =>
          j.append({
            id: 'x',
            strategyId: 's',
            intent: offer,
            state: 'pending',
            createdAt: 1,
            updatedAt: 1,
          }))(),
      ).rejects.toThrow();
    });
  });
}

export function stateStoreContract(name: string, make: Make<StrategyStateStore>): void {
  describe(`StrategyStateStore contract: ${name}`, () => {
    it('loads nothing for a new strategy, then what was saved, by key', async () => {
      const st = await make();
      expect(await st.load('s')).toBeUndefined();
      await st.save('s', { a: '1', b: JSON.stringify({ c: ['x'] }) }, []);
      await st.save('s', { a: '2' }, []);
      await st.save('t', { a: '"other"' }, []);
      expect(await st.load('s')).toEqual({ a: 2, b: { c: ['x'] } });
      await st.save('s', {}, ['b']);
      expect(await st.load('s')).toEqual({ a: 2 });
      expect(await st.load('t')).toEqual({ a: 'other' });
    });
  });
}

export function spendLedgerContract(name: string, make: Make<SpendLedger>): void {
  describe(`SpendLedger contract: ${name}`, () => {
    it('keeps every entry with its bigint amount', async () => {
      const l = await make();
      const e = {
        at: 5,
        strategyId: 's',
        collection: 'apes',
        token: WETH.address as string,
        account: 'eth-like',
        amount: BIG,
        kind: 'fill' as const,
        items: 2n,
        intentId: null,
      };
      await l.record(e);
      await l.record({ ...e, at: 6, kind: 'swap', collection: null, items: 0n, intentId: 'i9' });
      const all = await l.all();
      expect(all).toHaveLength(2);
      expect(all[0]).toEqual(e);
      expect(all[1]?.intentId).toBe('i9');
    });
  });
}
