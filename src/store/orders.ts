import { amountFromDb, amountToDb } from './amount.ts';
import { fromJson, toJson } from './json.ts';
import type { Db } from './open.ts';

export const ORDER_SIDES = ['listing', 'item_offer', 'collection_offer', 'trait_offer'] as const;
export type OrderSide = (typeof ORDER_SIDES)[number];
/** The order ledger's states (src/ledger/types.ts explains them). */
export const ORDER_STATUSES = [
  'posted',
  'open',
  'partly_filled',
  'filled',
  'cancelling',
  'cancelled',
  'expired',
  'invalid',
  'failed',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** States in which an order may still be filled (they count as exposure). */
export const STANDING_STATUSES: readonly OrderStatus[] = [
  'posted',
  'open',
  'partly_filled',
  'cancelling',
  'invalid',
];

/** One of our own Seaport orders (listing or offer): the order ledger's record. */
export interface OrderRecord {
  readonly hash: string;
  readonly intentId?: string;
  readonly strategy?: string;
  /** The intent's target, e.g. `offer:collection:slug`. */
  readonly target?: string;
  readonly side: OrderSide;
  readonly collection: string;
  readonly contract?: string;
  readonly tokenId?: string;
  readonly standard?: 'erc721' | 'erc1155';
  readonly traitType?: string;
  readonly traitValue?: string;
  /** Total price (all units) in the payment token's smallest unit. */
  readonly price: bigint;
  /** Payment token address. */
  readonly token: string;
  readonly tokenSymbol?: string;
  readonly tokenDecimals?: number;
  readonly quantity: bigint;
  /** Units filled so far. */
  readonly filled: bigint;
  readonly startTime?: number;
  /** Expiry, epoch seconds (Seaport endTime). */
  readonly expiry: number;
  readonly status: OrderStatus;
  /** An accepted off-chain cancel: signatures issued before stay usable until then (epoch ms). */
  readonly cancelValidUntil?: number;
  /** Seaport order components (JSON), for an on-chain cancel. */
  readonly components?: unknown;
  readonly protocol?: string;
  readonly error?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type NewOrder = Omit<
  OrderRecord,
  'createdAt' | 'updatedAt' | 'quantity' | 'status' | 'error' | 'filled'
> & {
  readonly quantity?: bigint;
  readonly filled?: bigint;
  readonly status?: OrderStatus;
  readonly error?: string;
  readonly createdAt?: number;
  readonly updatedAt?: number;
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
  list(filter?: OrderFilter): OrderRecord[];
  /** Orders still standing, and those that ended after `since` (epoch ms). */
  recent(since: number): OrderRecord[];
  /** Records a fill of an order once; false when this fill id was recorded before. */
  recordFill(orderHash: string, fillId: string, units: bigint, amount: bigint): boolean;
  hasFill(orderHash: string, fillId: string): boolean;
}

interface Row {
  hash: string;
  intent_id: string | null;
  strategy: string | null;
  target: string | null;
  side: OrderSide;
  collection: string;
  contract: string | null;
  token_id: string | null;
  standard: 'erc721' | 'erc1155' | null;
  trait_type: string | null;
  trait_value: string | null;
  price: string;
  token: string;
  token_symbol: string | null;
  token_decimals: number | null;
  quantity: string;
  filled: string;
  start_time: number | null;
  expiry: number;
  status: OrderStatus;
  cancel_valid_until: number | null;
  components: string | null;
  protocol: string | null;
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
    ...opt('target', r.target),
    side: r.side,
    collection: r.collection,
    ...opt('contract', r.contract),
    ...opt('tokenId', r.token_id),
    ...opt('standard', r.standard),
    ...opt('traitType', r.trait_type),
    ...opt('traitValue', r.trait_value),
    price: amountFromDb(r.price, 'price'),
    token: r.token,
    ...opt('tokenSymbol', r.token_symbol),
    ...opt('tokenDecimals', r.token_decimals),
    quantity: amountFromDb(r.quantity, 'quantity'),
    filled: amountFromDb(r.filled, 'filled'),
    ...opt('startTime', r.start_time),
    expiry: r.expiry,
    status: r.status,
    ...opt('cancelValidUntil', r.cancel_valid_until),
    ...(r.components !== null ? { components: fromJson(r.components) } : {}),
    ...opt('protocol', r.protocol),
    ...opt('error', r.error),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function createOrderRepo(db: Db, now: () => number): OrderRepo {
  const upsertStmt = db.prepare(
    `INSERT INTO orders (hash, intent_id, strategy, target, side, collection, contract, token_id, standard,
       trait_type, trait_value, price, token, token_symbol, token_decimals, quantity, filled, start_time, expiry,
       status, cancel_valid_until, components, protocol, error, created_at, updated_at)
     VALUES (@hash, @intentId, @strategy, @target, @side, @collection, @contract, @tokenId, @standard,
       @traitType, @traitValue, @price, @token, @tokenSymbol, @tokenDecimals, @quantity, @filled, @startTime,
       @expiry, @status, @cancelValidUntil, @components, @protocol, @error, @createdAt, @at)
     ON CONFLICT (hash) DO UPDATE SET intent_id = excluded.intent_id, strategy = excluded.strategy,
       target = excluded.target, side = excluded.side, collection = excluded.collection,
       contract = excluded.contract, token_id = excluded.token_id, standard = excluded.standard,
       trait_type = excluded.trait_type, trait_value = excluded.trait_value, price = excluded.price,
       token = excluded.token, token_symbol = excluded.token_symbol, token_decimals = excluded.token_decimals,
       quantity = excluded.quantity, filled = excluded.filled, start_time = excluded.start_time,
       expiry = excluded.expiry, status = excluded.status, cancel_valid_until = excluded.cancel_valid_until,
       components = COALESCE(excluded.components, orders.components),
       protocol = COALESCE(excluded.protocol, orders.protocol), error = excluded.error,
       updated_at = excluded.updated_at`,
  );
  const getStmt = db.prepare<[string], Row>('SELECT * FROM orders WHERE hash = ?');
  const recentStmt = db.prepare<[number], Row>(
    `SELECT * FROM orders WHERE status IN ('posted','open','partly_filled','cancelling','invalid') OR updated_at >= ?
     ORDER BY created_at, rowid`,
  );
  const fillStmt = db.prepare(
    'INSERT OR IGNORE INTO order_fills (order_hash, fill_id, units, amount, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const hasFillStmt = db.prepare<[string, string], { n: number }>(
    'SELECT 1 AS n FROM order_fills WHERE order_hash = ? AND fill_id = ?',
  );
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
      const at = o.updatedAt ?? now();
      upsertStmt.run({
        hash: o.hash,
        intentId: o.intentId ?? null,
        strategy: o.strategy ?? null,
        target: o.target ?? null,
        side: o.side,
        collection: o.collection,
        contract: o.contract?.toLowerCase() ?? null,
        tokenId: o.tokenId ?? null,
        standard: o.standard ?? null,
        traitType: o.traitType ?? null,
        traitValue: o.traitValue ?? null,
        price: amountToDb(o.price),
        token: o.token.toLowerCase(),
        tokenSymbol: o.tokenSymbol ?? null,
        tokenDecimals: o.tokenDecimals ?? null,
        quantity: amountToDb(o.quantity ?? 1n),
        filled: amountToDb(o.filled ?? 0n),
        startTime: o.startTime ?? null,
        expiry: o.expiry,
        status: o.status ?? 'posted',
        cancelValidUntil: o.cancelValidUntil ?? null,
        components: o.components !== undefined ? toJson(o.components) : null,
        protocol: o.protocol ?? null,
        error: o.error ?? null,
        createdAt: o.createdAt ?? at,
        at,
      });
    },
    get(hash) {
      const r = getStmt.get(hash);
      return r ? fromRow(r) : undefined;
    },
    list,
    recent(since) {
      return recentStmt.all(since).map(fromRow);
    },
    recordFill(orderHash, fillId, units, amount) {
      return fillStmt.run(orderHash, fillId, amountToDb(units), amountToDb(amount), now()).changes === 1;
    },
    hasFill(orderHash, fillId) {
      return hasFillStmt.get(orderHash, fillId) !== undefined;
    },
  };
}
