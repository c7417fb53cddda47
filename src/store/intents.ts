import { fromJson, toJson } from './json.ts';
import type { Db } from './open.ts';

export const INTENT_STATES = ['pending', 'sent', 'unknown', 'done', 'failed'] as const;
export type IntentState = (typeof INTENT_STATES)[number];
/** States whose outcome is not settled: they block budget and must be reconciled at start. */
export const OPEN_INTENT_STATES: readonly IntentState[] = Object.freeze(['pending', 'sent', 'unknown']);

export interface IntentRecord {
  readonly id: string;
  readonly strategy: string;
  readonly kind: string;
  /** What the intent acts on (e.g. `listing:<order hash>`, `offer:<collection>:<trait>`), for coalescing and dedup. */
  readonly targetKey: string;
  readonly payload: unknown;
  readonly state: IntentState;
  readonly error?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface NewIntent {
  readonly id: string;
  readonly strategy: string;
  readonly kind: string;
  readonly targetKey: string;
  readonly payload: unknown;
  readonly state?: IntentState;
}

export interface IntentRepo {
  /** Inserts the intent; returns false (and changes nothing) if an intent with this id exists. */
  create(intent: NewIntent): boolean;
  get(id: string): IntentRecord | undefined;
  setState(id: string, state: IntentState, error?: string): void;
  listByState(...states: IntentState[]): IntentRecord[];
  /** Intents on this target that are not settled (pending, sent, unknown). */
  openForTarget(targetKey: string): IntentRecord[];
}

interface Row {
  id: string;
  strategy: string;
  kind: string;
  target_key: string;
  payload: string;
  state: IntentState;
  error: string | null;
  created_at: number;
  updated_at: number;
}

function fromRow(r: Row): IntentRecord {
  return {
    id: r.id,
    strategy: r.strategy,
    kind: r.kind,
    targetKey: r.target_key,
    payload: fromJson(r.payload),
    state: r.state,
    ...(r.error === null ? {} : { error: r.error }),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function createIntentRepo(db: Db, now: () => number): IntentRepo {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO intents (id, strategy, kind, target_key, payload, state, error, created_at, updated_at)
     VALUES (@id, @strategy, @kind, @targetKey, @payload, @state, NULL, @at, @at)`,
  );
  const getStmt = db.prepare<[string], Row>('SELECT * FROM intents WHERE id = ?');
  const setStmt = db.prepare('UPDATE intents SET state = ?, error = ?, updated_at = ? WHERE id = ?');
  const byTarget = db.prepare<[string], Row>(
    "SELECT * FROM intents WHERE target_key = ? AND state IN ('pending','sent','unknown') ORDER BY created_at, rowid",
  );
  return {
    create(intent) {
      const info = insert.run({
        id: intent.id,
        strategy: intent.strategy,
        kind: intent.kind,
        targetKey: intent.targetKey,
        payload: toJson(intent.payload),
        state: intent.state ?? 'pending',
        at: now(),
      });
      return info.changes === 1;
    },
    get(id) {
      const r = getStmt.get(id);
      return r ? fromRow(r) : undefined;
    },
    setState(id, state, error) {
      const info = setStmt.run(state, error ?? null, now(), id);
      if (info.changes !== 1) throw new RangeError(`no intent with id '${id}'`);
    },
    listByState(...states) {
      if (states.length === 0) return [];
      const sql = `SELECT * FROM intents WHERE state IN (${states.map(() => '?').join(',')}) ORDER BY created_at, rowid`;
      return (db.prepare(sql).all(...states) as Row[]).map(fromRow);
    },
    openForTarget(targetKey) {
      return byTarget.all(targetKey).map(fromRow);
    },
  };
}
