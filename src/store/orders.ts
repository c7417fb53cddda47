import { amountFromDb, amountToDb } from './amount.ts';
import type { Db } from './open.ts';

export const ORDER_SIDES = ['listing', 'item_offer', 'collection_offer', 'trait_offer'] as const;
export type OrderSide = (typeof ORDER_SIDES)[number];
export const ORDER_STATUSES = ['pending', 'open', 'filled', 'cancelled', 'expired', 'failed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** One of our own Seaport orders (listing or offer). */
export interface OrderRecord {
  readonly hash: string;
  readonly intentId?: string;
  readonly strategy?: string;
  readonly side: OrderSide;
  readonly collection: string;
  readonly contract?: string;
  readonly tokenId?: string;
  readonly traitType?: string;
  readonly traitValue?: string;
  /** Total price in the payment token's smallest unit. */
  readonly price: bigint;
  /** Payment token address. */
  readonly token: string;
  readonly quantity: bigint;
  readonly startTime?: number;
  /** Expiry, epoch seconds (Seaport endTime). */
  readonly expiry: number;
  readonly status: OrderStatus;
  readonly error?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type NewOrder = Omit<OrderRecord, 'createdAt' | 'updatedAt' | 'quantity' | 'status' | 'error'> & {
  readonly quantity?: bigint;
  readonly status?: OrderStatus;
};

export interface OrderFilter {
  readonly status?: OrderStatus | readonly OrderStatus[];
  readonly collection?: string;
  readonly strategy?: string;
  readonly side?: OrderSide;
}

export interface OrderRepo {
  /** Inserts the order, or updates every field but createdAt if the hash is known. */
  upsert(order: NewOrder): void;
  get(hash: string): OrderRecord | undefined;
  setStatus(hash: string, status: OrderStatus, error?: string): void;
  list(filter?: OrderFilter): OrderRecord[];
  /** pending and open orders (what reconcile checks, what risk counts as exposure). */
  open(filter?: Omit<OrderFilter, 'status'>): OrderRecord[];
}

interface Row {
  hash: string;
  intent_id: string | null;
  strategy: string | null;
  side: OrderSide;
  collection: string;
  contract: string | null;
  token_id: string | null;
  trait_type: string | null;
  trait_value: string | null;
  price: string;
  token: string;
  quantity: string;
  start_time: number | null;
  expiry: number;
  status: OrderStatus;
  error: string | null;
  created_at: number;
  updated_at: number;
}

function opt<K extends string, V>(key: K, v: V | null): { [P in K]?: V } {
  return (v === null ? {} : { [key]: v }) as { [P in K]?: V };
}

function fromRow(r: Row): OrderRecord {
  return {
    hash: r.hash,
    ...opt('intentId', r.intent_id),
    ...opt('strategy', r.strategy),
    side: r.side,
    collection: r.collection,
    ...opt('contract', r.contract),
    ...opt('tokenId', r.token_id),
    ...opt('traitType', r.trait_type),
    ...opt('traitValue', r.trait_value),
    price: amountFromDb(r.price, 'price'),
    token: r.token,
    quantity: amountFromDb(r.quantity, 'quantity'),
    ...opt('startTime', r.start_time),
    expiry: r.expiry,
    status: r.status,
    ...opt('error', r.error),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function createOrderRepo(db: Db, now: () => number): OrderRepo {
  const upsertStmt = db.prepare(
    `INSERT INTO orders (hash, intent_id, strategy, side, collection, contract, token_id, trait_type, trait_value,
       price, token, quantity, start_time, expiry, status, created_at, updated_at)
     VALUES (@hash, @intentId, @strategy, @side, @collection, @contract, @tokenId, @traitType, @traitValue,
       @price, @token, @quantity, @startTime, @expiry, @status, @at, @at)
     ON CONFLICT (hash) DO UPDATE SET intent_id = excluded.intent_id, strategy = excluded.strategy,
       side = excluded.side, collection = excluded.collection, contract = excluded.contract,
       token_id = excluded.token_id, trait_type = excluded.trait_type, trait_value = excluded.trait_value,
       price = excluded.price, token = excluded.token, quantity = excluded.quantity,
       start_time = excluded.start_time, expiry = excluded.expiry, status = excluded.status,
       updated_at = excluded.updated_at`,
  );
  const getStmt = db.prepare<[string], Row>('SELECT * FROM orders WHERE hash = ?');
  const setStmt = db.prepare('UPDATE orders SET status = ?, error = ?, updated_at = ? WHERE hash = ?');
  const list = (filter: OrderFilter = {}): OrderRecord[] => {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.status !== undefined) {
      const s: readonly OrderStatus[] = typeof filter.status === 'string' ? [filter.status] : filter.status;
      if (s.length === 0) return [];
      where.push(`status IN (${s.map(() => '?').join(',')})`);
      args.push(...s);
    }
    if (filter.collection !== undefined) {
      where.push('collection = ?');
      args.push(filter.collection);
    }
    if (filter.strategy !== undefined) {
      where.push('strategy = ?');
      args.push(filter.strategy);
    }
    if (filter.side !== undefined) {
      where.push('side = ?');
      args.push(filter.side);
    }
    const sql = `SELECT * FROM orders${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, rowid`;
    return (db.prepare(sql).all(...args) as Row[]).map(fromRow);
  };
  return {
    upsert(o) {
      upsertStmt.run({
        hash: o.hash,
        intentId: o.intentId ?? null,
        strategy: o.strategy ?? null,
        side: o.side,
        collection: o.collection,
        contract: o.contract?.toLowerCase() ?? null,
        tokenId: o.tokenId ?? null,
        traitType: o.traitType ?? null,
        traitValue: o.traitValue ?? null,
        price: amountToDb(o.price),
        token: o.token.toLowerCase(),
        quantity: amountToDb(o.quantity ?? 1n),
        startTime: o.startTime ?? null,
        expiry: o.expiry,
        status: o.status ?? 'pending',
        at: now(),
      });
    },
    get(hash) {
      const r = getStmt.get(hash);
      return r ? fromRow(r) : undefined;
    },
    setStatus(hash, status, error) {
      if (setStmt.run(status, error ?? null, now(), hash).changes !== 1) {
        throw new RangeError(`no order with hash ${hash}`);
      }
    },
    list,
    open(filter = {}) {
      return list({ ...filter, status: ['pending', 'open'] });
    },
  };
}
