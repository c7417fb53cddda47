import { amountFromDb, amountToDb } from './amount.ts';
import type { Db } from './open.ts';

/** UTC day bucket of an epoch-ms instant: `YYYY-MM-DD`. */
export function dayOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

export interface SpendEntry {
  readonly day: string;
  readonly strategy: string;
  readonly intentId: string;
  /** What the amount is (e.g. `price`, `fees`, `gas`, `reserve`); one entry per (intent, kind). */
  readonly kind: string;
  readonly token: string;
  readonly amount: bigint;
  readonly createdAt: number;
}

export interface NewSpend {
  readonly strategy: string;
  readonly intentId: string;
  readonly kind: string;
  readonly token: string;
  readonly amount: bigint;
  /** Instant of the spend (epoch ms); default now. Its UTC day is the bucket. */
  readonly at?: number;
}

export interface SpendRepo {
  /** Adds an entry; idempotent per (intentId, kind): returns false if it exists. */
  record(entry: NewSpend): boolean;
  /** Removes the (intentId, kind) entry (a reservation released); returns true if one was removed. */
  remove(intentId: string, kind: string): boolean;
  /** Sum for one day and token, optionally one strategy (summed as bigint, never REAL). */
  total(query: { readonly day: string; readonly token: string; readonly strategy?: string }): bigint;
  list(query?: { readonly day?: string; readonly strategy?: string }): SpendEntry[];
  /**
   * Bumps on every entry this store added or removed (the process holds the store's lock, so no
   * one else writes): a reader that remembers it knows without a query whether anything changed.
   */
  version(): number;
}

interface Row {
  day: string;
  strategy: string;
  intent_id: string;
  kind: string;
  token: string;
  amount: string;
  created_at: number;
}

const fromRow = (r: Row): SpendEntry => ({
  day: r.day,
  strategy: r.strategy,
  intentId: r.intent_id,
  kind: r.kind,
  token: r.token,
  amount: amountFromDb(r.amount, 'amount'),
  createdAt: r.created_at,
});

export function createSpendRepo(db: Db, now: () => number): SpendRepo {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO spend (day, strategy, intent_id, kind, token, amount, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const del = db.prepare('DELETE FROM spend WHERE intent_id = ? AND kind = ?');
  const sumAll = db.prepare<[string, string], { amount: string }>(
    'SELECT amount FROM spend WHERE day = ? AND token = ?',
  );
  const sumStrategy = db.prepare<[string, string, string], { amount: string }>(
    'SELECT amount FROM spend WHERE day = ? AND token = ? AND strategy = ?',
  );
  let version = 0;
  return {
    record(e) {
      const at = e.at ?? now();
      const added =
        insert.run(
          dayOf(at),
          e.strategy,
          e.intentId,
          e.kind,
          e.token.toLowerCase(),
          amountToDb(e.amount),
          now(),
        ).changes === 1;
      if (added) version++;
      return added;
    },
    remove(intentId, kind) {
      const removed = del.run(intentId, kind).changes > 0;
      if (removed) version++;
      return removed;
    },
    version: () => version,
    total(q) {
      const token = q.token.toLowerCase();
      const rows =
        q.strategy === undefined ? sumAll.all(q.day, token) : sumStrategy.all(q.day, token, q.strategy);
      let sum = 0n;
      for (const r of rows) sum += amountFromDb(r.amount, 'amount');
      return sum;
    },
    list(q = {}) {
      const where: string[] = [];
      const args: unknown[] = [];
      if (q.day !== undefined) {
        where.push('day = ?');
        args.push(q.day);
      }
      if (q.strategy !== undefined) {
        where.push('strategy = ?');
        args.push(q.strategy);
      }
      const sql = `SELECT * FROM spend${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id`;
      return (db.prepare(sql).all(...args) as Row[]).map(fromRow);
    },
  };
}
