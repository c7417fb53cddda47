// The engine's persistence ports backed by the SQLite store: the write-ahead intent journal (the
// store's `intents` table, ids prefixed `engine:` so they never collide with the execution
// layer's own intents), per-strategy state (`strategy_state`) and the spend ledger (`spend`, kind
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
import { type Store, toJson } from '../store/index.ts';
import type { Intent } from '../strategy.ts';

const PREFIX = 'engine:';
const KIND_PREFIX = 'engine.';
const LEDGER = 'ledger:';

interface Payload {
  readonly intent: Intent;
  readonly orderHash?: string;
  readonly spent?: bigint;
  readonly errorCode?: string;
}

export function storeJournal(store: Store): IntentJournal {
  const setPayload = store.db.prepare('UPDATE intents SET payload = ? WHERE id = ?');
  const payloads = new Map<string, Payload>();
  const toRecord = (r: ReturnType<Store['intents']['get']> & object): JournalRecord | undefined => {
    if (!r.id.startsWith(PREFIX)) return undefined;
    const p = r.payload as Payload;
    const errorMessage = r.error;
    return {
      id: r.id.slice(PREFIX.length),
      strategyId: r.strategy,
      intent: p.intent,
      state: r.state,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      ...(p.orderHash !== undefined ? { orderHash: p.orderHash as OrderHash } : {}),
      ...(p.spent !== undefined ? { spent: p.spent } : {}),
      ...(errorMessage !== undefined
        ? { error: { code: p.errorCode ?? 'error', message: errorMessage } }
        : {}),
    };
  };
  return {
    append(record: JournalRecord) {
      const payload: Payload = { intent: record.intent };
      payloads.set(record.id, payload);
      store.intents.create({
        id: PREFIX + record.id,
        strategy: record.strategyId,
        kind: KIND_PREFIX + record.intent.kind,
        targetKey: `${record.strategyId}|${record.intent.target}`,
        payload,
        state: record.state,
      });
    },
    update(id: string, patch: JournalPatch) {
      const key = PREFIX + id;
      store.transaction(
        () => {
          if (patch.orderHash !== undefined || patch.spent !== undefined || patch.error !== undefined) {
            const prev = payloads.get(id) ?? (store.intents.get(key)?.payload as Payload | undefined);
            if (prev !== undefined) {
              const next: Payload = {
                ...prev,
                ...(patch.orderHash !== undefined ? { orderHash: patch.orderHash } : {}),
                ...(patch.spent !== undefined ? { spent: patch.spent } : {}),
                ...(patch.error !== undefined ? { errorCode: patch.error.code } : {}),
              };
              payloads.set(id, next);
              setPayload.run(toJson(next), key);
            }
          }
          store.intents.setState(key, patch.state, patch.error?.message);
        },
        // `sent` is rebuilt by reconcile; every other state change is worth an fsync.
        { durable: patch.state !== 'sent' },
      );
      if (patch.state === 'done' || patch.state === 'failed') payloads.delete(id);
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
