import { amountFromDb, amountToDb } from './amount.ts';
import type { Db } from './open.ts';

export interface FillRecord {
  readonly id: number;
  readonly orderHash?: string;
  readonly intentId?: string;
  readonly txHash?: string;
  /** `buy`: we received the NFT; `sell`: we gave it. */
  readonly side: 'buy' | 'sell';
  readonly collection: string;
  readonly contract: string;
  readonly tokenId: string;
  /** Units of the NFT (ERC-1155 quantities; 1 for ERC-721). */
  readonly quantity: bigint;
  /** For all the units. */
  readonly price: bigint;
  readonly token: string;
  readonly fees: bigint;
  readonly blockNumber?: number;
  readonly filledAt: number;
}

export type NewFill = Omit<FillRecord, 'id' | 'fees' | 'filledAt' | 'quantity'> & {
  readonly quantity?: bigint;
  readonly fees?: bigint;
  readonly filledAt?: number;
};

export interface FillRepo {
  /** Records a fill; returns false when the same (tx, contract, token) was already recorded. */
  record(fill: NewFill): boolean;
  list(filter?: { readonly collection?: string; readonly since?: number }): FillRecord[];
  /** The newest fills first, `limit` of them, older than fill `beforeId` when given (paging). */
  page(query: { readonly limit: number; readonly beforeId?: number }): FillRecord[];
  /** Fills recorded after fill `id` (ids grow), oldest first, at most `limit`. */
  after(id: number, limit: number): FillRecord[];
  count(): number;
  /** Bumps on every fill this store recorded (as `SpendRepo.version`): change detection without a query. */
  version(): number;
}

/** The store's own handle on its fill repository. */
export interface OwnedFillRepo extends FillRepo {
  /** A transaction rolled back: fills recorded in it are not in the table (nor kept in memory). */
  forgetRecent(): void;
}

/** Fills kept in memory as recorded (the newest), for `after` to answer without a query. */
const RECENT_MAX = 4_096;

interface Row {
  id: number;
  order_hash: string | null;
  intent_id: string | null;
  tx_hash: string | null;
  side: 'buy' | 'sell';
  collection: string;
  contract: string;
  token_id: string;
  quantity: string;
  price: string;
  token: string;
  fees: string;
  block_number: number | null;
  filled_at: number;
}

function fromRow(r: Row): FillRecord {
  return {
    id: r.id,
    ...(r.order_hash === null ? {} : { orderHash: r.order_hash }),
    ...(r.intent_id === null ? {} : { intentId: r.intent_id }),
    ...(r.tx_hash === null ? {} : { txHash: r.tx_hash }),
    side: r.side,
    collection: r.collection,
    contract: r.contract,
    tokenId: r.token_id,
    quantity: amountFromDb(r.quantity, 'quantity'),
    price: amountFromDb(r.price, 'price'),
    token: r.token,
    fees: amountFromDb(r.fees, 'fees'),
    ...(r.block_number === null ? {} : { blockNumber: r.block_number }),
    filledAt: r.filled_at,
  };
}

export function createFillRepo(db: Db, now: () => number): OwnedFillRepo {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO fills (order_hash, intent_id, tx_hash, side, collection, contract, token_id, quantity,
       price, token, fees, block_number, filled_at)
     VALUES (@order_hash, @intent_id, @tx_hash, @side, @collection, @contract, @token_id, @quantity, @price, @token,
       @fees, @block_number, @filled_at)`,
  );
  const newest = db.prepare('SELECT * FROM fills ORDER BY id DESC LIMIT ?');
  const older = db.prepare('SELECT * FROM fills WHERE id < ? ORDER BY id DESC LIMIT ?');
  const later = db.prepare('SELECT * FROM fills WHERE id > ? ORDER BY id LIMIT ?');
  const counted = db.prepare('SELECT COUNT(*) AS n FROM fills');
  let version = 0;
  /**
   * The fills this repository recorded last, oldest first: whoever follows the fills (holdings,
   * after each one) reads them here. The store has one writer (the daemon holds its lock), so no
   * other fill comes between them; a rollback empties it (forgetRecent).
   */
  let recent: FillRecord[] = [];
  return {
    page({ limit, beforeId }) {
      const rows = beforeId === undefined ? newest.all(limit) : older.all(beforeId, limit);
      return (rows as Row[]).map(fromRow);
    },
    after(id, limit) {
      const first = recent[0];
      // every fill from the first kept on is kept (ids may skip: an ignored insert takes one)
      if (first !== undefined && id >= first.id - 1) {
        let lo = 0;
        let hi = recent.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if ((recent[mid] as FillRecord).id <= id) lo = mid + 1;
          else hi = mid;
        }
        return recent.slice(lo, lo + limit);
      }
      return (later.all(id, limit) as Row[]).map(fromRow);
    },
    forgetRecent() {
      recent = [];
    },
    count() {
      return (counted.get() as { n: number }).n;
    },
    version: () => version,
    record(f) {
      // the row as the table keeps it (and gives it back)
      const row: Omit<Row, 'id'> = {
        order_hash: f.orderHash ?? null,
        intent_id: f.intentId ?? null,
        tx_hash: f.txHash ?? null,
        side: f.side,
        collection: f.collection,
        contract: f.contract.toLowerCase(),
        token_id: f.tokenId,
        quantity: amountToDb(f.quantity ?? 1n),
        price: amountToDb(f.price),
        token: f.token.toLowerCase(),
        fees: amountToDb(f.fees ?? 0n),
        block_number: f.blockNumber ?? null,
        filled_at: f.filledAt ?? now(),
      };
      const r = insert.run(row);
      const added = r.changes === 1;
      if (added) {
        version++;
        recent.push(Object.freeze(fromRow({ id: Number(r.lastInsertRowid), ...row })));
        if (recent.length > RECENT_MAX) recent = recent.slice(RECENT_MAX / 2);
      }
      return added;
    },
    list(filter = {}) {
      const where: string[] = [];
      const args: unknown[] = [];
      if (filter.collection !== undefined) {
        where.push('collection = ?');
        args.push(filter.collection);
      }
      if (filter.since !== undefined) {
        where.push('filled_at >= ?');
        args.push(filter.since);
      }
      const sql = `SELECT * FROM fills${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY filled_at, id`;
      return (db.prepare(sql).all(...args) as Row[]).map(fromRow);
    },
  };
}
