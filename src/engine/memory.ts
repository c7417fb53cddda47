// In-memory implementations of the engine's ports: for unit tests, benchmarks and as a model of
// what the real adapters (SQLite store, live/paper executors, scheduler) must do.
import type { OrderHash } from '../domain/ids.ts';
import type { Intent } from '../strategy.ts';
import type {
  EngineClock,
  ExecutionContext,
  ExecutionResult,
  Executor,
  IntentGuard,
  IntentJournal,
  IntentState,
  JournalPatch,
  JournalRecord,
  SpendEntry,
  SpendLedger,
  StrategyStateStore,
  WriteBudget,
} from './ports.ts';

export class MemoryJournal implements IntentJournal {
  readonly records = new Map<string, JournalRecord>();
  /** Every state each intent went through, in order. */
  readonly history = new Map<string, IntentState[]>();
  append(record: JournalRecord): void {
    if (this.records.has(record.id)) throw new Error(`intent ${record.id} is already in the journal`);
    this.records.set(record.id, record);
    this.history.set(record.id, [record.state]);
  }
  update(id: string, patch: JournalPatch): void {
    const r = this.records.get(id);
    if (r === undefined) throw new Error(`intent ${id} is not in the journal`);
    this.records.set(id, {
      ...r,
      state: patch.state,
      updatedAt: patch.at,
      ...(patch.orderHash !== undefined ? { orderHash: patch.orderHash } : {}),
      ...(patch.spent !== undefined ? { spent: patch.spent } : {}),
      ...(patch.error !== undefined ? { error: patch.error } : {}),
    });
    this.history.get(id)?.push(patch.state);
  }
  list(filter: { readonly states?: readonly IntentState[] } = {}): readonly JournalRecord[] {
    const all = [...this.records.values()];
    return filter.states === undefined ? all : all.filter((r) => filter.states?.includes(r.state));
  }
}

export class MemoryStateStore implements StrategyStateStore {
  readonly data = new Map<string, string>();
  saves = 0;
  load(strategyId: string): Record<string, unknown> | undefined {
    const t = this.data.get(strategyId);
    return t === undefined ? undefined : (JSON.parse(t) as Record<string, unknown>);
  }
  save(strategyId: string, state: Record<string, unknown>): void {
    this.saves++;
    this.data.set(strategyId, JSON.stringify(state));
  }
}

export class MemorySpendLedger implements SpendLedger {
  readonly entries: SpendEntry[] = [];
  record(entry: SpendEntry): void {
    this.entries.push(entry);
  }
  all(): readonly SpendEntry[] {
    return [...this.entries];
  }
}

export interface ExecutedCall {
  readonly intent: Intent;
  readonly ctx: ExecutionContext;
  readonly at: bigint;
}

/**
 * Executes intents in memory: place/replace return a fresh order hash, buys/mints spend their
 * cap, swaps their amount. `behave` overrides the outcome per intent (throw to fail).
 */
export class MemoryExecutor implements Executor {
  readonly mode = 'memory';
  readonly calls: ExecutedCall[] = [];
  private seq = 0;
  behave: ((intent: Intent, ctx: ExecutionContext) => ExecutionResult | Promise<ExecutionResult>) | undefined;
  onCall: ((call: ExecutedCall) => void) | undefined;

  async execute(intent: Intent, ctx: ExecutionContext): Promise<ExecutionResult> {
    const call = { intent, ctx, at: process.hrtime.bigint() };
    this.calls.push(call);
    this.onCall?.(call);
    if (this.behave) return this.behave(intent, ctx);
    return this.defaultResult(intent);
  }

  defaultResult(intent: Intent): ExecutionResult {
    switch (intent.kind) {
      case 'place_offer':
      case 'replace_offer':
        return { orderHash: this.nextHash() };
      case 'buy_listing':
        return { spent: intent.maxPrice };
      case 'mint':
        return { spent: intent.maxPricePerToken * intent.quantity };
      case 'swap':
        return { spent: intent.amountIn };
      case 'cancel_order':
        return {};
    }
  }

  nextHash(): OrderHash {
    this.seq++;
    return `0x${this.seq.toString(16).padStart(64, '0')}` as OrderHash;
  }
}

export const allowAllGuard: IntentGuard = Object.freeze({ check: () => undefined });

export class FixedWriteBudget implements WriteBudget {
  constructor(public available: number) {}
  writesAvailable(): number {
    return this.available;
  }
}

export const unlimitedWrites: WriteBudget = Object.freeze({
  writesAvailable: () => Number.POSITIVE_INFINITY,
});

export class ManualClock implements EngineClock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
