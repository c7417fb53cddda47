import { fromJson, toJson } from './json.ts';
import type { Db } from './open.ts';

export const INTENT_STATES = ['pending', 'sent', 'unknown', 'done', 'failed'] as const;
export type IntentState = (typeof INTENT_STATES)[number];
/** States whose outcome is not settled: they block budget and must be reconciled at start. */
export const OPEN_INTENT_STATES: readonly IntentState[] = Object.freeze(['pending', 'sent', 'unknown']);

/**
 * The engine's write-ahead record of an intent: kind `engine.<intent kind>`, its facts under
 * `payload.journal`. The execution layer that carries the intent out claims the same row (its own
 * kind, target and payload beside `journal`), so every intent has one row.
 */
export const JOURNAL_KIND_PREFIX = 'engine.';
export const JOURNAL_KEY = 'journal';

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
  /** Replaces the payload of an intent (the whole JSON value). */
  setPayload(id: string, payload: unknown): void;
  /**
   * Takes over the engine's journal row of this id (kind `engine.*`, still `pending` or `sent`):
   * its kind, target and payload become the caller's, keeping `payload.journal`; state `pending`.
   * False (nothing changed) when there is no such row.
   */
  claim(id: string, next: Pick<NewIntent, 'kind' | 'targetKey' | 'payload'>): boolean;
  listByState(...states: IntentState[]): IntentRecord[];
  /**
   * Intents of these states and kinds last changed at or after `since`, oldest first (a month of
   * offers is not read to find a few swaps).
   */
  listSince(q: {
    readonly states: readonly IntentState[];
    readonly kinds: readonly string[];
    readonly since: number;
  }): IntentRecord[];
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
  const setPayloadStmt = db.prepare('UPDATE intents SET payload = ?, updated_at = ? WHERE id = ?');
  const claimStmt = db.prepare(
    `UPDATE intents SET kind = @kind, target_key = @targetKey, payload = @payload, state = 'pending', error = NULL,
       updated_at = @at WHERE id = @id AND kind LIKE '${JOURNAL_KIND_PREFIX}%' AND state IN ('pending','sent')`,
  );
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
    setPayload(id, payload) {
      const info = setPayloadStmt.run(toJson(payload), now(), id);
      if (info.changes !== 1) throw new RangeError(`no intent with id '${id}'`);
    },
    claim(id, next) {
      const prev = getStmt.get(id);
      if (prev === undefined || !prev.kind.startsWith(JOURNAL_KIND_PREFIX)) return false;
      const journal = (fromJson(prev.payload) as Record<string, unknown> | null)?.[JOURNAL_KEY];
      if (next.payload === null || typeof next.payload !== 'object' || Array.isArray(next.payload))
        throw new TypeError(`intent ${id}: a claimed intent's payload must be an object`);
      const payload = { ...(next.payload as Record<string, unknown>), [JOURNAL_KEY]: journal };
      const info = claimStmt.run({
        id,
        kind: next.kind,
        targetKey: next.targetKey,
        payload: toJson(payload),
        at: now(),
      });
      return info.changes === 1;
    },
    listByState(...states) {
      if (states.length === 0) return [];
      const sql = `SELECT * FROM intents WHERE state IN (${states.map(() => '?').join(',')}) ORDER BY created_at, rowid`;
      return (db.prepare(sql).all(...states) as Row[]).map(fromRow);
    },
    listSince({ states, kinds, since }) {
      if (states.length === 0 || kinds.length === 0) return [];
      const marks = (n: number) => Array.from({ length: n }, () => '?').join(',');
      const sql = `SELECT * FROM intents WHERE state IN (${marks(states.length)}) AND kind IN (${marks(kinds.length)}) AND updated_at >= ? ORDER BY created_at, rowid`;
      return (db.prepare(sql).all(...states, ...kinds, since) as Row[]).map(fromRow);
    },
    openForTarget(targetKey) {
      return byTarget.all(targetKey).map(fromRow);
    },
  };
}
