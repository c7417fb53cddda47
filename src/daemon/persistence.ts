// The engine's persistence ports backed by the SQLite store: the write-ahead intent journal (the
// store's `intents` table: one row per intent, kind `engine.<kind>` and the engine's facts under
// `payload.journal` until the execution layer claims the row for a buy, swap or mint), per-strategy
// state (`strategy_state`) and the spend ledger (`spend`, kind
// `ledger:<kind>:<items>:<account>:<collection>` so the engine's budget entries are told apart
// from the execution layer's price/fee/gas rows).

import type { OrderHash } from '../domain/ids.ts';
import type {
  IntentJournal,
  IntentState,
  JournalPatch,
  JournalRecord,
  SpendEntry,
  SpendLedger,
  StrategyStateStore,
} from '../engine/index.ts';
import { type IntentRecord, JOURNAL_KEY, JOURNAL_KIND_PREFIX, type Store } from '../store/index.ts';
import type { Intent } from '../strategy.ts';

const LEDGER = 'ledger:';

/** The engine's facts of an intent, under `payload.journal` of its row. */
interface Journaled {
  readonly intent: Intent;
  readonly orderHash?: string;
  readonly spent?: bigint;
  readonly errorCode?: string;
  readonly errorMessage?: string;
}

function journaledOf(r: IntentRecord): Journaled | undefined {
  const p = r.payload;
  if (p === null || typeof p !== 'object') return undefined;
  const j = (p as Record<string, unknown>)[JOURNAL_KEY];
  return j !== null && typeof j === 'object' && 'intent' in j ? (j as Journaled) : undefined;
}

/** The journal of the store: its reads are synchronous (SQLite), so `list` answers at once. */
export type StoreJournal = Omit<IntentJournal, 'list'> & {
  list(filter?: { readonly states?: readonly IntentState[] }): readonly JournalRecord[];
  /**
   * Records of `states` last changed at or after `since` whose rows are of one of `kinds` (the
   * execution layer's once claimed — swap, mint… — else `engine.<kind>`), oldest first.
   */
  listSince(q: {
    readonly states: readonly IntentState[];
    readonly kinds: readonly string[];
    readonly since: number;
  }): readonly JournalRecord[];
};

export function storeJournal(store: Store): StoreJournal {
  const toRecord = (r: IntentRecord): JournalRecord | undefined => {
    const j = journaledOf(r);
    if (j === undefined) return undefined;
    const message = j.errorMessage ?? r.error;
    return {
      id: r.id,
      strategyId: r.strategy,
      intent: j.intent,
      state: r.state,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      ...(j.orderHash !== undefined ? { orderHash: j.orderHash as OrderHash } : {}),
      ...(j.spent !== undefined ? { spent: j.spent } : {}),
      ...(message !== undefined ? { error: { code: j.errorCode ?? 'error', message } } : {}),
    };
  };
  return {
    append(record: JournalRecord) {
      const journal: Journaled = { intent: record.intent };
      store.intents.create({
        id: record.id,
        strategy: record.strategyId,
        kind: JOURNAL_KIND_PREFIX + record.intent.kind,
        targetKey: `${record.strategyId}|${record.intent.target}`,
        payload: { [JOURNAL_KEY]: journal },
        state: record.state,
      });
    },
    update(id: string, patch: JournalPatch) {
      store.transaction(
        () => {
          // Read fresh: the execution layer may have claimed the row and written its own payload.
          const row = store.intents.get(id);
          if (row === undefined) throw new RangeError(`no journal record '${id}'`);
          const prev = journaledOf(row);
          if (
            prev !== undefined &&
            (patch.orderHash !== undefined || patch.spent !== undefined || patch.error !== undefined)
          ) {
            const next: Journaled = {
              ...prev,
              ...(patch.orderHash !== undefined ? { orderHash: patch.orderHash } : {}),
              ...(patch.spent !== undefined ? { spent: patch.spent } : {}),
              ...(patch.error !== undefined
                ? { errorCode: patch.error.code, errorMessage: patch.error.message }
                : {}),
            };
            store.intents.setPayload(id, {
              ...(row.payload as Record<string, unknown>),
              [JOURNAL_KEY]: next,
            });
          }
          // A claimed row keeps the execution layer's own error code in its error column.
          const claimed = !row.kind.startsWith(JOURNAL_KIND_PREFIX);
          store.intents.setState(
            id,
            patch.state,
            claimed ? (row.error ?? patch.error?.message) : patch.error?.message,
          );
        },
        // `sent` is rebuilt by reconcile; every other state change is worth an fsync.
        { durable: patch.state !== 'sent' },
      );
    },
    list(filter?: { readonly states?: readonly IntentState[] }) {
      const states: IntentState[] = filter?.states
        ? [...filter.states]
        : ['pending', 'sent', 'unknown', 'done', 'failed'];
      const out: JournalRecord[] = [];
      for (const r of store.intents.listByState(...states)) {
        const rec = toRecord(r);
        if (rec !== undefined) out.push(rec);
      }
      return out;
    },
    listSince(q) {
      const out: JournalRecord[] = [];
      for (const r of store.intents.listSince(q)) {
        const rec = toRecord(r);
        if (rec !== undefined) out.push(rec);
      }
      return out;
    },
  };
}

export function storeStrategyState(store: Store): StrategyStateStore {
  const cache = new Map<string, Record<string, unknown>>();
  const current = (strategyId: string): Record<string, unknown> => {
    let v = cache.get(strategyId);
    if (v === undefined) {
      const saved = store.strategyState.get(strategyId);
      v = saved !== null && typeof saved === 'object' ? { ...(saved as Record<string, unknown>) } : {};
      cache.set(strategyId, v);
    }
    return v;
  };
  return {
    load(strategyId) {
      const saved = store.strategyState.get(strategyId);
      return saved !== null && typeof saved === 'object'
        ? { ...(saved as Record<string, unknown>) }
        : undefined;
    },
    /** Only the keys a hook changed (JSON text) and the keys it deleted; the row holds the whole object. */
    save(strategyId, changed, deleted) {
      const state = current(strategyId);
      for (const [k, text] of Object.entries(changed)) state[k] = JSON.parse(text) as unknown;
      for (const k of deleted) delete state[k];
      store.strategyState.set(strategyId, state);
    },
  };
}

export function storeSpendLedger(store: Store): SpendLedger {
  let seq = 0;
  return {
    record(e: SpendEntry) {
      const kind = `${LEDGER}${e.kind}:${e.items}:${e.account}:${e.collection ?? ''}`;
      store.spend.record({
        strategy: e.strategyId,
        intentId: e.intentId ?? `observed:${e.at}:${++seq}`,
        kind,
        token: e.token,
        amount: e.amount,
        at: e.at,
      });
    },
    all() {
      const out: SpendEntry[] = [];
      for (const r of store.spend.list()) {
        if (!r.kind.startsWith(LEDGER)) continue;
        const [kind, items, account, ...rest] = r.kind.slice(LEDGER.length).split(':');
        const collection = rest.join(':');
        out.push({
          at: r.createdAt,
          strategyId: r.strategy,
          collection: collection === '' ? null : collection,
          token: r.token,
          account: account ?? r.token,
          amount: r.amount,
          kind: (kind ?? 'buy') as SpendEntry['kind'],
          items: BigInt(items ?? '0'),
          intentId: r.intentId.startsWith('observed:') ? null : r.intentId,
        });
      }
      return out;
    },
  };
}
