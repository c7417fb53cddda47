import { createFeeRecipientRepo, type FeeRecipientRepo } from './fee-recipients.ts';
import { createFillRepo, type FillRepo } from './fills.ts';
import { createIntentRepo, type IntentRepo } from './intents.ts';
import { acquireStoreLock } from './lock.ts';
import { createNonceRepo, type NonceRepo } from './nonces.ts';
import { type Db, type OpenDbOptions, openDb, schemaVersion } from './open.ts';
import { createOrderRepo, type OrderRepo } from './orders.ts';
import { createSpendRepo, type SpendRepo } from './spend.ts';
import { createStrategyStateRepo, type StrategyStateRepo } from './strategy-state.ts';
import { createTxRepo, type TxRepo } from './transactions.ts';
import { createWatermarkRepo, type WatermarkRepo } from './watermarks.ts';

export { amountFromDb, amountToDb } from './amount.ts';
export type { FeeRecipientRepo } from './fee-recipients.ts';
export type { FillRecord, FillRepo, NewFill } from './fills.ts';
export {
  INTENT_STATES,
  type IntentRecord,
  type IntentRepo,
  type IntentState,
  JOURNAL_KEY,
  JOURNAL_KIND_PREFIX,
  type NewIntent,
  OPEN_INTENT_STATES,
} from './intents.ts';
export { fromJson, toJson } from './json.ts';
export { LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from './migrations.ts';
export type { NonceRepo } from './nonces.ts';
export { type Db, type OpenDbOptions, openDb, schemaVersion } from './open.ts';
export {
  type NewOrder,
  ORDER_SIDES,
  ORDER_STATUSES,
  type OrderFilter,
  type OrderRecord,
  type OrderRepo,
  type OrderSide,
  type OrderStatus,
  STANDING_STATUSES,
} from './orders.ts';
export { dayOf, type NewSpend, type SpendEntry, type SpendRepo } from './spend.ts';
export type { StrategyStateRepo } from './strategy-state.ts';
export {
  LIVE_TX_STATES,
  type NewTx,
  TX_STATES,
  type TxInclusion,
  type TxRecord,
  type TxRepo,
  type TxState,
} from './transactions.ts';
export type { Watermark, WatermarkRepo } from './watermarks.ts';

export interface Store {
  readonly path: string;
  /** The raw better-sqlite3 handle, for migrations tests and ad-hoc reads; prefer the repositories. */
  readonly db: Db;
  readonly nonces: NonceRepo;
  readonly intents: IntentRepo;
  readonly transactions: TxRepo;
  readonly orders: OrderRepo;
  readonly fills: FillRepo;
  readonly spend: SpendRepo;
  readonly watermarks: WatermarkRepo;
  readonly feeRecipients: FeeRecipientRepo;
  readonly strategyState: StrategyStateRepo;
  /**
   * Runs `fn` in one IMMEDIATE transaction (all or nothing). Not async. The commit is fsynced
   * (survives power loss) unless `durable: false`, which only skips the fsync: a process crash
   * (kill -9) still loses nothing in WAL mode; a later durable commit fsyncs it too. Use
   * `durable: false` for records that reconcile can rebuild (e.g. "broadcast done").
   */
  transaction<T>(fn: () => T, options?: { readonly durable?: boolean }): T;
  schemaVersion(): number;
  close(): void;
}

export interface OpenStoreOptions extends OpenDbOptions {
  /** Epoch-ms clock for the timestamps the store writes; default Date.now. */
  readonly now?: () => number;
  /**
   * Take `<path>.lock` (pid) so no second process writes this store (and its nonce ledger) at the
   * same time: a live owner is a FatalError `store_locked`; a dead one's lock is taken over.
   * The daemon sets it; default false.
   */
  readonly exclusive?: boolean;
  /**
   * `full` (default): every commit is fsynced. `normal`: commits are fsynced only at WAL
   * checkpoints — safe against process crashes, not against power loss; faster on slow disks.
   */
  readonly synchronous?: 'full' | 'normal';
  /**
   * WAL checkpoints run from a timer at this interval instead of inside commits (ms). Default
   * 1000; 0 leaves SQLite's auto-checkpoint (inside the commit that crosses 1000 pages).
   */
  readonly checkpointIntervalMs?: number;
}

/**
 * Opens the daemon's SQLite store (WAL, synchronous=FULL, file mode 0600), migrating it to the
 * latest schema. Throws FatalError for a corrupt, foreign or newer-schema database (never resets it).
 */
export function openStore(path: string, options: OpenStoreOptions = {}): Store {
  const release = options.exclusive && path !== ':memory:' ? acquireStoreLock(path) : () => {};
  let db: Db;
  try {
    db = openDb(path, options);
  } catch (e) {
    release();
    throw e;
  }
  const now = options.now ?? Date.now;
  // an in-memory database has nothing to fsync: NORMAL, so non-durable commits need no switch
  const base = options.synchronous === 'normal' || path === ':memory:' ? 'NORMAL' : 'FULL';
  db.pragma(`synchronous = ${base}`);
  // WAL checkpoints never run inside a commit of the hot path (SQLite's auto-checkpoint makes the
  // committing transaction pay for copying the WAL into the database and an extra fsync): they run
  // from a timer instead, off the snipe path. Disabled for in-memory databases (no WAL).
  let checkpointTimer: NodeJS.Timeout | undefined;
  if (path !== ':memory:' && options.checkpointIntervalMs !== 0) {
    db.pragma('wal_autocheckpoint = 0');
    checkpointTimer = setInterval(() => {
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // busy or closing: the next tick tries again
      }
    }, options.checkpointIntervalMs ?? 1_000);
    checkpointTimer.unref();
  }
  let closed = false;
  // one transaction wrapper for every call (building one per call costs more than a small commit)
  const inTransaction = db.transaction((fn: () => unknown) => fn());
  const fills = createFillRepo(db, now);
  /** A rolled-back transaction takes its fills with it: the repository's memory of them too. */
  const immediate = <T>(fn: () => T): T => {
    try {
      return inTransaction.immediate(fn) as T;
    } catch (err) {
      fills.forgetRecent();
      throw err;
    }
  };
  return {
    path,
    db,
    nonces: createNonceRepo(db, now),
    intents: createIntentRepo(db, now),
    transactions: createTxRepo(db, now),
    orders: createOrderRepo(db, now),
    fills,
    spend: createSpendRepo(db, now),
    watermarks: createWatermarkRepo(db, now),
    feeRecipients: createFeeRecipientRepo(db, now),
    strategyState: createStrategyStateRepo(db, now),
    transaction<T>(fn: () => T, opts: { readonly durable?: boolean } = {}): T {
      if (opts.durable !== false || base === 'NORMAL') return immediate(fn);
      db.pragma('synchronous = NORMAL');
      try {
        return immediate(fn);
      } finally {
        db.pragma(`synchronous = ${base}`);
      }
    },
    schemaVersion: () => schemaVersion(db),
    close() {
      if (closed) return;
      closed = true;
      if (checkpointTimer !== undefined) clearInterval(checkpointTimer);
      try {
        db.close();
      } finally {
        release();
      }
    },
  };
}
