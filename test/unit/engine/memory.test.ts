import { describe, expect, it } from 'vitest';
import { MemoryJournal, MemorySpendLedger, MemoryStateStore } from '../../../src/engine/memory.ts';
import type { JournalRecord } from '../../../src/engine/ports.ts';
import type { Intent } from '../../../src/strategy.ts';
import { journalContract, spendLedgerContract, stateStoreContract } from './contracts.ts';

journalContract('memory', () => new MemoryJournal());
stateStoreContract('memory', () => new MemoryStateStore());
spendLedgerContract('memory', () => new MemorySpendLedger());

describe('memory journal that lets finished intents go (long backtests)', () => {
  const record = (id: string, strategyId: string): JournalRecord => ({
    id,
    strategyId,
    intent: { kind: 'cancel_order', target: `order:${id}`, priority: 0 } as unknown as Intent,
    state: 'pending',
    createdAt: 1,
    updatedAt: 1,
  });

  it('keeps unfinished records, lets done and failed ones go, and still knows their strategy', () => {
    const j = new MemoryJournal({ keepFinished: false });
    j.append(record('a', 'sniper'));
    j.append(record('b', 'seller'));
    j.append(record('c', 'seller'));
    j.update('a', { state: 'sent', at: 2 });
    j.update('a', { state: 'done', at: 3 });
    j.update('b', { state: 'failed', at: 3, error: { code: 'x', message: 'no' } });
    j.update('c', { state: 'sent', at: 3 });
    expect([...j.records.keys()]).toEqual(['c']);
    expect([...j.history.keys()]).toEqual(['c']);
    expect(j.list({ states: ['pending', 'sent', 'unknown'] }).map((r) => r.id)).toEqual(['c']);
    expect([j.strategyOf('a'), j.strategyOf('b'), j.strategyOf('c'), j.strategyOf('z')]).toEqual([
      'sniper',
      'seller',
      'seller',
      undefined,
    ]);
    // nothing follows a final state; an id never seen is still an error, and so is a second append
    expect(() => j.update('a', { state: 'done', at: 4 })).not.toThrow();
    expect(() => j.update('z', { state: 'done', at: 4 })).toThrow(/not in the journal/);
    expect(() => j.append(record('a', 'sniper'))).toThrow(/already in the journal/);
  });

  it('keeps every record by default', () => {
    const j = new MemoryJournal();
    j.append(record('a', 'sniper'));
    j.update('a', { state: 'done', at: 2 });
    expect(j.records.get('a')?.state).toBe('done');
    expect(j.history.get('a')).toEqual(['pending', 'done']);
    expect(j.strategyOf('a')).toBe('sniper');
  });
});
