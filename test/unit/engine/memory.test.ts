import { MemoryJournal, MemorySpendLedger, MemoryStateStore } from '../../../src/engine/memory.ts';
import { journalContract, spendLedgerContract, stateStoreContract } from './contracts.ts';

journalContract('memory', () => new MemoryJournal());
stateStoreContract('memory', () => new MemoryStateStore());
spendLedgerContract('memory', () => new MemorySpendLedger());
